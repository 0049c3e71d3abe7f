import { describe, expect, it } from 'vitest';
import { createReconcileQueue, type RunRequest } from '../../../src/daemon/queue.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('reconcile queue', () => {
  it('runs one at a time and merges requests made during a run into one follow-up', async () => {
    const runs: RunRequest[] = [];
    const gates = [deferred(), deferred()];
    const queue = createReconcileQueue(async (request) => {
      runs.push(request);
      await gates[runs.length - 1]?.promise;
    });

    queue.request('startup');
    await Promise.resolve();
    for (let i = 0; i < 50; i += 1) queue.request(i % 2 === 0 ? 'webhook' : 'file-change', [`Kind/r${i}`]);
    gates[0]?.resolve();
    await new Promise((r) => setTimeout(r, 10));
    gates[1]?.resolve();
    await queue.idle();

    expect(runs).toHaveLength(2);
    expect(runs[0]).toEqual({ reasons: new Set(['startup']), full: true });
    expect(runs[1]?.full).toBe(false);
    expect(runs[1]?.reasons).toEqual(new Set(['webhook', 'file-change']));
    expect(runs[1]?.subjects?.size).toBe(50);
  });

  it('turns a merged request into a full run when any part asked for one', async () => {
    const runs: RunRequest[] = [];
    const queue = createReconcileQueue(async (request) => {
      runs.push(request);
    });

    queue.request('file-change', ['A/a']);
    queue.request('schedule');
    await queue.idle();

    expect(runs).toEqual([{ reasons: new Set(['file-change', 'schedule']), full: true }]);
  });

  it('keeps running after a run throws, and close drops the pending request', async () => {
    let calls = 0;
    const gate = deferred();
    const queue = createReconcileQueue(async () => {
      calls += 1;
      if (calls === 1) throw new Error('boom');
      await gate.promise;
    });

    queue.request('a');
    await queue.idle();
    queue.request('b');
    await Promise.resolve();
    queue.request('c');
    const closing = queue.close();
    gate.resolve();
    await closing;
    queue.request('d');
    await queue.idle();

    expect(calls).toBe(2);
  });
});
