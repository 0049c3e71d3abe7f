/**
 * The lifecycle half of a plan (docs/design.md, Pruning), pure: once every document is planned,
 * this step checks what only a whole zone can tell — two documents claiming one object, a
 * rename onto a name another object has, the zone's limits for the creates — and finds what to
 * prune: inventory objects no document claims any more, and in `exclusive` zones every
 * unclaimed custom rule or list that no `ignore` pattern keeps. Deletions pass the guards here
 * (see docs/reconcile.md, Creates and deletes); refused ones are errors, and without `--prune`
 * they are notes, never changes.
 */
import type { LifecycleKind, ObjectId } from '../kinds/common/identity.js';
import type { ExclusiveScope } from '../kinds/common/kind.js';
import {
  type LiveObject,
  PRUNE_GUARD_MIN_OBJECTS,
  PRUNE_GUARD_PERCENT,
  type ScopeListing,
  type ScopeObjects,
} from '../kinds/common/lifecycle.js';
import { groupBy } from '../kinds/common/read.js';
import { KINDS, lifecycleOf } from '../kinds/registry.js';
import type { DesiredResource } from '../kinds/types.js';
import { type InventoryEntry, type InventoryView, movedFrom } from './inventory.js';
import { type ScopeLive, scopeKey } from './read.js';
import type { IgnoredObject, PlannedChange, PruneNote } from './types.js';

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

/** The scope's listing of that kind, when it was read. */
function listingOf(
  scopes: ReadonlyMap<string, ScopeLive>,
  kind: LifecycleKind,
  shieldZoneId: number | undefined,
): ScopeListing | undefined {
  return scopes.get(scopeKey(kind, shieldZoneId))?.listing;
}

const byId = new WeakMap<readonly LiveObject[], ReadonlyMap<ObjectId, LiveObject>>();

/**
 * The listing's object with this id. The listing is indexed once: every document of a zone
 * asks for its own object, and a search of the items each time grew with the square of the
 * zone's size (2,000 objects a zone at 100,000 resources).
 */
function itemOf(listing: ScopeObjects, id: ObjectId): LiveObject | undefined {
  let index = byId.get(listing.items);
  if (index === undefined) {
    const items = new Map<ObjectId, LiveObject>();
    // The first of two objects with one id, as a search would find it.
    for (const item of listing.items) if (!items.has(item.id)) items.set(item.id, item);
    index = items;
    byId.set(listing.items, index);
  }
  return index.get(id);
}

function refuse(change: PlannedChange, message: string): PlannedChange {
  return { ...change, action: 'error', requests: [], error: { code: 'PLAN_UNSAFE', message } };
}

