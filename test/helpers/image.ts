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

/** The NODE_OPTIONS the Dockerfile sets (its ENV line), as written. */
export function dockerfileNodeOptions(): string {
  const match = /NODE_OPTIONS="([^"]*)"/.exec(readFileSync(dockerfile(), 'utf8'));
  if (match === null) throw new Error('the Dockerfile sets no NODE_OPTIONS="…"');
  return match[1] as string;
}

/** The heap as a share of the memory limit: Node 24 and 22.21 have the flag, Node 20 does not. */
const PERCENTAGE = /--max-old-space-size-percentage=(\d+(?:\.\d+)?)/;

/**
 * The image's NODE_OPTIONS (its ENV line), for a process under `memoryLimitBytes` (its cgroup's
 * limit) or under none. The image runs Node 24, whose `--max-old-space-size-percentage` sizes the
 * old generation as that share of the container's limit. A Node that lacks the flag (this host's
 * Node 20) gets the size the flag would compute, `--max-old-space-size` = the share of the limit
 * in MiB; without a limit the flag is left out, as Node 24 would take that share of the host's
 * memory, no cap that matters here.
 */
export function imageNodeOptions(memoryLimitBytes?: number): string {
  const options = dockerfileNodeOptions();
  const share = PERCENTAGE.exec(options);
  if (share === null || process.allowedNodeEnvironmentFlags.has('--max-old-space-size-percentage'))
    return options;
  const sized =
    memoryLimitBytes === undefined
      ? ''
      : `--max-old-space-size=${Math.floor(((memoryLimitBytes / 1024 / 1024) * Number(share[1])) / 100)}`;
  return options.replace(PERCENTAGE, sized).replace(/\s+/g, ' ').trim();
}
