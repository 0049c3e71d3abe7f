/**
 * The inventory (docs/design.md, Identity): the custom WAF rules and access lists edgesync created or
 * adopted, by subject. It is what makes a changed `ruleName` a rename (PATCH) rather than a
 * create plus a delete, and what pruning may delete: an object that is not in it is never
 * deleted through it. It lives in the state file (state.ts persists it) and is kept here so
 * its rules stay in one place.
 */
import { z } from 'zod';
import { LIFECYCLE_KINDS, type LifecycleKind } from '../kinds/common/identity.js';

export type { LifecycleKind } from '../kinds/common/identity.js';

export const InventoryEntry = z.object({
  kind: z.enum(LIFECYCLE_KINDS),
  /** Absent for objects of the whole account (container apps). */
  shieldZoneId: z.number().int().optional(),
  /** Numbers for Shield objects, strings for container apps. */
  id: z.union([z.number().int(), z.string().min(1)]),
  /** The natural key when last written or seen: ruleName / list name. */
  key: z.string(),
  /**
   * Set when the object was created but what its kind sends after a create (an app's deploy)
   * failed: each run sends it again until it succeeds or the document no longer asks for it.
   */
  afterCreateOwed: z.literal(true).optional(),
});
export type InventoryEntry = z.infer<typeof InventoryEntry>;

/** The inventory as the state document writes it. */
export const InventorySchema = z.record(z.string(), InventoryEntry);
/** The inventory as a process holds it, by subject. */
export type Inventory = ReadonlyMap<string, InventoryEntry>;

export function isLifecycleKind(kind: string): kind is LifecycleKind {
  return (LIFECYCLE_KINDS as readonly string[]).includes(kind);
}

/** The inventory's view the read and plan phases use (read-only). */
export interface InventoryView {
  /** What this subject owns, if anything. */
  entry(subject: string): InventoryEntry | undefined;
  /** Every entry, by subject. */
  entries(): ReadonlyMap<string, InventoryEntry>;
  /**
   * False when the state could not be read this run: inventory pruning is then off (an empty
   * inventory would be no loss, but a stale or partial one must not delete anything).
   */
  readonly trusted: boolean;
}

/**
 * A snapshot: what an apply records in the state while it runs does not change the inventory
 * the run read and planned against.
 */
export function inventoryView(
  inventory: Iterable<readonly [string, InventoryEntry]>,
  trusted: boolean,
): InventoryView {
  const map = new Map(inventory);
  return { entry: (subject) => map.get(subject), entries: () => map, trusted };
}

/** An entry whose document now names another Shield Zone: its object stays behind in the old one. */
export interface MovedEntry {
  /** The document's subject, which keeps no entry until its object in the new zone is written. */
  readonly from: string;
  /** `Kind/name@shield-zone-N`: a subject no document can have (names have no `@`). */
  readonly to: string;
  readonly entry: InventoryEntry;
}

/**
 * Entries left behind by documents moved to another zone. Each becomes an entry of its own
 * subject, which no document claims, so the old object is pruned like any other whose document
 * is gone (or listed as not pruned without `--prune`), and `forget` can drop it. Kept under the
 * document's subject, it would be overwritten by the object created in the new zone and the
 * old one would be left in place, owned by nobody.
 */
export function movedEntries(
  inventory: Inventory,
  documents: readonly { readonly subject: string; readonly spec: unknown }[],
): MovedEntry[] {
  const moved: MovedEntry[] = [];
  for (const { subject, spec } of documents) {
    const entry = inventory.get(subject);
    const { shieldZoneId, id } = spec as { shieldZoneId?: unknown; id?: unknown };
    // A document pinned by id names its object outright: a zone that does not hold it is an
    // error of that document, not a reason to let go of the object it had.
    if (entry === undefined || id !== undefined || typeof shieldZoneId !== 'number') continue;
    if (entry.shieldZoneId === shieldZoneId) continue;
    moved.push({ from: subject, to: `${subject}${MOVED}${entry.shieldZoneId}`, entry });
  }
  return moved;
}

const MOVED = '@shield-zone-';

/** For the subject of a moved entry, the subject of the document that moved. */
export function movedFrom(subject: string): string | undefined {
  const at = subject.indexOf(MOVED);
  return at === -1 ? undefined : subject.slice(0, at);
}

/** The inventory with those entries under their own subjects. */
export function withMoves(inventory: Inventory, moves: readonly MovedEntry[]): Inventory {
  if (moves.length === 0) return inventory;
  const next = new Map(inventory);
  for (const move of moves) {
    next.delete(move.from);
    next.set(move.to, move.entry);
  }
  return next;
}
