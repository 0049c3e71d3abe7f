/**
 * The lifecycle half of a plan (docs/design.md, Pruning), pure: once every document is planned, this step
 * checks what only a whole zone can tell — two documents claiming one object, the zone's
 * limits for the creates — and finds what to prune: inventory objects no document claims
 * any more, and in `exclusive` zones every unclaimed custom rule or list. Deletions pass the
 * guards here (30 % of a zone, emptying a zone, unreadable state); refused ones are errors,
 * and without `--prune` they are notes, never changes.
 */
import type { LifecycleKind, ObjectId } from '../kinds/common/identity.js';
import type { LiveObject, ScopeListing } from '../kinds/common/lifecycle.js';
import { groupBy } from '../kinds/common/read.js';
import { KINDS, lifecycleOf } from '../kinds/registry.js';
import type { DesiredResource } from '../kinds/types.js';
import { type InventoryEntry, type InventoryView, movedFrom } from './inventory.js';
import { type ScopeLive, scopeKey } from './read.js';
import type { PlannedChange, PruneNote } from './types.js';

export { PRUNE_GUARD_MIN_OBJECTS, PRUNE_GUARD_PERCENT } from '../kinds/common/lifecycle.js';

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

/** The scope's listing of that kind, when it was read. */
function listingOf(
  scopes: ReadonlyMap<string, ScopeLive>,
  kind: LifecycleKind,
  shieldZoneId: number | undefined,
): ScopeListing | undefined {
  return scopes.get(scopeKey(kind, shieldZoneId))?.listing;
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

/** Prune candidates and the notes of what is not pruned, before the guards. */
function findCandidates(
  changes: readonly PlannedChange[],
  scopes: ReadonlyMap<string, ScopeLive>,
  options: LifecycleOptions,
): { candidates: Candidate[]; notes: PruneNote[]; gone: string[] } {
  const candidates: Candidate[] = [];
  const notes: PruneNote[] = [];
  const gone: string[] = [];
  const claims = claimsOf(changes, options);
  const exclusive = new Map<
    string,
    { kind: LifecycleKind; shieldZoneId?: number | undefined; ignored(key: string): boolean }
  >();
  if (options.scope === 'full') {
    for (const r of options.all) {
      for (const scope of KINDS[r.kind].exclusiveScopes?.(r.spec) ?? [])
        exclusive.set(scopeKey(scope.kind, scope.shieldZoneId), scope);
    }
  }
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
    const live = listing.items.find((o) => o.id === entry.id);
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
  for (const [zoneKey, { kind, shieldZoneId, ignored }] of exclusive) {
    const listing = listingOf(scopes, kind, shieldZoneId);
    if (listing === undefined || 'error' in listing) continue;
    for (const live of listing.items) {
      const objectKey = `${zoneKey}/${live.id}`;
      if (taken.has(objectKey) || claims.ids.has(objectKey) || claims.keys.has(`${zoneKey}/${live.key}`))
        continue;
      if (ignored(live.key)) continue;
      const found = located(kind, shieldZoneId, live, ownedBy.get(objectKey));
      if (claims.unknown.has(zoneKey)) note(found, 'not pruned: a document of this zone could not be read');
      else candidates.push({ ...found, reason: 'exclusive' });
    }
  }
  return { candidates, notes, gone };
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

/** Each kind's deletion guard, per scope: refused deletions become errors unless --force. */
function guard(
  candidates: readonly Candidate[],
  scopes: ReadonlyMap<string, ScopeLive>,
  force: boolean,
): PlannedChange[] {
  const groups = groupBy(candidates, (c) => scopeKey(c.kind, c.shieldZoneId));
  const out: PlannedChange[] = [];
  for (const group of groups.values()) {
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
    });
    for (const c of group) {
      const change = deleteChange(c);
      out.push(problem === undefined || force ? change : refuse(change, problem));
    }
  }
  return out;
}

/**
 * Adds the lifecycle to planned changes: shared-object and limit errors on the documents'
 * changes, then the deletions (with --prune) or the notes of what would be pruned.
 */
export function planLifecycle(
  planned: readonly PlannedChange[],
  scopes: ReadonlyMap<string, ScopeLive>,
  options: LifecycleOptions,
): { changes: PlannedChange[]; notPruned: PruneNote[]; gone: string[] } {
  const changes = [...planned];
  refuseSharedObjects(changes);
  checkLimits(changes, scopes);
  // An empty desired state never prunes: it is far more likely a broken checkout than a wish.
  if (options.all.length === 0) return { changes, notPruned: [], gone: [] };
  const { candidates, notes, gone } = findCandidates(changes, scopes, options);
  if (!options.prune) {
    for (const c of candidates) {
      const { loses: _loses, reason: _reason, ...rest } = c;
      notes.push({ ...rest, reason: 'not pruned: --prune is off' });
    }
    return { changes, notPruned: notes, gone };
  }
  return { changes: [...changes, ...guard(candidates, scopes, options.force)], notPruned: notes, gone };
}

export type { Mutable };
