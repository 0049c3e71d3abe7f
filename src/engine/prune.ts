/**
 * The lifecycle half of a plan (docs/configuration.md, Identity: create, adopt and prune), pure: once every document is planned, this step
 * checks what only a whole zone can tell — two documents claiming one object, a rename onto a
 * name another object has, the zone's limits for the creates — and finds what to prune:
 * inventory objects no document claims any more, and in `exclusive` zones every unclaimed
 * custom rule or list that no `ignore` glob protects. Deletions pass the guards here (see
 * docs/reconcile.md, Creates and deletes); refused ones are errors, and without `--prune` they
 * are notes, never changes.
 */
import { writeRequests } from '../api/operations.js';
import { enumName, ShieldPlanType } from '../domain/enums.js';
import type { LifecycleKind } from '../kinds/common/identity.js';
import { groupBy } from '../kinds/common/read.js';
import { ignoreMatcher, type ShieldZoneSpec } from '../kinds/shield-zone/spec.js';
import type { DesiredResource } from '../kinds/types.js';
import { type InventoryEntry, type InventoryView, isLifecycleKind, movedFrom } from './inventory.js';
import type { ZoneListing, ZoneLive } from './read.js';
import type { IgnoredObject, PlannedChange, PruneNote } from './types.js';

/**
 * A set (a zone's live custom rules or lists, what edgesync manages in a zone, or in all) of at
 * least this many is guarded by the share below.
 */
export const PRUNE_GUARD_MIN_OBJECTS = 3;
/** Deleting more than this share of such a set needs --force. */
export const PRUNE_GUARD_PERCENT = 30;

