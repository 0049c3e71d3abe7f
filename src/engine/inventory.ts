/**
 * The inventory (design §7): the custom WAF rules and access lists edgesync created or
 * adopted, by subject. It is what makes a changed `ruleName` a rename (PATCH) rather than a
 * create plus a delete, and what pruning may delete: an object that is not in it is never
 * deleted through it. It lives in the state file (state.ts persists it) and is kept here so
 * its rules stay in one place.
 */
import { z } from 'zod';
import { LIFECYCLE_KINDS, type LifecycleKind } from '../kinds/common/identity.js';

export { LIFECYCLE_KINDS, type LifecycleKind } from '../kinds/common/identity.js';

export const InventoryEntry = z.object({
  kind: z.enum(LIFECYCLE_KINDS),
  shieldZoneId: z.number().int(),
  id: z.number().int(),
  /** The natural key when last written or seen: ruleName / list name. */
  key: z.string(),
});
export type InventoryEntry = z.infer<typeof InventoryEntry>;

export const InventorySchema = z.record(z.string(), InventoryEntry);
export type Inventory = z.infer<typeof InventorySchema>;

export function isLifecycleKind(kind: string): kind is LifecycleKind {
  return (LIFECYCLE_KINDS as readonly string[]).includes(kind);
}

/** The same object: kind, zone and id (the key may have been renamed since). */
export function sameObject(a: InventoryEntry, b: Omit<InventoryEntry, 'key'>): boolean {
  return a.kind === b.kind && a.shieldZoneId === b.shieldZoneId && a.id === b.id;
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

export function inventoryView(inventory: Inventory, trusted: boolean): InventoryView {
  const map = new Map(Object.entries(inventory));
  return { entry: (subject) => map.get(subject), entries: () => map, trusted };
}
