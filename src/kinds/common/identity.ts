/**
 * Identity of custom WAF rules and access lists (docs/design.md, Identity): a document pins a live object by
 * `id`, or finds it by its natural key in its Shield Zone (`ruleName`, list `name`), or — once
 * edgesync created or adopted it — by the inventory entry of its subject, so that a changed
 * key is a rename and not a create plus a delete. Pure: the listings are read elsewhere.
 */

/**
 * The kinds with a lifecycle (created, adopted and pruned): those whose `ResourceKind` has a
 * `lifecycle` part. The state's inventory schema is built from this list; a test keeps it equal
 * to the registry's kinds that have one.
 */
export const LIFECYCLE_KINDS = ['WafCustomRule', 'AccessList', 'ContainerApp'] as const;
export type LifecycleKind = (typeof LIFECYCLE_KINDS)[number];

/** A live object's id: numbers for Shield objects, strings for container apps. */
export type ObjectId = number | string;

/** An object edgesync owns: what the state's inventory holds per subject. */
export interface OwnedObject {
  readonly kind: LifecycleKind;
  /** The Shield Zone the object lives in; absent for objects of the whole account. */
  readonly shieldZoneId?: number | undefined;
  readonly id: ObjectId;
  /** The natural key when last written or seen: ruleName / list name. */
  readonly key: string;
}

/** A live object of a scope's listing as identity sees it. */
export interface KeyedObject<Id extends ObjectId = ObjectId> {
  readonly id: Id;
  readonly key: string;
}

/**
 * How a document found its live object: `id` (pinned by spec.id), `inventory` (what it created
 * or adopted before), `adopt` (its key matched an object it does not own yet), `create`
 * (nothing matched).
 */
export type Resolution<Id extends ObjectId = ObjectId> =
  | { readonly via: 'id' | 'inventory' | 'adopt'; readonly id: Id }
  | { readonly via: 'create' }
  | { readonly via: 'missing'; readonly message: string };

/**
 * A scope's live objects by id and by key, built once per listing: every document of the scope
 * is resolved against it, and a list searched per document would cost documents × objects
 * (2.5 million comparisons a run for 1,600 rules in one zone).
 */
export interface KeyedObjects<Id extends ObjectId = ObjectId> {
  readonly ids: ReadonlySet<Id>;
  /** Every id with that key, in listing order. */
  readonly byKey: ReadonlyMap<string, readonly Id[]>;
}

export function keyedObjects<Id extends ObjectId>(objects: Iterable<KeyedObject<Id>>): KeyedObjects<Id> {
  const ids = new Set<Id>();
  const byKey = new Map<string, Id[]>();
  for (const { id, key } of objects) {
    ids.add(id);
    const same = byKey.get(key);
    if (same === undefined) byKey.set(key, [id]);
    else same.push(id);
  }
  return { ids, byKey };
}

/** What a document resolved to, kept on its read and its planned change. */
export interface ObjectIdentity {
  readonly kind: LifecycleKind;
  /** The Shield Zone the object lives in; absent for objects of the whole account. */
  readonly shieldZoneId?: number | undefined;
  readonly via: 'id' | 'inventory' | 'adopt' | 'create';
  /** Absent for a create until the API answers with the new id. */
  readonly id?: ObjectId;
  /** The natural key the object has once the change is applied. */
  readonly key: string;
}

export interface ResolveInput<Id extends ObjectId = ObjectId> {
  readonly kind: LifecycleKind;
  /** The scope searched; absent for objects of the whole account. */
  readonly shieldZoneId?: number | undefined;
  readonly specId: Id | undefined;
  readonly key: string | undefined;
  /** The inventory entry of the document's subject, if any. */
  readonly owned: OwnedObject | undefined;
  /** Every live object of this kind in the scope (`keyedObjects`). */
  readonly live: KeyedObjects<Id>;
  /** How the kind names one object in messages: `custom WAF rule`, `custom access list`. */
  readonly noun: string;
  /** How messages name the scope searched: `Shield Zone 42`, `the account`. */
  readonly scopeName: string;
}

/** Finds the live object a document means; never guesses between two with one key. */
export function resolveIdentity<Id extends ObjectId>(input: ResolveInput<Id>): Resolution<Id> {
  const { specId, key, owned, live, noun, shieldZoneId, scopeName } = input;
  if (specId !== undefined) {
    return live.ids.has(specId)
      ? { via: 'id', id: specId }
      : { via: 'missing', message: `${noun} ${specId} is not in ${scopeName}` };
  }
  if (
    owned !== undefined &&
    owned.kind === input.kind &&
    owned.shieldZoneId === shieldZoneId &&
    live.ids.has(owned.id as Id)
  ) {
    return { via: 'inventory', id: owned.id as Id };
  }
  if (key === undefined) {
    return { via: 'missing', message: `the document has neither an id nor a name to find its ${noun} by` };
  }
  const matches = live.byKey.get(key) ?? [];
  if (matches.length === 0) return { via: 'create' };
  if (matches.length === 1) return { via: 'adopt', id: matches[0] as Id };
  return {
    via: 'missing',
    message: `${matches.length} live ${noun}s in ${scopeName} are named ${JSON.stringify(key)} (ids ${matches.join(', ')}): give the document an id, or rename or delete the others; nothing is sent`,
  };
}
