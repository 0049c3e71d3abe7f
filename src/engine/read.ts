/**
 * Read phase: every kind reads the live objects of its desired resources in batches. Reads of
 * one reconcile share a memo (`once`), so AccessList and ManagedAccessList list a zone once,
 * and E7 is asked once for every app that uses `@optimal`.
 */
import pLimit from 'p-limit';
import type { ApiClient } from '../api/types.js';
import type { DesiredResource } from '../config/types.js';
import { toReconcileError } from '../errors.js';
import type { LiveRead, PlanContext, ReadContext } from '../kinds/common/kind.js';
import { groupBy } from '../kinds/common/read.js';
import type { ContainerAppSpec } from '../kinds/container-app/spec.js';
import { OPTIMAL_REGION } from '../kinds/container-app/spec.js';
import { KINDS } from '../kinds/registry.js';

export interface ReadOptions {
  api: ApiClient;
  signal: AbortSignal;
  concurrency: number;
  hint(subject: string): unknown;
}

export interface LiveSnapshot {
  readonly reads: ReadonlyMap<string, LiveRead<unknown>>;
  readonly optimalRegion: PlanContext['optimalRegion'];
}

function needsOptimalRegion(resources: readonly DesiredResource[]): boolean {
  return resources.some((r) => {
    if (r.kind !== 'ContainerApp') return false;
    const region = (r.spec as ContainerAppSpec).regionSettings;
    return [...(region?.allowedRegionIds ?? []), ...(region?.requiredRegionIds ?? [])].includes(
      OPTIMAL_REGION,
    );
  });
}

async function readOptimalRegion(api: ApiClient, signal: AbortSignal): Promise<PlanContext['optimalRegion']> {
  try {
    const reply = await api.getOptimalRegion({ signal });
    return { id: reply.region.id };
  } catch (err) {
    const error = toReconcileError(err);
    return { error: { code: error.code, message: error.message } };
  }
}

/** Reads live state for `resources`; never throws for a resource's own failure. */
export async function readLiveState(
  resources: readonly DesiredResource[],
  options: ReadOptions,
): Promise<LiveSnapshot> {
  const limit = pLimit(options.concurrency);
  const memo = new Map<string, Promise<unknown>>();
  const ctx: ReadContext = {
    api: options.api,
    signal: options.signal,
    limit: (task) => limit(task),
    once<T>(key: string, load: () => Promise<T>): Promise<T> {
      let pending = memo.get(key) as Promise<T> | undefined;
      if (pending === undefined) {
        pending = load();
        memo.set(key, pending);
      }
      return pending;
    },
    hint: options.hint,
  };
  const optimalRegion = needsOptimalRegion(resources)
    ? limit(() => readOptimalRegion(options.api, options.signal))
    : Promise.resolve(undefined);
  const perKind = await Promise.all(
    [...groupBy(resources, (r) => r.kind)].map(([kind, group]) => KINDS[kind].readLive(group, ctx)),
  );
  const reads = new Map<string, LiveRead<unknown>>();
  for (const map of perKind) for (const [subject, read] of map) reads.set(subject, read);
  return { reads, optimalRegion: await optimalRegion };
}
