/**
 * The words of the lifecycle part of a resource kind (`KindLifecycle` in kind.ts): what the engine needs to create, adopt and prune the
 * objects of a kind without knowing which kind it is (see docs/reconcile.md, Creates and deletes). A kind
 * with a lifecycle lists the objects of a scope (a Shield Zone, or the whole account), says
 * where a document's object lives and by which natural key it is found, how one is deleted and
 * which deletions need `--force`. Identity itself (`identity.ts`) is resolved in the kind's
 * `readLive`; the engine's prune step (engine/prune.ts) only uses what is declared here.
 */
import type { KeyedObject, ObjectId } from './identity.js';

/** A scope's objects of one kind, as the prune step sees them. */
export interface ScopeObjects {
  readonly items: readonly LiveObject[];
  /** How many objects of this kind the scope allows, when the listing says (an access-list limit). */
  readonly limit?: number;
}

/** One live object of a scope: its id, natural key, and what deleting it destroys with it. */
export interface LiveObject extends KeyedObject {
  /** Things lost with the object (an app's volumes): named in the plan of its deletion. */
  readonly loses?: readonly string[];
}

/** A scope's listing, or why it could not be read. */
export type ScopeListing = ScopeObjects | { readonly error: string };

/** A scope's limit facts (read only where the run creates), or why they could not be read. */
export type ScopeLimit = { readonly value: unknown } | { readonly error: string };

/** Where a document's object lives and how it is named. */
export interface ObjectLocation {
  /** The Shield Zone; absent for objects of the whole account. */
  readonly shieldZoneId?: number | undefined;
  /** The id the document pins, if it does. */
  readonly id?: ObjectId | undefined;
  /** The natural key the document declares, if it does. */
  readonly key?: string | undefined;
  /**
   * The kind reads a document pinned by id directly (an app's GET): its scope is listed only
   * when some other document or inventory entry needs it, so a run of pinned documents costs no
   * listing.
   */
  readonly readsDirectly?: boolean;
}

/** The deletions one guard judges: one kind in one scope. */
export interface DeletionGroup {
  readonly shieldZoneId?: number | undefined;
  readonly deleting: readonly LiveObject[];
  /** How many objects of the kind the scope holds now. */
  readonly live: number;
  /**
   * How many of them edgesync manages: its inventory's, an exclusive scope's (minus `ignore`)
   * and those documents resolve to (see docs/reconcile.md, Creates and deletes).
   */
  readonly managed: number;
}

/** A scope whose live objects number at least this is guarded by the share below. */
export const PRUNE_GUARD_MIN_OBJECTS = 3;
/** Deleting more than this share of a scope's objects of one kind needs --force. */
export const PRUNE_GUARD_PERCENT = 30;

/**
 * The guard of custom rules and lists: deleting every object of a zone, or more than
 * PRUNE_GUARD_PERCENT of what edgesync manages there or of the zone's live objects (each when
 * it is at least PRUNE_GUARD_MIN_OBJECTS), needs --force. The managed share comes first: a
 * zone full of objects edgesync never owned must not make deleting all of its own look small.
 */
export function shareGuard(
  nouns: string,
  scopeName: (shieldZoneId: number | undefined) => string,
): (group: DeletionGroup) => string | undefined {
  return ({ shieldZoneId, deleting, live, managed }) => {
    const deletes = deleting.length;
    const where = scopeName(shieldZoneId);
    const again = 're-run with --force if this is intended';
    const tooMany = (of: number) => of >= PRUNE_GUARD_MIN_OBJECTS && deletes * 100 > of * PRUNE_GUARD_PERCENT;
    const percent = (of: number) => Math.round((deletes * 100) / of);
    if (deletes === live) return `the plan deletes every one of the ${live} ${nouns} of ${where}; ${again}`;
    if (tooMany(managed)) {
      return `the plan deletes ${deletes} of the ${managed} ${nouns} edgesync manages in ${where} (${percent(managed)}%), more than ${PRUNE_GUARD_PERCENT}%; ${again}`;
    }
    if (tooMany(live)) {
      return `the plan deletes ${deletes} of the ${live} ${nouns} of ${where} (${percent(live)}%), more than ${PRUNE_GUARD_PERCENT}%; ${again}`;
    }
    return undefined;
  };
}

/** `Shield Zone 42`: how rules and lists name their scope. */
export function shieldZoneName(shieldZoneId: number | undefined): string {
  return `Shield Zone ${shieldZoneId}`;
}
