import { constants, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { COMPACT_FROM_RESOURCES, compactHeap } from '../../../src/engine/heap.js';

// WeakRef targets and GC entries are settled between jobs, hence the awaits.
const nextJob = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** How many full (mark-compact) collections run while `action` does. */
async function majorCollections(action: () => void): Promise<number> {
  let major = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) major += 1;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  await nextJob();
  action();
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
});
