import { constants, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { COMPACT_FROM_RESOURCES, compactHeap, compactingWhile } from '../../../src/engine/heap.js';

// WeakRef targets and GC entries are settled between jobs, hence the awaits.
const nextJob = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** How many full (mark-compact) collections run while `action` does. */
async function majorCollections(action: () => unknown): Promise<number> {
  let major = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) major += 1;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  await nextJob();
  await action();
  await nextJob();
  await nextJob();
  observer.disconnect();
  return major;
}

describe('compactHeap', () => {
  it('runs a full collection for a big reconcile: an unreferenced object is gone', async () => {
    const ref = new WeakRef({ payload: new Array(1000).fill('x') });
    await nextJob();
    expect(await majorCollections(() => compactHeap(COMPACT_FROM_RESOURCES))).toBeGreaterThan(0);
    expect(ref.deref()).toBeUndefined();
  });

  it('leaves smaller reconciles alone', async () => {
    expect(await majorCollections(() => compactHeap(COMPACT_FROM_RESOURCES - 1))).toBe(0);
  });

  it('collects on a timer while a big apply runs, and stops when it ends', async () => {
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    let result: string | undefined;

    const during = await majorCollections(async () => {
      result = await compactingWhile(COMPACT_FROM_RESOURCES, () => sleep(120).then(() => 'done'), 25);
    });
    const after = await majorCollections(() => sleep(80));
    const small = await majorCollections(() =>
      compactingWhile(COMPACT_FROM_RESOURCES - 1, () => sleep(80), 10),
    );

    expect(result).toBe('done');
    expect(during).toBeGreaterThanOrEqual(2);
    expect([after, small]).toEqual([0, 0]);
  });
});
