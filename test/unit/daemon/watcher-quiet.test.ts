/**
 * The watcher's two clocks on real files: a burst fires once its files kept their fingerprint
 * for the debounce (a file still being written holds it back), and `quietForMs` tells how long
 * ago a file last changed (Infinity before any change).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ConfigWatcher, watchConfig } from '../../../src/daemon/watcher.js';
import { silentLogger } from '../../../src/log.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let watcher: ConfigWatcher | undefined;
afterEach(async () => {
  await watcher?.close();
  watcher = undefined;
});

async function start(): Promise<{ file: string; fired: number[] }> {
  const root = tempDir();
  const config = writeTree(join(root, 'config'), { 'a.yaml': 'a: 1\n' });
  const fired: number[] = [];
  watcher = await watchConfig({
    configPath: config,
    stateDir: join(root, 'state'),
    debounceMs: 100,
    logger: silentLogger(),
    onChange: () => fired.push(Date.now()),
  });
  return { file: join(config, 'a.yaml'), fired };
}

describe('watchConfig quiet tracking', () => {
  it('is Infinity before any change, then counts from the last write', async () => {
    const { file, fired } = await start();
    expect(watcher?.quietForMs()).toBe(Number.POSITIVE_INFINITY);
    writeFileSync(file, 'a: 2\n');
    await sleep(400);
    expect(fired).toHaveLength(1);
    const quiet = watcher?.quietForMs() ?? 0;
    expect(quiet).toBeGreaterThanOrEqual(250);
    expect(quiet).toBeLessThan(2000);
    writeFileSync(file, 'a: 3\n');
    await sleep(20);
    expect(watcher?.quietForMs()).toBeLessThan(250);
  });

  it('fires only once a file written in steps has kept its fingerprint for the debounce', async () => {
    const { file, fired } = await start();
    const writes: number[] = [];
    for (let step = 0; step < 8; step += 1) {
      writeFileSync(file, `a: ${'x'.repeat(step + 1)}\n`);
      writes.push(Date.now());
      await sleep(50);
    }
    await sleep(400);
    // A loaded host can stretch a 50 ms step past the 100 ms debounce: the writer did pause
    // then, and a fire in that pause is right. Every fire comes a debounce after a write.
    const pauses = writes.slice(1).filter((at, i) => at - (writes[i] as number) >= 100).length;
    expect(fired.length).toBeGreaterThanOrEqual(1);
    expect(fired.length).toBeLessThanOrEqual(1 + pauses);
    for (const at of fired) {
      const before = writes.filter((w) => w <= at).at(-1) as number;
      expect(at - before).toBeGreaterThanOrEqual(90);
    }
    expect((fired.at(-1) as number) - (writes.at(-1) as number)).toBeGreaterThanOrEqual(90);
  });
});
