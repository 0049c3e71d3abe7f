/**
 * Identity of custom WAF rules and access lists (docs/design.md, Identity): a document pins a live object by
 * `id`, or finds it by its natural key in its Shield Zone (`ruleName`, list `name`), or — once
 * edgesync created or adopted it — by the inventory entry of its subject, so that a changed
 * key is a rename and not a create plus a delete. Pure: the listings are read elsewhere.
 */

/** The kinds with a lifecycle: created, adopted and pruned. */
export const LIFECYCLE_KINDS = ['WafCustomRule', 'AccessList'] as const;
export type LifecycleKind = (typeof LIFECYCLE_KINDS)[number];

/** An object edgesync owns: what the state's inventory holds per subject. */
export interface OwnedObject {
  readonly kind: LifecycleKind;
  readonly shieldZoneId: number;
  readonly id: number;
  /** The natural key when last written or seen: ruleName / list name. */
  readonly key: string;
}

/** A live object of a zone's listing as identity sees it. */
export interface KeyedObject {
  readonly id: number;
  readonly key: string;
}

/**
 * How a document found its live object: `id` (pinned by spec.id), `inventory` (what it created
 * or adopted before), `adopt` (its key matched an object it does not own yet), `create`
 * (nothing matched).
 */
export type Resolution =
  | { readonly via: 'id' | 'inventory' | 'adopt'; readonly id: number }
  | { readonly via: 'create' }
  | { readonly via: 'missing'; readonly message: string };

/** What a document resolved to, kept on its read and its planned change. */
export interface ObjectIdentity {
  readonly kind: LifecycleKind;
  readonly shieldZoneId: number;
  readonly via: 'id' | 'inventory' | 'adopt' | 'create';
  /** Absent for a create until the API answers with the new id. */
  readonly id?: number;
  /** The natural key the object has once the change is applied. */
  readonly key: string;
}

export interface ResolveInput {
  readonly kind: LifecycleKind;
  readonly shieldZoneId: number;
  readonly specId: number | undefined;
  readonly key: string | undefined;
  /** The inventory entry of the document's subject, if any. */
  readonly owned: OwnedObject | undefined;
  /** Every live object of this kind in the zone. */
  readonly live: readonly KeyedObject[];
  /** How the kind names one object in messages: `custom WAF rule`, `custom access list`. */
  readonly noun: string;
}

/** Finds the live object a document means; never guesses between two with one key. */
export function resolveIdentity(input: ResolveInput): Resolution {
  const { specId, key, owned, live, noun, shieldZoneId } = input;
  if (specId !== undefined) {
    return live.some((o) => o.id === specId)
      ? { via: 'id', id: specId }
      : { via: 'missing', message: `${noun} ${specId} is not in Shield Zone ${shieldZoneId}` };
  }
  if (
    owned !== undefined &&
    owned.kind === input.kind &&
    owned.shieldZoneId === shieldZoneId &&
    live.some((o) => o.id === owned.id)
  ) {
    return { via: 'inventory', id: owned.id };
  }
  if (key === undefined) {
    return { via: 'missing', message: `the document has neither an id nor a name to find its ${noun} by` };
  }
  const matches = live.filter((o) => o.key === key);
  if (matches.length === 0) return { via: 'create' };
  if (matches.length === 1) return { via: 'adopt', id: (matches[0] as KeyedObject).id };
  return {
    via: 'missing',
    message: `${matches.length} live ${noun}s in Shield Zone ${shieldZoneId} are named ${JSON.stringify(key)} (ids ${matches
      .map((o) => o.id)
      .join(', ')}): give the document an id, or rename or delete the others; nothing is sent`,
  };
}
