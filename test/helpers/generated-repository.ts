/**
 * What the repository generator produces: the description of a written repository and, per
 * resource, the live object that matches it in the emulator's seed form.
 */
import type { EmulatorSeed } from '../../src/emulator/index.js';

/** What was written: enough for a benchmark to describe the repository and to seed an emulator. */
export interface GeneratedRepository {
  readonly dir: string;
  /** Relative paths of the YAML files written, sorted. */
  readonly yamlFiles: readonly string[];
  /** Total bytes of the YAML files. */
  readonly yamlBytes: number;
  readonly counts: Readonly<Record<GeneratedKind, number>>;
  readonly shieldZoneIds: readonly number[];
  /** Every resource written, by kind and metadata.name, with the live ids it targets. */
  readonly resources: readonly GeneratedResource[];
}

/** The kinds the generator writes (all of them). */
type GeneratedKind = 'WafCustomRule' | 'AccessList' | 'ManagedAccessList' | 'ContainerApp' | 'DnsZone';

export type ZoneSeed = NonNullable<EmulatorSeed['shieldZones']>[number];
export type RuleSeed = NonNullable<ZoneSeed['customRules']>[number];
export type ListSeed = NonNullable<ZoneSeed['customAccessLists']>[number];
export type ManagedSeed = NonNullable<ZoneSeed['managedAccessLists']>[number];
export type AppSeed = NonNullable<EmulatorSeed['apps']>[number];
export type DnsZoneSeed = NonNullable<EmulatorSeed['dnsZones']>[number];

/** The live object that matches one resource, in the emulator's seed form. */
export type LiveSeed =
  | { readonly kind: 'WafCustomRule'; readonly rule: RuleSeed }
  | { readonly kind: 'AccessList'; readonly list: ListSeed }
  | { readonly kind: 'ManagedAccessList'; readonly list: ManagedSeed }
  | { readonly kind: 'ContainerApp'; readonly app: AppSeed }
  | { readonly kind: 'DnsZone'; readonly zone: DnsZoneSeed };

/** One generated resource: its subject parts, the ids it targets and its matching live object. */
export interface GeneratedResource {
  readonly kind: GeneratedKind;
  readonly name: string;
  readonly file: string;
  readonly ids: Readonly<Record<string, number | string>>;
  /** True for `metadata.drift: report`: edgesync never writes it, so it is never drifted. */
  readonly reportOnly: boolean;
  readonly live: LiveSeed;
}

/** What each kind's document builder returns: the metadata name, the YAML document, the live object. */
export interface GeneratedDocument {
  readonly name: string;
  readonly text: string;
  readonly live: LiveSeed;
  readonly reportOnly?: boolean;
}
