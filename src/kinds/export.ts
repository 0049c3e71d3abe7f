/**
 * `export`: reads live objects through every kind's exporter and returns them as named
 * desired-state documents. Formatting and files are the CLI's business; this module decides
 * what is exported and how each document is named.
 *
 * Naming: `metadata.name` comes from the live name — lower-cased, accents dropped, every run
 * of characters outside `[a-z0-9]` turned into one `-`, trimmed of `-`, at most 63 characters —
 * and falls back to `<kind>-<id>` (`waf-custom-rule-1234`) when nothing is left. Names are
 * unique per kind: a repeat gets `-2`, `-3`, … in the order the objects are listed (kind, then
 * the order of the selection, then id).
 */
import type { ApiClient } from '../api/types.js';
import { accessListExporter } from './access-list/export.js';
import type { ExportedSpec, ExportScope, ExportScopes, KindExporter } from './common/export.js';
import { createReadContext } from './common/read.js';
import { containerAppExporter } from './container-app/export.js';
import { dnsZoneExporter } from './dns-zone/export.js';
import { managedAccessListExporter } from './managed-access-list/export.js';
import { KIND_NAMES, KIND_SPECS } from './specs.js';
import type { KindName } from './types.js';
import { wafCustomRuleExporter } from './waf-custom-rule/export.js';

export type { ExportedSpec } from './common/export.js';

/** Every kind's exporter. Adding a kind: one `export.ts` in its folder and one line here. */
const EXPORTERS: Readonly<Partial<Record<KindName, KindExporter>>> = {
  WafCustomRule: wafCustomRuleExporter as KindExporter,
  AccessList: accessListExporter as KindExporter,
  ManagedAccessList: managedAccessListExporter as KindExporter,
  ContainerApp: containerAppExporter as KindExporter,
  DnsZone: dnsZoneExporter as KindExporter,
};

/** What to export: any mix of Shield Zones, apps and DNS zones. */
export interface ExportSelection {
  readonly shieldZones: readonly number[];
  readonly apps: readonly string[];
  readonly dnsZones: readonly number[];
}

/** One document, ready to be written. */
export interface ExportedDocument {
  readonly kind: KindName;
  readonly name: string;
  readonly spec: Readonly<Record<string, unknown>>;
}

/** The documents in order, and what the user should read before adopting them. */
export interface ExportResult {
  readonly documents: readonly ExportedDocument[];
  readonly warnings: readonly string[];
}

/** Settings of `exportLive`. */
export interface ExportOptions {
  readonly signal: AbortSignal;
  /** Reads in flight at once (the access-list content GETs are one per list). */
  readonly concurrency: number;
  /** Secret-looking container variables as they are, not as `valueFrom` placeholders. */
  readonly includeSecretValues?: boolean;
  /** What the state remembers of an app's last apply, by app id (ExportSettings.remembered). */
  readonly remembered?: (appId: string) => Readonly<Record<string, unknown>> | undefined;
}

/** Longest generated name: a DNS label's length keeps file names and `Kind/name` subjects readable. */
export const MAX_EXPORT_NAME = 63;

/** `WafCustomRule` → `waf-custom-rule`. */
export function kebabKind(kind: KindName): string {
  return kind.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

/** The name a live name turns into (see the module comment); '' when nothing usable is left. */
export function slugName(liveName: string): string {
  const slug = liveName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug.slice(0, MAX_EXPORT_NAME).replace(/-+$/, '');
}

/** `metadata.name` for each exported object, unique per kind, in the given order. */
export function assignNames(specs: readonly ExportedSpec[]): string[] {
  const taken = new Map<KindName, Set<string>>();
  return specs.map((item) => {
    const used = taken.get(item.kind) ?? new Set<string>();
    taken.set(item.kind, used);
    // The fallback is never empty: it starts with the kind's letters.
    const base = slugName(item.liveName) || slugName(`${kebabKind(item.kind)}-${String(item.id)}`);
    let name = base;
    for (let n = 2; used.has(name); n += 1) name = `${base}-${n}`;
    used.add(name);
    return name;
  });
}

function byId(a: ExportedSpec, b: ExportedSpec): number {
  if (typeof a.id === 'number' && typeof b.id === 'number') return a.id - b.id;
  const x = String(a.id);
  const y = String(b.id);
  return x < y ? -1 : x > y ? 1 : 0;
}

function summariseIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues
    .slice(0, 3)
    .map((issue) => `${['spec', ...issue.path.map(String)].join('.')}: ${issue.message}`)
    .join('; ');
}

/**
 * Reads the selected live objects and returns them as named documents, in kind order.
 * Throws the first API error (an export is all or nothing). An object the format cannot hold
 * (a rule without variables, a forbidden operator) is left out with a warning rather than
 * written as a document that would not validate.
 */
export async function exportLive(
  api: ApiClient,
  selection: ExportSelection,
  options: ExportOptions,
): Promise<ExportResult> {
  // The first failure ends the export: the reads still running (and their retries) are aborted.
  const failed = new AbortController();
  const ctx = createReadContext({
    api,
    signal: AbortSignal.any([options.signal, failed.signal]),
    concurrency: options.concurrency,
    hint: () => undefined,
  });
  const ids: { [S in ExportScope]: readonly ExportScopes[S][] } = {
    shieldZone: [...new Set(selection.shieldZones)],
    app: [...new Set(selection.apps)],
    dnsZone: [...new Set(selection.dnsZones)],
  };
  const reads = KIND_NAMES.flatMap((kind) => {
    const exporter = EXPORTERS[kind];
    // ShieldZone declares ownership; it has no live object to export.
    if (exporter === undefined) return [];
    return (ids[exporter.scope] as readonly never[]).map(async (id) => {
      try {
        const settings = {
          includeSecretValues: options.includeSecretValues === true,
          ...(options.remembered === undefined ? {} : { remembered: options.remembered }),
        };
        return [...(await exporter.read(id, ctx, settings))].sort(byId);
      } catch (err) {
        failed.abort(err);
        throw err;
      }
    });
  });
  const found = (await Promise.all(reads)).flat();

  const warnings: string[] = [];
  const valid: ExportedSpec[] = [];
  for (const item of found) {
    warnings.push(...item.warnings);
    const parsed = KIND_SPECS[item.kind].schema.safeParse(item.spec);
    if (parsed.success) valid.push(item);
    else {
      warnings.push(
        `${item.kind} ${String(item.id)} (${JSON.stringify(item.liveName)}) is not exported: ` +
          `the format cannot hold it (${summariseIssues(parsed.error.issues)})`,
      );
    }
  }
  const names = assignNames(valid);
  const documents = valid.map((item, index) => ({
    kind: item.kind,
    name: names[index] ?? kebabKind(item.kind),
    spec: item.spec,
  }));
  return { documents, warnings };
}
