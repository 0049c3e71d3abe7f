/**
 * `procTreeMemory`, which the latency benchmark rates a daemon's cold start with: a real
 * child process holding a known amount of memory must show in its parent's tree.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { MB, procTreeMemory } from '../../../bench/section.js';

const HELD_MB = 64;

let child: ChildProcess | undefined;

afterEach(async () => {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await once(child, 'exit');
  }
  child = undefined;
});

/** A child that touches `HELD_MB` of memory, says so, and waits to be killed. */
async function childHolding(): Promise<ChildProcess> {
  const started = spawn(
    process.execPath,
    [
      '-e',
      `globalThis.held = Buffer.alloc(${HELD_MB} * 1024 * 1024, 1); console.log('held'); setInterval(() => {}, 1000);`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await once(started.stdout as NodeJS.ReadableStream, 'data');
  return started;
}

describe.runIf(process.platform === 'linux')('procTreeMemory', () => {
  it("counts each child's anonymous memory once, on top of the parent's", async () => {
    const alone = procTreeMemory(process.pid);
    child = await childHolding();

    const withChild = procTreeMemory(process.pid);

    expect(alone).toBeDefined();
    expect(withChild?.childAnonBytes).toHaveLength((alone?.childAnonBytes.length ?? 0) + 1);
    const largest = Math.max(...(withChild?.childAnonBytes ?? []));
    expect(largest).toBeGreaterThanOrEqual(HELD_MB * MB);
    // The child's file pages (the same Node binary) are not counted a second time.
    expect((withChild?.bytes ?? 0) - (alone?.bytes ?? 0)).toBeLessThan(largest + 16 * MB);
    expect((withChild?.bytes ?? 0) - (alone?.bytes ?? 0)).toBeGreaterThan(HELD_MB * MB);
  });

  it('says nothing for a process that is gone', async () => {
    child = await childHolding();
    const pid = child.pid as number;
    child.kill('SIGKILL');
    await once(child, 'exit');

    expect(procTreeMemory(pid)).toBeUndefined();
  });
});