/** Two documents that resolve to one live object: an error for both (docs/design.md, Safety invariants). */
function refuseSharedObjects(changes: PlannedChange[]): void {
  const identified = changes.flatMap((change, index) => (change.object?.id === undefined ? [] : [index]));
  const byObject = groupBy(identified, (i) => {
    const o = (changes[i] as PlannedChange).object;
    return `${scopeKey(o?.kind ?? '', o?.shieldZoneId)}/${o?.id}`;
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
 * A rename onto a name another live object of the scope already has would leave two objects
 * with one name (the API allows it; finding an object by name would then be ambiguous for
 * good): refused, nothing sent.
 */
function refuseRenamesOntoTakenNames(changes: PlannedChange[], scopes: ReadonlyMap<string, ScopeLive>): void {
  for (const [index, change] of changes.entries()) {
    const o = change.object;
    if (o === undefined || o.id === undefined || change.action === 'error') continue;
    if (o.via !== 'id' && o.via !== 'inventory') continue;
    const lifecycle = lifecycleOf(o.kind);
    const listing = listingOf(scopes, o.kind, o.shieldZoneId);
    if (lifecycle === undefined || listing === undefined || 'error' in listing) continue;
    const self = itemOf(listing, o.id);
    if (self === undefined || self.key === o.key) continue;
    const holders = listing.items.filter((item) => item.id !== o.id && item.key === o.key);
    if (holders.length === 0) continue;
    const where = lifecycle.scopeName(o.shieldZoneId);
    changes[index] = refuse(
      change,
      `renaming ${lifecycle.nouns.replace(/s$/, '')} #${o.id} from ${JSON.stringify(self.key)} to ${JSON.stringify(o.key)} would give ${where} two ${lifecycle.nouns} with that name: #${holders.map((h) => h.id).join(', #')} already has it; rename or delete that one first, or choose another name; nothing is sent`,
    );
  }
}

/** Creates that would pass the scope's limit are errors, with the limit in the message. */
function checkLimits(changes: PlannedChange[], scopes: ReadonlyMap<string, ScopeLive>): void {
  const creating = changes.flatMap((change, index) =>
    change.action !== 'create' || change.object === undefined || change.skip !== undefined ? [] : [index],
  );
  const creates = groupBy(creating, (i) => {
    const o = (changes[i] as PlannedChange).object;
    return scopeKey(o?.kind ?? '', o?.shieldZoneId);
  });
  for (const indexes of creates.values()) {
    const object = (changes[indexes[0] as number] as PlannedChange).object;
    if (object === undefined) continue;
    const scope = scopes.get(scopeKey(object.kind, object.shieldZoneId));
    const problem = lifecycleOf(object.kind)?.limitProblem?.({
      shieldZoneId: object.shieldZoneId,
      creating: indexes.length,
      listing: scope?.listing,
      limit: scope?.limit,
    });
    if (problem === undefined) continue;
    for (const i of indexes) changes[i] = refuse(changes[i] as PlannedChange, problem);
  }
}

interface Candidate {
  readonly kind: LifecycleKind;
  readonly shieldZoneId?: number | undefined;
  readonly id: ObjectId;
  readonly key: string;
  /** What deleting it destroys with it (an app's volumes). */
  readonly loses?: readonly string[];
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
    const lifecycle = lifecycleOf(resource.kind);
    if (lifecycle === undefined) continue;
    const { shieldZoneId, id, key } = lifecycle.locate(resource.spec);
    const zone = scopeKey(lifecycle.kind, shieldZoneId);
    if (id !== undefined) ids.add(`${zone}/${id}`);
    if (key !== undefined) keys.add(`${zone}/${key}`);
    const owned = options.inventory.entry(resource.subject);
    if (owned !== undefined) ids.add(`${scopeKey(owned.kind, owned.shieldZoneId)}/${owned.id}`);
  }
  let documents: Map<string, DesiredResource> | undefined;
  for (const change of changes) {
    const lifecycle = lifecycleOf(change.kind);
    if (lifecycle === undefined) continue;
    if (change.object?.id !== undefined)
      ids.add(`${scopeKey(change.kind, change.object.shieldZoneId)}/${change.object.id}`);
    else if (change.object === undefined) {
      // Its read failed: where its object would be is where the document says.
      documents ??= new Map(options.all.map((r) => [r.subject, r]));
      const resource = documents.get(change.subject);
      const shieldZoneId =
        resource === undefined ? change.shieldZoneId : lifecycle.locate(resource.spec).shieldZoneId;
      unknown.add(scopeKey(change.kind, shieldZoneId));
    }
  }
  return { ids, keys, unknown };
}

/** An exclusive scope of a full run, with the document that declares it. */
interface ExclusiveScopeOf extends ExclusiveScope {
  /** The declaring document (`ShieldZone/main`). */
  readonly declaredBy: string;
}

/** The exclusive scopes of a full run, by `scopeKey`. */
function exclusiveScopes(options: LifecycleOptions): Map<string, ExclusiveScopeOf> {
  const exclusive = new Map<string, ExclusiveScopeOf>();
  if (options.scope !== 'full') return exclusive;
  for (const r of options.all) {
    for (const scope of KINDS[r.kind].exclusiveScopes?.(r.spec) ?? [])
      exclusive.set(scopeKey(scope.kind, scope.shieldZoneId), { ...scope, declaredBy: r.subject });
  }
  return exclusive;
}

/** Prune candidates, the notes of what is not pruned, and what `ignore` keeps, before the guards. */
function findCandidates(
  changes: readonly PlannedChange[],
  scopes: ReadonlyMap<string, ScopeLive>,
  options: LifecycleOptions,
  exclusive: ReadonlyMap<string, ExclusiveScopeOf>,
): { candidates: Candidate[]; notes: PruneNote[]; gone: string[]; ignored: IgnoredObject[] } {
  const candidates: Candidate[] = [];
  const notes: PruneNote[] = [];
  const gone: string[] = [];
  const ignored: IgnoredObject[] = [];
  const claims = claimsOf(changes, options);
  const ownedBy = new Map<string, string>();
  for (const [subject, e] of options.inventory.entries())
    ownedBy.set(`${scopeKey(e.kind, e.shieldZoneId)}/${e.id}`, subject);
  /** Documents whose object is known this run (and not refused): a moved one's old object may go. */
  const placed = new Set(
    changes.filter((c) => c.object !== undefined && c.action !== 'error').map((c) => c.subject),
  );
  const taken = new Set<string>();
  const note = (c: Omit<Candidate, 'reason'>, reason: string) =>
    notes.push({
      kind: c.kind,
      ...(c.shieldZoneId === undefined ? {} : { shieldZoneId: c.shieldZoneId }),
      id: c.id,
      key: c.key,
      ...(c.subject === undefined ? {} : { subject: c.subject }),
      reason,
    });

  // Inventory: objects edgesync created or adopted whose document is gone.
  for (const [subject, entry] of orphanEntries(options)) {
    const zoneKey = scopeKey(entry.kind, entry.shieldZoneId);
    const listing = listingOf(scopes, entry.kind, entry.shieldZoneId);
    if (listing === undefined || 'error' in listing) continue;
    const live = itemOf(listing, entry.id);
    if (live === undefined) {
      // Read, and not there: deleted out of band. An untrusted inventory is not edited either.
      if (options.inventory.trusted) gone.push(subject);
      continue;
    }
    const found = located(entry.kind, entry.shieldZoneId, live, subject);
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
  // Exclusive scopes: every unclaimed object, inventory or not.
  for (const [zoneKey, { kind, shieldZoneId, ignoredBy, declaredBy }] of exclusive) {
    const listing = listingOf(scopes, kind, shieldZoneId);
    if (listing === undefined || 'error' in listing) continue;
    for (const live of listing.items) {
      const objectKey = `${zoneKey}/${live.id}`;
      if (taken.has(objectKey) || claims.ids.has(objectKey) || claims.keys.has(`${zoneKey}/${live.key}`))
        continue;
      const pattern = ignoredBy(live.key);
      if (pattern !== undefined) {
        ignored.push({
          kind,
          ...(shieldZoneId === undefined ? {} : { shieldZoneId }),
          id: live.id,
          key: live.key,
          glob: pattern,
          shieldZone: declaredBy,
        });
        continue;
      }
      const found = located(kind, shieldZoneId, live, ownedBy.get(objectKey));
      if (claims.unknown.has(zoneKey)) note(found, 'not pruned: a document of this zone could not be read');
      else candidates.push({ ...found, reason: 'exclusive' });
    }
  }
  return { candidates, notes, gone, ignored };
}

/** A live object of a listing as a prune candidate (before its reason). */
function located(
  kind: LifecycleKind,
  shieldZoneId: number | undefined,
  live: LiveObject,
  subject: string | undefined,
): Omit<Candidate, 'reason'> {
  return {
    kind,
    ...(shieldZoneId === undefined ? {} : { shieldZoneId }),
    id: live.id,
    key: live.key,
    ...(live.loses === undefined ? {} : { loses: live.loses }),
    ...(subject === undefined ? {} : { subject }),
  };
}

function deleteChange(c: Candidate): PlannedChange {
  const subject = c.subject ?? `${c.kind}/#${c.id}`;
  const lifecycle = KINDS[c.kind].lifecycle;
  if (lifecycle === undefined) throw new Error(`${c.kind} has no lifecycle`);
  const live = { id: c.id, key: c.key, ...(c.loses === undefined ? {} : { loses: c.loses }) };
  return {
    subject,
    kind: c.kind,
    name: subject.slice(subject.indexOf('/') + 1),
    // A pruned object has no document.
    source: { file: '', line: 0, col: 0 },
    action: 'delete',
    cause: 'desired-changed',
    diffs: [
      { path: lifecycle.keyPath, live: c.key, desired: undefined },
      ...(lifecycle.deleteDiffs?.(live) ?? []),
    ],
    requests: [lifecycle.deleteRequest(c.shieldZoneId, c.id)],
    digest: '',
    ...(c.shieldZoneId === undefined ? {} : { shieldZoneId: c.shieldZoneId }),
    object: {
      kind: c.kind,
      ...(c.shieldZoneId === undefined ? {} : { shieldZoneId: c.shieldZoneId }),
      via: 'id',
      id: c.id,
      key: c.key,
    },
    prune: c.reason,
  };
}

/**
 * What edgesync manages, by id per `scopeKey`: the inventory's objects (those still live where
 * the scope was read), every live object of an exclusive scope that no `ignore` pattern keeps,
 * and the objects the documents resolve to. The guards count shares of this, not only of the
 * scope's live objects: objects edgesync never owned must not make deleting every managed one
 * look small.
 */
function managedOf(
  changes: readonly PlannedChange[],
  scopes: ReadonlyMap<string, ScopeLive>,
  options: LifecycleOptions,
  exclusive: ReadonlyMap<string, ExclusiveScopeOf>,
): Map<string, Set<ObjectId>> {
  const managed = new Map<string, Set<ObjectId>>();
  const add = (key: string, id: ObjectId) => managed.set(key, (managed.get(key) ?? new Set()).add(id));
  for (const entry of options.inventory.entries().values()) {
    const listing = listingOf(scopes, entry.kind, entry.shieldZoneId);
    // Not read this run: counted. Read and absent: deleted out of band, not counted.
    const read = listing !== undefined && !('error' in listing);
    if (read && itemOf(listing, entry.id) === undefined) continue;
    add(scopeKey(entry.kind, entry.shieldZoneId), entry.id);
  }
  for (const [key, scope] of exclusive) {
    const listing = listingOf(scopes, scope.kind, scope.shieldZoneId);
    if (listing === undefined || 'error' in listing) continue;
    for (const live of listing.items) if (scope.ignoredBy(live.key) === undefined) add(key, live.id);
  }
  for (const change of changes) {
    const o = change.object;
    if (o?.id !== undefined && lifecycleOf(o.kind) !== undefined) add(scopeKey(o.kind, o.shieldZoneId), o.id);
  }
  return managed;
}

/**
 * The deletions each guard refuses without --force, with why: each kind's own guard per scope
 * (it sees the scope's live and managed counts), then the share of everything edgesync manages.
 */
function guardProblems(
  candidates: readonly Candidate[],
  scopes: ReadonlyMap<string, ScopeLive>,
  managed: ReadonlyMap<string, ReadonlySet<ObjectId>>,
): Map<Candidate, string> {
  const problems = new Map<Candidate, string>();
  for (const [key, group] of groupBy(candidates, (c) => scopeKey(c.kind, c.shieldZoneId))) {
    const first = group[0] as Candidate;
    const listing = listingOf(scopes, first.kind, first.shieldZoneId);
    const live = listing === undefined || 'error' in listing ? group.length : listing.items.length;
    const problem = lifecycleOf(first.kind)?.deletionGuard({
      shieldZoneId: first.shieldZoneId,
      deleting: group.map((c) => ({
        id: c.id,
        key: c.key,
        ...(c.loses === undefined ? {} : { loses: c.loses }),
      })),
      live,
      managed: managed.get(key)?.size ?? 0,
    });
    if (problem !== undefined) for (const c of group) problems.set(c, problem);
  }
  let total = 0;
  for (const ids of managed.values()) total += ids.size;
  const deletes = candidates.length;
  if (total >= PRUNE_GUARD_MIN_OBJECTS && deletes * 100 > total * PRUNE_GUARD_PERCENT) {
    const problem = `the plan deletes ${deletes} of the ${total} objects edgesync manages in all zones (${Math.round((deletes * 100) / total)}%), more than ${PRUNE_GUARD_PERCENT}%; re-run with --force if this is intended`;
    for (const c of candidates) if (!problems.has(c)) problems.set(c, problem);
  }
  return problems;
}

/**
 * Adds the lifecycle to planned changes: shared-object, rename and limit errors on the
 * documents' changes, then the deletions (with --prune) or the notes of what would be pruned,
 * and what `ignore` patterns keep.
 */
export function planLifecycle(
  planned: readonly PlannedChange[],
  scopes: ReadonlyMap<string, ScopeLive>,
  options: LifecycleOptions,
): { changes: PlannedChange[]; notPruned: PruneNote[]; gone: string[]; ignored: IgnoredObject[] } {
  const changes = [...planned];
  refuseSharedObjects(changes);
  refuseRenamesOntoTakenNames(changes, scopes);
  checkLimits(changes, scopes);
  // An empty desired state never prunes: it is far more likely a broken checkout than a wish.
  if (options.all.length === 0) return { changes, notPruned: [], gone: [], ignored: [] };
  const exclusive = exclusiveScopes(options);
  const { candidates, notes, gone, ignored } = findCandidates(changes, scopes, options, exclusive);
  const problems = guardProblems(candidates, scopes, managedOf(changes, scopes, options, exclusive));
  if (!options.prune) {
    for (const c of candidates) {
      const { loses: _loses, reason: _reason, ...rest } = c;
      const refused = options.force ? undefined : problems.get(c);
      notes.push(
        refused === undefined
          ? { ...rest, reason: 'not pruned: --prune is off', withPrune: 'delete' }
          : {
              ...rest,
              reason: `not pruned: --prune is off (with --prune it would be refused too: ${refused})`,
              withPrune: 'refused',
              guard: refused,
            },
      );
    }
    return { changes, notPruned: notes, gone, ignored };
  }
  const deletes = candidates.map((c) => {
    const problem = problems.get(c);
    return problem === undefined || options.force ? deleteChange(c) : refuse(deleteChange(c), problem);
  });
  return { changes: [...changes, ...deletes], notPruned: notes, gone, ignored };
}
