/**
 * Heap compaction at the phase boundaries of a big reconcile.
 *
 * V8 lets the old generation grow to a multiple of the live set before it compacts. A
 * reconcile of 10,000 resources keeps ~45 MB live but promotes the read phase's listings and
 * the live snapshot (dead once the plan exists) and, in a long-lived daemon, the previous
 * run's plan: left alone, RSS climbs past 300 MB. A full collection when those die keeps it
 * near the live set, for ~20–40 ms per collection.
 *
 * Its real price is larger: a full collection between two bursts of requests makes V8 throw
 * away the request path's optimised code (~380 recompiles a 10,000-change reconcile), because
 * objects that code embedded have died: per-run closures and the hidden classes of short-lived
 * instances, undici's and Node's as well as ours. Without these collections its apply phase
 * ran ~1.2× faster, and RSS climbed past 300 MB (docs/performance.md, "The price of the RSS budget").
 *
 * `gc` is not exposed without `--expose-gc`; setting that flag at run time makes it available
 * to contexts created afterwards, which is how it is fetched here. Where that fails, nothing
 * happens and only memory is lost.
 */
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Below this many resources a reconcile's garbage is small: no collection is forced. */
export const COMPACT_FROM_RESOURCES = 2_000;

/** The options of V8's `gc` extension this module uses (V8 ignores what it does not know). */
interface GcOptions {
  type: 'major';
  execution: 'sync';
  flavor?: 'last-resort';
}

let collect: ((options?: GcOptions) => void) | undefined;
let looked = false;

function collector(): ((options?: GcOptions) => void) | undefined {
  if (looked) return collect;
  looked = true;
  const exposed = (globalThis as { gc?: (options?: GcOptions) => void }).gc;
  if (typeof exposed === 'function') {
    collect = exposed;
    return collect;
  }
  try {
    setFlagsFromString('--expose-gc');
    const fn: unknown = runInNewContext('gc');
    if (typeof fn === 'function') collect = fn as (options?: GcOptions) => void;
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
 * For a daemon between runs: a full collection that also gives the freed pages back. Node 24's
 * V8 keeps the pages a collection frees in a pool until its memory reducer runs, after
 * seconds of idleness, so a daemon triggered every second never shrinks: its RSS climbed to
 * 219–223 MB in the bench's webhook trials while its heap stayed at 75–78 MB; with this,
 * 203. The last-resort flavour empties that pool. Its price: it flushes bytecode, so the next
 * run compiles again what it runs (push-to-applied +10–20 ms). V8 before 12 (Node 20) takes
 * no such options (given them, it collects nothing the test sees) and unmaps freed pages
 * itself, so it gets the plain collection.
 */
export function releaseHeap(resources: number): void {
  if (resources < COMPACT_FROM_RESOURCES) return;
  const collect = collector();
  if (V8_MAJOR >= 12) collect?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  else collect?.();
}

/** The major version of a V8 version string (`process.versions.v8`). */
function v8Major(version: string): number {
  return Number(version.split('.')[0]);
}

const V8_MAJOR = v8Major(process.versions.v8);

/**
 * Old-generation growth during a big apply after which a full collection runs. An apply of
 * 10,000 changes used to promote ~2 MB of short-lived reply garbage per scavenge (~50 MB in
 * all; the cause was Sets of in-flight requests, see api/linked-list.ts), which V8 leaves in
 * place until its own limit. Collecting after every 16 MB kept the peak RSS as low as a
 * collection every 0.5 s did (~40 ms each) with half as many collections or fewer. Now that
 * such an apply promotes ~5 MB in all, this rarely fires; it stays as the bound for applies
 * that do grow the heap (bigger plans, retries).
 */
const COMPACT_AFTER_GROWTH_BYTES = 16 * 1024 * 1024;

/** Bytes in use in the old generation (old space and large objects). */
function oldGenerationBytes(): number {
  let bytes = 0;
  for (const space of getHeapSpaceStatistics()) {
    if (space.space_name === 'old_space' || space.space_name === 'large_object_space') {
      bytes += space.space_used_size;
    }
  }
  return bytes;
}

/**
 * Runs `work` for a big reconcile, checking the old generation every `checkEveryMs` and
 * collecting once it has grown by `growthBytes` since the last collection.
 */
export async function compactingWhile<T>(
  resources: number,
  work: () => Promise<T>,
  checkEveryMs = 100,
  growthBytes = COMPACT_AFTER_GROWTH_BYTES,
): Promise<T> {
  if (resources < COMPACT_FROM_RESOURCES) return work();
  let baseline = oldGenerationBytes();
  const timer = setInterval(() => {
    if (oldGenerationBytes() - baseline < growthBytes) return;
    compactHeap(resources);
    baseline = oldGenerationBytes();
  }, checkEveryMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/** What decides whether V8's young generation is capped (`youngGenerationUncapped`). */
export interface RuntimeFlags {
  /** `process.versions.v8`. */
  readonly v8Version: string;
  readonly execArgv: readonly string[];
  /** The NODE_OPTIONS environment variable. */
  readonly nodeOptions: string | undefined;
}

/** This process's RuntimeFlags. */
export function currentRuntime(): RuntimeFlags {
  return {
    v8Version: process.versions.v8,
    execArgv: process.execArgv,
    nodeOptions: process.env.NODE_OPTIONS,
  };
}

/**
 * True when a big daemon runs without the semi-space cap it needs: on V8 12 and later (Node
 * 22+) the young generation grows to 64 MB a semi-space on a host with memory to spare, and a
 * 10,000-resource reconcile peaked at 268–292 MB there (docs/performance.md, Node 24). Node 20's V8 stops
 * at 16 MB and keeps the budget without it. The image sets `--max-semi-space-size=4` in
 * NODE_OPTIONS; V8 reads it only at start-up, so a running process can only say so.
 */
export function youngGenerationUncapped(runtime: RuntimeFlags): boolean {
  if (v8Major(runtime.v8Version) < 12) return false;
  const flags = [...runtime.execArgv, ...(runtime.nodeOptions ?? '').split(/\s+/)];
  return !flags.some((flag) => /^--max[-_]semi[-_]space[-_]size(=|$)/.test(flag));
}
