/**
 * Read phase: every kind reads the live objects of its desired resources in batches. Reads of
 * one reconcile share a memo (`once`), so AccessList and ManagedAccessList list a zone once,
 * and E7 is asked once for every app that uses `@optimal`.
 */
import type { ApiClient } from '../api/types.js';
import type { DesiredResource } from '../config/types.js';
import { toReconcileError } from '../errors.js';
import { readZoneAccessLists } from '../kinds/common/access-lists.js';
import type { LifecycleKind } from '../kinds/common/identity.js';
import type { LiveRead, ReadContext } from '../kinds/common/kind.js';
import { createReadContext, groupBy, type ReadContextOptions } from '../kinds/common/read.js';
import { type ContainerAppSpec, usesOptimalRegion } from '../kinds/container-app/spec.js';
import { KINDS } from '../kinds/registry.js';
import type { ShieldZoneSpec } from '../kinds/shield-zone/spec.js';
import { readZoneWafRules } from '../kinds/waf-custom-rule/index.js';
import type { InventoryView } from './inventory.js';
import type { OptimalRegion } from './types.js';

/** What the read phase needs: the options of its ReadContext, and the inventory. */
export interface ReadOptions extends ReadContextOptions {
  /**
   * Inventory entries that may be pruned (their document is gone): their zones are read even
   * when no document names them.
   */
  readonly orphans?: InventoryView;
}

/** A listing as the lifecycle step uses it: each object's id and natural key, or why it failed. */
export type ZoneListing =
  | { readonly items: readonly { id: number; key: string }[]; readonly limit?: number }
  | { readonly error: string };

/** What the lifecycle step (prune.ts) knows of a Shield Zone. */
export interface ZoneLive {
  rules?: ZoneListing;
  lists?: ZoneListing;
  /** The zone's plan and limits, read only when a rule is to be created there. */
  info?: { readonly planType?: number; readonly customWafRulesLimit?: number } | { readonly error: string };
}

export interface LiveSnapshot {
  readonly reads: ReadonlyMap<string, LiveRead<unknown>>;
  readonly optimalRegion: OptimalRegion | undefined;
  /** Shield Zones with custom rules or lists: listings, limits (for creates and pruning). */
  readonly zones: ReadonlyMap<number, ZoneLive>;
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

function failure(err: unknown): { error: string } {
  return { error: toReconcileError(err).message };
}

/**
 * The zone facts of the lifecycle: a listing of each zone and kind that has documents, inventory
 * entries or an exclusive ShieldZone (shared with the kinds' reads through `once`), and the
 * zone's limits where a rule is created. No extra request in a run that creates and prunes nothing
 * and whose zones are shared.
 */
async function readZones(
  resources: readonly DesiredResource[],
  reads: ReadonlyMap<string, LiveRead<unknown>>,
  ctx: ReadContext,
  inventory: InventoryView | undefined,
): Promise<Map<number, ZoneLive>> {
  const wanted = new Map<number, Set<LifecycleKind>>();
  const want = (zone: number, kind: LifecycleKind) =>
    wanted.set(zone, (wanted.get(zone) ?? new Set()).add(kind));
  for (const r of resources) {
    if (r.kind === 'WafCustomRule' || r.kind === 'AccessList')
      want((r.spec as { shieldZoneId: number }).shieldZoneId, r.kind);
    if (r.kind === 'ShieldZone') {
      const spec = r.spec as ShieldZoneSpec;
      if (spec.customWafRules === 'exclusive') want(spec.shieldZoneId, 'WafCustomRule');
      if (spec.customAccessLists === 'exclusive') want(spec.shieldZoneId, 'AccessList');
    }
  }
  for (const entry of inventory?.entries().values() ?? []) want(entry.shieldZoneId, entry.kind);
  const creatingRules = new Set<number>();
  for (const read of reads.values()) {
    if (read.identity?.via === 'create' && read.identity.kind === 'WafCustomRule')
      creatingRules.add(read.identity.shieldZoneId);
  }
  const zones = new Map<number, ZoneLive>();
  await Promise.all(
    [...wanted].map(async ([zoneId, kinds]) => {
      const zone: ZoneLive = {};
      zones.set(zoneId, zone);
      const tasks: Promise<void>[] = [];
      if (kinds.has('WafCustomRule')) {
        tasks.push(
          readZoneWafRules(zoneId, ctx).then(
            (rules) => {
              zone.rules = { items: rules.map((rule) => ({ id: rule.id, key: rule.ruleName ?? '' })) };
            },
            (err) => {
              zone.rules = failure(err);
            },
          ),
        );
      }
      if (kinds.has('AccessList')) {
        tasks.push(
          readZoneAccessLists(zoneId, ctx).then(
            (listing) => {
              const limit = listing.customListLimit ?? undefined;
              zone.lists = {
                items: (listing.customLists ?? []).map((l) => ({ id: l.listId, key: l.name ?? '' })),
                ...(limit === undefined ? {} : { limit }),
              };
            },
            (err) => {
              zone.lists = failure(err);
            },
          ),
        );
      }
      if (creatingRules.has(zoneId)) {
        tasks.push(
          ctx
            .once(`shield-zone:${zoneId}`, () =>
              ctx.limit(() => ctx.api.getShieldZone(zoneId, { signal: ctx.signal })),
            )
            .then(
              (info) => {
                zone.info = {
                  ...(info.planType == null ? {} : { planType: info.planType }),
                  ...(info.customWafRulesLimit == null
                    ? {}
                    : { customWafRulesLimit: info.customWafRulesLimit }),
                };
              },
              (err) => {
                zone.info = failure(err);
              },
            ),
        );
      }
      await Promise.all(tasks);
    }),
  );
  return zones;
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
  const zones = await readZones(resources, reads, ctx, options.orphans);
  return { reads, optimalRegion: await optimalRegion, zones };
}
