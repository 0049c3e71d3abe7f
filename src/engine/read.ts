/**
 * Read phase: every kind reads the live objects of its desired resources in batches. Reads of
 * one reconcile share a memo (`once`), so AccessList and ManagedAccessList list a zone once,
 * and E7 is asked once for every app that uses `@optimal`. Then the scopes of the kinds with a
 * lifecycle are listed (their `lifecycle.list`, mostly answered from that memo) for the prune step.
 */

import pLimit from 'p-limit';
import type { ApiClient } from '../api/types.js';
import type { DesiredResource } from '../config/types.js';
import { toReconcileError } from '../errors.js';
import type { LifecycleKind } from '../kinds/common/identity.js';
import type { KindLifecycle, LiveRead, ReadContext } from '../kinds/common/kind.js';
import type { ScopeLimit, ScopeListing, ScopeObjects } from '../kinds/common/lifecycle.js';
import { createReadContext, groupBy, type ReadContextOptions } from '../kinds/common/read.js';
import { KINDS, lifecycleOf } from '../kinds/registry.js';
import { type InventoryEntry, type InventoryView, inventoryView } from './inventory.js';
import type { OptimalRegion } from './types.js';

/** What the read phase needs: the options of its ReadContext, and the inventory. */
export interface ReadOptions extends ReadContextOptions {
  /**
   * Inventory entries that may be pruned (their document is gone): their scopes are read even
   * when no document names them.
   */
  readonly orphans?: InventoryView;
}

/** What the lifecycle step (prune.ts) knows of one kind in one scope. */
export interface ScopeLive {
  readonly kind: LifecycleKind;
  readonly shieldZoneId: number | undefined;
  listing?: ScopeListing;
  /** The scope's limit facts, read only when an object of the kind is to be created there. */
  limit?: ScopeLimit;
}

/** `WafCustomRule/42`, `ContainerApp/`: the key of one kind's scope in `LiveSnapshot.scopes`. */
export function scopeKey(kind: string, shieldZoneId: number | undefined): string {
  return `${kind}/${shieldZoneId ?? ''}`;
}