export interface LifecycleOptions {
  /** `--prune`: delete what no document claims. Off: the candidates are listed as notes. */
  readonly prune: boolean;
  readonly force: boolean;
  readonly inventory: InventoryView;
  /** Every desired resource (a daemon's file-change run plans a subset, but claims are global). */
  readonly all: readonly DesiredResource[];
  /**
   * Which inventory subjects may be pruned: every one (a full run), or only these removed
   * documents (a file-change run; exclusive zones are pruned by full runs only).
   */
  readonly scope: 'full' | ReadonlySet<string>;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const NOUN: Record<LifecycleKind, string> = {
  WafCustomRule: 'custom WAF rules',
  AccessList: 'custom access lists',
};

/** The zone's listing of that kind, when it was read. */
function listingOf(
  zones: ReadonlyMap<number, ZoneLive>,
  kind: LifecycleKind,
  zoneId: number,
): ZoneListing | undefined {
  return zones.get(zoneId)?.[kind === 'WafCustomRule' ? 'rules' : 'lists'];
}

function refuse(change: PlannedChange, message: string): PlannedChange {
  return { ...change, action: 'error', requests: [], error: { code: 'PLAN_UNSAFE', message } };
}

/** Two documents that resolve to one live object: an error for both (docs/reconcile.md, Creates and deletes). */
function refuseSharedObjects(changes: PlannedChange[]): void {
  const identified = changes.flatMap((change, index) => (change.object?.id === undefined ? [] : [index]));
  const byObject = groupBy(identified, (i) => {
    const o = (changes[i] as PlannedChange).object;
    return `${o?.kind}/${o?.shieldZoneId}/${o?.id}`;
  });
  for (const indexes of byObject.values()) {
    if (indexes.length < 2) continue;
    const subjects = indexes.map((i) => (changes[i] as PlannedChange).subject);
    for (const i of indexes) {
      const change = changes[i] as PlannedChange;
      const others = subjects.filter((s) => s !== change.subject).join(', ');
      changes[i] = refuse(
        change,
        `resolves to the same live object #${change.object?.id} as ${others}; nothing is sent`,
      );
    }
  }
}

/**
 * A rename onto a name another live object of the zone already has would leave two objects with
 * one name (the API allows it; identity by name would then be ambiguous for good): refused.
 */
function refuseRenamesOntoTakenNames(changes: PlannedChange[], zones: ReadonlyMap<number, ZoneLive>): void {
  for (const [index, change] of changes.entries()) {
    const o = change.object;
    if (o === undefined || o.id === undefined || change.action === 'error') continue;
    if (o.via !== 'id' && o.via !== 'inventory') continue;
    const listing = listingOf(zones, o.kind, o.shieldZoneId);
    if (listing === undefined || 'error' in listing || o.key === undefined) continue;
    const self = listing.items.find((item) => item.id === o.id);
    if (self === undefined || self.key === o.key) continue;
    const holders = listing.items.filter((item) => item.id !== o.id && item.key === o.key);
    if (holders.length === 0) continue;
    const noun = NOUN[o.kind].replace(/s$/, '');
    changes[index] = refuse(
      change,
      `renaming ${noun} #${o.id} from ${JSON.stringify(self.key)} to ${JSON.stringify(o.key)} would give Shield Zone ${o.shieldZoneId} two ${NOUN[o.kind]} with that name: #${holders.map((h) => h.id).join(', #')} already has it; rename or delete that one first, or choose another name; nothing is sent`,
    );
  }
}

/** Creates that would pass the zone's limit are errors, with the limit in the message. */
function checkLimits(changes: PlannedChange[], zones: ReadonlyMap<number, ZoneLive>): void {
  const creating = changes.flatMap((change, index) =>
    change.action !== 'create' || change.object === undefined || change.skip !== undefined ? [] : [index],
  );
  const creates = groupBy(creating, (i) => {
    const o = (changes[i] as PlannedChange).object;
    return `${o?.kind}/${o?.shieldZoneId}`;
  });
  for (const [key, indexes] of creates) {
    const [kind, zoneText] = key.split('/') as [LifecycleKind, string];
    const zoneId = Number(zoneText);
    const problem = limitProblem(kind, zoneId, indexes.length, zones.get(zoneId));
    if (problem === undefined) continue;
    for (const i of indexes) changes[i] = refuse(changes[i] as PlannedChange, problem);
  }
}

function limitProblem(
  kind: LifecycleKind,
  zoneId: number,
  creating: number,
  zone: ZoneLive | undefined,
): string | undefined {
  if (kind === 'WafCustomRule') {
    const info = zone?.info;
    if (info === undefined || 'error' in info) {
      return `cannot check Shield Zone ${zoneId}'s custom rule limit: ${info && 'error' in info ? info.error : 'not read'}`;
    }
    const live = zone?.rules !== undefined && !('error' in zone.rules) ? zone.rules.items.length : 0;
    const limit = info.customWafRulesLimit;
    if (limit === undefined || live + creating <= limit) return undefined;
    const plan = info.planType === undefined ? '' : ` (${enumName(ShieldPlanType, info.planType)} plan)`;
    return `Shield Zone ${zoneId}${plan} allows ${limit} custom WAF rules (customWafRulesLimit) and has ${live}: creating ${creating} more would pass it`;
  }
  const lists = zone?.lists;
  if (lists === undefined || 'error' in lists || lists.limit === undefined) return undefined;
  if (lists.items.length + creating <= lists.limit) return undefined;
  return `Shield Zone ${zoneId} allows ${lists.limit} custom access lists (customListLimit) and has ${lists.items.length}: creating ${creating} more would pass it`;
}

interface Candidate {
  readonly kind: LifecycleKind;
  readonly shieldZoneId: number;
  readonly id: number;
  readonly key: string;
  readonly subject?: string;
  readonly reason: 'inventory' | 'exclusive';
}

/**
 * The inventory entries this run may prune: no document has their subject, and they are in
 * scope. The read phase reads their zones (reconcile.ts), the prune step judges them.
 */
export function orphanEntries(options: LifecycleOptions): [string, InventoryEntry][] {
  const desired = new Set(options.all.map((r) => r.subject));
  const { scope } = options;
  return [...options.inventory.entries()].filter(
    ([subject]) => !desired.has(subject) && (scope === 'full' || scope.has(subject)),
  );
}

/** The ids and keys the desired documents claim, per `kind/zone`. */
function claimsOf(changes: readonly PlannedChange[], options: LifecycleOptions) {
  const ids = new Set<string>();
  const keys = new Set<string>();
  /** `kind/zone` where some document's object is unknown (its read failed): nothing is pruned there. */
  const unknown = new Set<string>();
  for (const resource of options.all) {
    if (!isLifecycleKind(resource.kind)) continue;
    const spec = resource.spec as { shieldZoneId: number; id?: number; ruleName?: string; name?: string };
    const zone = `${resource.kind}/${spec.shieldZoneId}`;
    if (spec.id !== undefined) ids.add(`${zone}/${spec.id}`);
    const key = resource.kind === 'WafCustomRule' ? spec.ruleName : spec.name;
    if (key !== undefined) keys.add(`${zone}/${key}`);
    const owned = options.inventory.entry(resource.subject);
    if (owned !== undefined) ids.add(`${owned.kind}/${owned.shieldZoneId}/${owned.id}`);
  }
  for (const change of changes) {
    if (!isLifecycleKind(change.kind)) continue;
    if (change.object?.id !== undefined)
      ids.add(`${change.kind}/${change.object.shieldZoneId}/${change.object.id}`);
    else if (change.object === undefined && change.shieldZoneId !== undefined)
      unknown.add(`${change.kind}/${change.shieldZoneId}`);
  }
  return { ids, keys, unknown };
}

/** An exclusive zone and kind: its ShieldZone document and what its `ignore` globs protect. */
interface ExclusiveZone {
  readonly subject: string;
  readonly ignoredBy: (name: string) => string | undefined;
}

/** The exclusive zones of a full run, by `kind/zone`. */
function exclusiveZones(options: LifecycleOptions): Map<string, ExclusiveZone> {
  const exclusive = new Map<string, ExclusiveZone>();
  if (options.scope !== 'full') return exclusive;
  for (const r of options.all) {
    if (r.kind !== 'ShieldZone') continue;
    const spec = r.spec as ShieldZoneSpec;
    const zone = { subject: r.subject, ignoredBy: ignoreMatcher(spec) };
    if (spec.customWafRules === 'exclusive') exclusive.set(`WafCustomRule/${spec.shieldZoneId}`, zone);
    if (spec.customAccessLists === 'exclusive') exclusive.set(`AccessList/${spec.shieldZoneId}`, zone);
  }
  return exclusive;
}

/** Prune candidates, the notes of what is not pruned, and what `ignore` protects, before the guards. */
function findCandidates(
  changes: readonly PlannedChange[],
  zones: ReadonlyMap<number, ZoneLive>,
  options: LifecycleOptions,
  exclusive: ReadonlyMap<string, ExclusiveZone>,
): { candidates: Candidate[]; notes: PruneNote[]; gone: string[]; ignored: IgnoredObject[] } {
  const candidates: Candidate[] = [];
  const notes: PruneNote[] = [];
  const gone: string[] = [];
  const ignored: IgnoredObject[] = [];
  const claims = claimsOf(changes, options);
  const ownedBy = new Map<string, string>();
  for (const [subject, e] of options.inventory.entries())
    ownedBy.set(`${e.kind}/${e.shieldZoneId}/${e.id}`, subject);
  /** Documents whose object is known this run (and not refused): a moved one's old object may go. */
  const placed = new Set(
    changes.filter((c) => c.object !== undefined && c.action !== 'error').map((c) => c.subject),
  );
  const taken = new Set<string>();
  const note = (c: Omit<Candidate, 'reason'>, reason: string) =>
    notes.push({ ...c, ...(c.subject === undefined ? {} : { subject: c.subject }), reason });

  // Inventory: objects edgesync created or adopted whose document is gone.
  for (const [subject, entry] of orphanEntries(options)) {
    const zoneKey = `${entry.kind}/${entry.shieldZoneId}`;
    const listing = listingOf(zones, entry.kind, entry.shieldZoneId);
    if (listing === undefined || 'error' in listing) continue;
    const live = listing.items.find((o) => o.id === entry.id);
    if (live === undefined) {
      // Read, and not there: deleted out of band. An untrusted inventory is not edited either.
      if (options.inventory.trusted) gone.push(subject);
      continue;
    }
    const found = {
      kind: entry.kind,
      shieldZoneId: entry.shieldZoneId,
      id: entry.id,
      key: live.key,
      subject,
    };
    if (claims.ids.has(`${zoneKey}/${entry.id}`) || claims.keys.has(`${zoneKey}/${live.key}`)) continue;
    taken.add(`${zoneKey}/${entry.id}`);
    const document = movedFrom(subject);
    if (!options.inventory.trusted) note(found, 'not pruned: the state could not be read this run');
    else if (document !== undefined && !placed.has(document))
      note(found, `not pruned: ${document} moved to another zone, where its object is not known yet`);
    else if (live.key !== entry.key)
      note(found, `not pruned: renamed since edgesync wrote it (${JSON.stringify(entry.key)} then)`);
    else if (claims.unknown.has(zoneKey))
      note(found, 'not pruned: a document of this zone could not be read');
    else candidates.push({ ...found, reason: 'inventory' });
  }
  // Exclusive zones: every unclaimed object, inventory or not.
  for (const [zoneKey, zone] of exclusive) {
    const [kind, zoneText] = zoneKey.split('/') as [LifecycleKind, string];
    const zoneId = Number(zoneText);
    const listing = listingOf(zones, kind, zoneId);
    if (listing === undefined || 'error' in listing) continue;
    for (const live of listing.items) {
      const objectKey = `${zoneKey}/${live.id}`;
      if (taken.has(objectKey) || claims.ids.has(objectKey) || claims.keys.has(`${zoneKey}/${live.key}`))
        continue;
      const glob = zone.ignoredBy(live.key);
      const subject = ownedBy.get(objectKey);
      if (glob !== undefined) {
        ignored.push({
          kind,
          shieldZoneId: zoneId,
          id: live.id,
          key: live.key,
          glob,
          shieldZone: zone.subject,
        });
        continue;
      }
      const found = {
        kind,
        shieldZoneId: zoneId,
        id: live.id,
        key: live.key,
        ...(subject === undefined ? {} : { subject }),
      };
      if (claims.unknown.has(zoneKey)) note(found, 'not pruned: a document of this zone could not be read');
      else candidates.push({ ...found, reason: 'exclusive' });
    }
  }
  return { candidates, notes, gone, ignored };
}

function deleteChange(c: Candidate): PlannedChange {
  const subject = c.subject ?? `${c.kind}/#${c.id}`;
  return {
    subject,
    kind: c.kind,
    name: subject.slice(subject.indexOf('/') + 1),
    // A pruned object has no document.
    source: { file: '', line: 0, col: 0 },
    action: 'delete',
    cause: 'desired-changed',
    diffs: [{ path: c.kind === 'WafCustomRule' ? 'ruleName' : 'name', live: c.key, desired: undefined }],
    requests: [
      c.kind === 'WafCustomRule'
        ? writeRequests.deleteCustomWafRule(c.id)
        : writeRequests.deleteCustomAccessList(c.shieldZoneId, c.id),
    ],
    digest: '',
    shieldZoneId: c.shieldZoneId,
    object: { kind: c.kind, shieldZoneId: c.shieldZoneId, via: 'id', id: c.id, key: c.key },
    prune: c.reason,
  };
}

/**
 * What edgesync manages, by id per `kind/zone`: the inventory's objects (those still live where
 * the zone was read), every live object of an exclusive zone that no `ignore` glob protects,
 * and the objects the documents resolve to. The guards count shares of this, not of the zone's
 * live objects: rules edgesync never owned must not make deleting every managed one look small.
 */
function managedOf(
  changes: readonly PlannedChange[],
  zones: ReadonlyMap<number, ZoneLive>,
  options: LifecycleOptions,
  exclusive: ReadonlyMap<string, ExclusiveZone>,
): Map<string, Set<number>> {
  const managed = new Map<string, Set<number>>();
  const add = (zoneKey: string, id: number) =>
    managed.set(zoneKey, (managed.get(zoneKey) ?? new Set()).add(id));
  for (const entry of options.inventory.entries().values()) {
    const listing = listingOf(zones, entry.kind, entry.shieldZoneId);
    // Not read this run: counted as managed. Read and absent: deleted out of band, not counted.
    if (listing !== undefined && !('error' in listing) && !listing.items.some((o) => o.id === entry.id))
      continue;
    add(`${entry.kind}/${entry.shieldZoneId}`, entry.id);
  }
  for (const [zoneKey, zone] of exclusive) {
    const [kind, zoneText] = zoneKey.split('/') as [LifecycleKind, string];
    const listing = listingOf(zones, kind, Number(zoneText));
    if (listing === undefined || 'error' in listing) continue;
    for (const live of listing.items) if (zone.ignoredBy(live.key) === undefined) add(zoneKey, live.id);
  }
  for (const change of changes) {
    const o = change.object;
    if (o?.id !== undefined) add(`${o.kind}/${o.shieldZoneId}`, o.id);
  }
  return managed;
}

const percentOf = (part: number, whole: number) => Math.round((part * 100) / whole);
const tooMany = (deletes: number, of: number) =>
  of >= PRUNE_GUARD_MIN_OBJECTS && deletes * 100 > of * PRUNE_GUARD_PERCENT;

/** Why deleting `group` (one kind in one zone) needs --force, if it does. */
function zoneProblem(group: readonly Candidate[], live: number, managed: number): string | undefined {
  const first = group[0] as Candidate;
  const deletes = group.length;
  const noun = NOUN[first.kind];
  const zone = `Shield Zone ${first.shieldZoneId}`;
  const again = 're-run with --force if this is intended';
  if (deletes === live) return `the plan deletes every one of the ${live} ${noun} of ${zone}; ${again}`;
  if (tooMany(deletes, managed)) {
    return `the plan deletes ${deletes} of the ${managed} ${noun} edgesync manages in ${zone} (${percentOf(deletes, managed)}%), more than ${PRUNE_GUARD_PERCENT}%; ${again}`;
  }
  if (tooMany(deletes, live)) {
    return `the plan deletes ${deletes} of the ${live} ${noun} of ${zone} (${percentOf(deletes, live)}%), more than ${PRUNE_GUARD_PERCENT}%; ${again}`;
  }
  return undefined;
}

/**
 * The guards, per zone and kind (share of what edgesync manages there, share of the zone's live
 * objects, emptying the zone) and over everything edgesync manages: the deletions each one
 * refuses, by candidate, with why. Empty with --force.
 */
function guardProblems(
  candidates: readonly Candidate[],
  zones: ReadonlyMap<number, ZoneLive>,
  managed: ReadonlyMap<string, ReadonlySet<number>>,
): Map<Candidate, string> {
  const problems = new Map<Candidate, string>();
  for (const [zoneKey, group] of groupBy(candidates, (c) => `${c.kind}/${c.shieldZoneId}`)) {
    const first = group[0] as Candidate;
    const listing = listingOf(zones, first.kind, first.shieldZoneId);
    const live = listing === undefined || 'error' in listing ? group.length : listing.items.length;
    const problem = zoneProblem(group, live, managed.get(zoneKey)?.size ?? 0);
    if (problem !== undefined) for (const c of group) problems.set(c, problem);
  }
  let total = 0;
  for (const ids of managed.values()) total += ids.size;
  if (tooMany(candidates.length, total)) {
    const problem = `the plan deletes ${candidates.length} of the ${total} custom WAF rules and access lists edgesync manages (${percentOf(candidates.length, total)}%), more than ${PRUNE_GUARD_PERCENT}%; re-run with --force if this is intended`;
    for (const c of candidates) if (!problems.has(c)) problems.set(c, problem);
  }
  return problems;
}

/**
 * Adds the lifecycle to planned changes: shared-object, rename and limit errors on the
 * documents' changes, then the deletions (with --prune) or the notes of what would be pruned,
 * and what `ignore` globs protect.
 */
export function planLifecycle(
  planned: readonly PlannedChange[],
  zones: ReadonlyMap<number, ZoneLive>,
  options: LifecycleOptions,
): { changes: PlannedChange[]; notPruned: PruneNote[]; gone: string[]; ignored: IgnoredObject[] } {
  const changes = [...planned];
  refuseSharedObjects(changes);
  refuseRenamesOntoTakenNames(changes, zones);
  checkLimits(changes, zones);
  // An empty desired state never prunes: it is far more likely a broken checkout than a wish.
  if (options.all.length === 0) return { changes, notPruned: [], gone: [], ignored: [] };
  const exclusive = exclusiveZones(options);
  const { candidates, notes, gone, ignored } = findCandidates(changes, zones, options, exclusive);
  const problems = guardProblems(candidates, zones, managedOf(changes, zones, options, exclusive));
  if (!options.prune) {
    for (const c of candidates) {
      const refused = options.force ? undefined : problems.get(c);
      const reason =
        refused === undefined
          ? 'not pruned: --prune is off'
          : `not pruned: --prune is off (with --prune it would be refused too: ${refused})`;
      notes.push({
        ...c,
        reason,
        ...(refused === undefined
          ? { withPrune: 'delete' as const }
          : { withPrune: 'refused' as const, guard: refused }),
      });
    }
    return { changes, notPruned: notes, gone, ignored };
  }
  const deletes = candidates.map((c) => {
    const problem = problems.get(c);
    return problem === undefined || options.force ? deleteChange(c) : refuse(deleteChange(c), problem);
  });
  return { changes: [...changes, ...deletes], notPruned: notes, gone, ignored };
}

export type { Mutable };
