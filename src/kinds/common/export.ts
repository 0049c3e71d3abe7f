/**
 * The export half of a resource kind: read live objects and write them in the desired-state
 * format, so an existing account can be adopted. Every kind folder has an `export.ts` with a
 * pure live → spec conversion and one `KindExporter`; `src/kinds/export.ts` lists them and
 * names the documents.
 *
 * The contract of every conversion is the round trip: the spec it writes validates, and a plan
 * of it against the same live object has no change. So it writes each field the way the kind's
 * plan reads it back (enum names, canonical access-list entries, the request form of an app)
 * and leaves out what the API owns (ids it assigns, derived images, pull zones of endpoints).
 */

import { type EnumTable, enumName } from '../../domain/enums.js';
import type { KindName } from '../types.js';
import type { ReadContext } from './kind.js';

/** What an export is asked for: a Shield Zone's rules and lists, an app, a DNS zone. */
export interface ExportScopes {
  readonly shieldZone: number;
  readonly app: string;
  readonly dnsZone: number;
}

/** The name of a scope: `shieldZone`, `app` or `dnsZone`. */
export type ExportScope = keyof ExportScopes;

/** One live object as a desired-state spec, before it gets its `metadata.name`. */
export interface ExportedSpec {
  readonly kind: KindName;
  /** The live display name `metadata.name` derives from; '' when the object has none. */
  readonly liveName: string;
  /** The object's id: the fallback name is `<kind>-<id>`, and objects are ordered by it. */
  readonly id: string | number;
  /** `spec` as written: enums by name, only the fields worth managing, in the spec's key order. */
  readonly spec: Readonly<Record<string, unknown>>;
  /** What the user should know about this object's export (entries dropped, endpoints left out). */
  readonly warnings: readonly string[];
}

/**
 * The names that appear exactly once (and are not empty): objects with such a name are
 * exported without their id, so the document adopts them by key (docs/design.md, Identity) and can re-create
 * them; an object whose name repeats keeps its id, since its key finds more than one.
 */
export function uniqueNames(names: readonly string[]): Set<string> {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return new Set([...counts].filter(([name, n]) => n === 1 && name !== '').map(([name]) => name));
}

/** How values are written. */
export interface ExportSettings {
  /**
   * Write the values of secret-looking container variables as they are; by default they
   * become `valueFrom` placeholders (docs/secrets.md).
   */
  readonly includeSecretValues: boolean;
  /**
   * What the state remembers of an app's last apply (`KindPlan.remember`), by app id: its
   * variables applied as secrets are exported as placeholders too (docs/secrets.md, `export`).
   */
  readonly remembered?: (appId: string) => Readonly<Record<string, unknown>> | undefined;
}

/** Reads the live objects of one kind in a scope and converts them. */
export interface KindExporter<S extends ExportScope = ExportScope> {
  readonly kind: KindName;
  readonly scope: S;
  /** Throws the API's error when a read fails: an export is all or nothing. */
  read(id: ExportScopes[S], ctx: ReadContext, settings: ExportSettings): Promise<ExportedSpec[]>;
}

/** An enum integer by its name, as a spec writes it; left out (undefined) when the API has none. */
export function optionalEnumName(table: EnumTable, value: number | null | undefined): string | undefined {
  return value === null || value === undefined ? undefined : enumName(table, value);
}
