/** What the container image sets, read from the Dockerfile, so a daemon can run as deployed. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The repository's Dockerfile, found upwards from here (tests run from test/, the bench from dist-bench/test/). */
function dockerfile(): string {
  for (let dir = import.meta.dirname; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'Dockerfile')) && existsSync(join(dir, 'package.json')))
      return join(dir, 'Dockerfile');
    if (dirname(dir) === dir) throw new Error(`no Dockerfile above ${import.meta.dirname}`);
  }
}

/** The image's NODE_OPTIONS (its ENV line). */
export function imageNodeOptions(): string {
  const match = /NODE_OPTIONS="([^"]*)"/.exec(readFileSync(dockerfile(), 'utf8'));
  if (match === null) throw new Error('the Dockerfile sets no NODE_OPTIONS="…"');
  return match[1] as string;
}