export interface LiveSnapshot {
  readonly reads: ReadonlyMap<string, LiveRead<unknown>>;
  readonly optimalRegion: OptimalRegion | undefined;
  /** Listings and limits of the lifecycle kinds' scopes (for creates and pruning), by `scopeKey`. */
  readonly scopes: ReadonlyMap<string, ScopeLive>;
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

function failure(err: unknown): { error: string } {
  return { error: toReconcileError(err).message };
}

/**
 * The scope facts of the lifecycle: a listing of each kind and scope that has documents,
 * inventory entries or an exclusive declaration (shared with the kinds' reads through `once`),
 * and the scope's limits where an object is created. No extra request in a run that creates and
 * prunes nothing and whose scopes are shared.
 */
async function readScopes(
  resources: readonly DesiredResource[],
  reads: ReadonlyMap<string, LiveRead<unknown>>,
  ctx: ReadContext,
  inventory: InventoryView | undefined,
): Promise<Map<string, ScopeLive>> {
  const scopes = new Map<string, ScopeLive>();
  const want = (kind: LifecycleKind, shieldZoneId: number | undefined) => {
    const key = scopeKey(kind, shieldZoneId);
    if (!scopes.has(key)) scopes.set(key, { kind, shieldZoneId });
  };
  for (const r of resources) {
    const kind = KINDS[r.kind];
    const location = kind.lifecycle?.locate(r.spec);
    if (
      kind.lifecycle !== undefined &&
      location !== undefined &&
      !(location.readsDirectly && location.id !== undefined)
    )
      want(kind.lifecycle.kind, location.shieldZoneId);
    for (const scope of kind.exclusiveScopes?.(r.spec) ?? []) want(scope.kind, scope.shieldZoneId);
  }
  for (const entry of inventory?.entries().values() ?? []) want(entry.kind, entry.shieldZoneId);
  const creating = new Set<string>();
  for (const read of reads.values()) {
    if (read.identity?.via === 'create')
      creating.add(scopeKey(read.identity.kind, read.identity.shieldZoneId));
  }
  await Promise.all(
    [...scopes].map(async ([key, scope]) => {
      const lifecycle = lifecycleOf(scope.kind);
      if (lifecycle === undefined) return;
      const tasks: Promise<void>[] = [
        lifecycle.list(scope.shieldZoneId, ctx).then(
          async (listing) => {
            scope.listing = await withLosses(listing, key, lifecycle, inventory, ctx);
          },
          (err) => {
            scope.listing = failure(err);
          },
        ),
      ];
      const { readLimit } = lifecycle;
      if (readLimit !== undefined && creating.has(key)) {
        tasks.push(
          readLimit(scope.shieldZoneId, ctx).then(
            (value) => {
              scope.limit = { value };
            },
            (err) => {
              scope.limit = failure(err);
            },
          ),
        );
      }
      await Promise.all(tasks);
    }),
  );
  return scopes;
}

/**
 * The listing with what deleting each orphan (an inventory object whose document is gone)
 * would destroy, for the kinds that say (an app's volumes): the plan names them. A failed read
 * of those is the listing's failure: nothing is deleted unseen.
 */
async function withLosses(
  listing: ScopeObjects,
  key: string,
  lifecycle: KindLifecycle,
  inventory: InventoryView | undefined,
  ctx: ReadContext,
): Promise<ScopeObjects> {
  const { readLosses } = lifecycle;
  if (readLosses === undefined || inventory === undefined) return listing;
  const orphans = new Set(
    [...inventory.entries().values()]
      .filter((e) => scopeKey(e.kind, e.shieldZoneId) === key)
      .map((e) => e.id),
  );
  const items = await Promise.all(
    listing.items.map(async (item) =>
      orphans.has(item.id) ? { ...item, loses: await readLosses(item.id, ctx) } : item,
    ),
  );
  return { ...listing, items };
}

/** Reads live state for `resources`; never throws for a resource's own failure. */
export async function readLiveState(
  resources: readonly DesiredResource[],
  options: ReadOptions,
): Promise<LiveSnapshot> {
  const ctx = createReadContext(options);
  const optimalRegion = resources.some((r) => KINDS[r.kind].needsOptimalRegion?.(r.spec) === true)
    ? ctx.limit(() => readOptimalRegion(options.api, options.signal))
    : Promise.resolve(undefined);
  const perKind = await Promise.all(
    [...groupBy(resources, (r) => r.kind)].map(([kind, group]) => KINDS[kind].readLive(group, ctx)),
  );
  const reads = new Map<string, LiveRead<unknown>>();
  for (const map of perKind) for (const [subject, read] of map) reads.set(subject, read);
  const scopes = await readScopes(resources, reads, ctx, options.orphans);
  return { reads, optimalRegion: await optimalRegion, scopes };
}

/** The Shield Zone whose listings a resource's read and lifecycle use; undefined: the account's. */
function zoneOfRead(resource: DesiredResource): number | undefined {
  const kind = KINDS[resource.kind];
  return kind.spec.shieldZoneId(resource.spec) ?? kind.exclusiveScopes?.(resource.spec)[0]?.shieldZoneId;
}

/** The resources and prunable inventory entries of one zone (or of the account: `undefined`). */
interface ZoneRead {
  readonly resources: DesiredResource[];
  readonly orphans: Map<string, InventoryEntry>;
}

function zoneReads(
  resources: readonly DesiredResource[],
  orphans: InventoryView | undefined,
): Map<number | undefined, ZoneRead> {
  const zones = new Map<number | undefined, ZoneRead>();
  const zone = (id: number | undefined): ZoneRead => {
    let read = zones.get(id);
    if (read === undefined) {
      read = { resources: [], orphans: new Map() };
      zones.set(id, read);
    }
    return read;
  };
  for (const resource of resources) zone(zoneOfRead(resource)).resources.push(resource);
  for (const [subject, entry] of orphans?.entries() ?? [])
    zone(entry.shieldZoneId).orphans.set(subject, entry);
  return zones;
}

/**
 * Reads the live state of `resources` one Shield Zone at a time (the account's apps and DNS
 * zones as one more read), `concurrency` zones at once within one limit of `concurrency`
 * requests, and hands each zone's snapshot to `use` as soon as it is read. Everything a read
 * shares (a zone's listings, its lifecycle scopes) lies within one zone, so the snapshots are
 * the one `readLiveState` would give, cut by zone; a run holds the live objects of the zones
 * in flight rather than of the whole account at once (docs/performance.md, Memory).
 */
export async function readLiveStateByZone(
  resources: readonly DesiredResource[],
  options: ReadOptions,
  use: (resources: readonly DesiredResource[], snapshot: LiveSnapshot) => void,
): Promise<void> {
  const limit = pLimit(options.concurrency);
  const zones = pLimit(options.concurrency);
  await Promise.all(
    [...zoneReads(resources, options.orphans)].map(([, zone]) =>
      zones(async () => {
        const orphans =
          options.orphans === undefined
            ? {}
            : { orphans: inventoryView(zone.orphans, options.orphans.trusted) };
        use(zone.resources, await readLiveState(zone.resources, { ...options, limit, ...orphans }));
      }),
    ),
  );
}
