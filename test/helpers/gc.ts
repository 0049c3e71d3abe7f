/** Counting V8's full (mark-compact) collections in this process, for the heap tests. */
import { constants, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';

/** Starts counting full collections; `stop()` ends it and returns the count. */
export function countMajorCollections(): { stop(): number } {
  let major = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) major += 1;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    stop() {
      observer.disconnect();
      return major;
    },
  };
}
