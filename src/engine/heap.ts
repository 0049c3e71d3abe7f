/**
 * Heap compaction at the phase boundaries of a big reconcile.
 *
 * V8 lets the old generation grow to a multiple of the live set before it compacts. A
 * reconcile of 10,000 resources keeps ~45 MB live but promotes the read phase's listings and
 * the live snapshot (dead once the plan exists) and, in a long-lived daemon, the previous
 * run's plan: left alone, RSS climbs past 300 MB. A full collection when those die keeps it
 * near the live set, for ~20–40 ms per collection.
 *
 * `gc` is not exposed without `--expose-gc`; setting that flag at run time makes it available
 * to contexts created afterwards, which is how it is fetched here. Where that fails, nothing
 * happens and only memory is lost.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Below this many resources a reconcile's garbage is small: no collection is forced. */
export const COMPACT_FROM_RESOURCES = 2_000;

let collect: (() => void) | undefined;
let looked = false;

function collector(): (() => void) | undefined {
  if (looked) return collect;
  looked = true;
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') {
    collect = exposed;
    return collect;
  }
  try {
    setFlagsFromString('--expose-gc');
    const fn: unknown = runInNewContext('gc');
    if (typeof fn === 'function') collect = fn as () => void;
  } catch {
    collect = undefined;
  }
  return collect;
}

/** A full, compacting collection when `resources` is large enough to matter. */
export function compactHeap(resources: number): void {
  if (resources < COMPACT_FROM_RESOURCES) return;
  collector()?.();
}

/**
 * Runs `work` with a full collection every `everyMs` while it runs, for a big reconcile: the
 * apply phase of 10,000 changes turns over its reply bodies fast enough that V8 lets the
 * heap double between its own major collections.
 */
export async function compactingWhile<T>(
  resources: number,
  work: () => Promise<T>,
  everyMs = 500,
): Promise<T> {
  if (resources < COMPACT_FROM_RESOURCES) return work();
  const timer = setInterval(() => compactHeap(resources), everyMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
