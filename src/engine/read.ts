/**
 * Read phase: every kind reads the live objects of its desired resources in batches. Reads of
 * one reconcile share a memo (`once`), so AccessList and ManagedAccessList list a zone once,
 * and E7 is asked once for every app that uses `@optimal`.
 */
import type { ApiClient } from '../api/types.js';
import type { DesiredResource } from '../config/types.js';
import { toReconcileError } from '../errors.js';
import type { LiveRead } from '../kinds/common/kind.js';
import { createReadContext, groupBy, type ReadContextOptions } from '../kinds/common/read.js';
import { type ContainerAppSpec, usesOptimalRegion } from '../kinds/container-app/spec.js';
import { KINDS } from '../kinds/registry.js';
import type { OptimalRegion } from './types.js';

/** What the read phase needs: the options of its ReadContext. */
export type ReadOptions = ReadContextOptions;

export interface LiveSnapshot {
  readonly reads: ReadonlyMap<string, LiveRead<unknown>>;
  readonly optimalRegion: OptimalRegion | undefined;
}

function needsOptimalRegion(resources: readonly DesiredResource[]): boolean {
  return resources.some((r) => r.kind === 'ContainerApp' && usesOptimalRegion(r.spec as ContainerAppSpec));
}

async function readOptimalRegion(api: ApiClient, signal: AbortSignal): Promise<OptimalRegion | undefined> {
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
  const ctx = createReadContext(options);
  const optimalRegion = needsOptimalRegion(resources)
    ? ctx.limit(() => readOptimalRegion(options.api, options.signal))
    : Promise.resolve(undefined);
  const perKind = await Promise.all(
    [...groupBy(resources, (r) => r.kind)].map(([kind, group]) => KINDS[kind].readLive(group, ctx)),
  );
  const reads = new Map<string, LiveRead<unknown>>();
  for (const map of perKind) for (const [subject, read] of map) reads.set(subject, read);
  return { reads, optimalRegion: await optimalRegion };
}
