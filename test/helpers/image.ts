/** What the container image sets, read from the Dockerfile, so a daemon can run as deployed. */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const DOCKERFILE = join(resolve(import.meta.dirname, '../..'), 'Dockerfile');

/** The image's NODE_OPTIONS (its ENV line). */
export function imageNodeOptions(): string {
  const match = /NODE_OPTIONS="([^"]*)"/.exec(readFileSync(DOCKERFILE, 'utf8'));
  if (match === null) throw new Error('the Dockerfile sets no NODE_OPTIONS="…"');
  return match[1] as string;
}
