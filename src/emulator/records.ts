/**
 * The records the state keeps besides the wire shapes: a Shield Zone with what hangs off it,
 * an access list with its per-zone configuration, a DNS zone with its DNSSEC extras, and the
 * views that turn list records into the wire shapes the routes serve.
 */
import type {
  AccessListDetails,
  ApiGuardianMetrics,
  BotCategorizationGroup,
  CustomAccessList,
  DnsZoneModel,
} from './wire.js';

/** Per-zone limits a seed may set; each one left out follows the zone's plan. */
export interface ZoneLimitOverrides {
  customWafRules?: number;
  customLists?: number;
  customEntries?: number;
  rateLimitRules?: number;
}

/** A Shield Zone and what hangs off it. */
export interface ShieldZoneRecord {
  readonly id: number;
  pullZoneId: number;
  /** ShieldPlanType integer. */
  planType: number;
  /** Limits the seed sets for this zone; undefined = the plan's default (see `shield-zone.ts`). */
  limits: ZoneLimitOverrides;
  /** Ids of this zone's custom rules, kept sorted (the listing's stable order). */
  readonly ruleIds: number[];
  /** Custom and managed lists by list id. */
  readonly accessLists: Map<number, AccessListRecord>;
  /** The same records by configuration id (E3's path id). */
  readonly configurations: Map<number, AccessListRecord>;
  /** E6 data; undefined = the built-in default. */
  botCategories: BotCategorizationGroup[] | undefined;
  /** E9 data; undefined = the built-in default. */
  apiGuardian: ApiGuardianMetrics | undefined;
}

/**
 * One access list of a zone, custom or managed, with its per-zone configuration
 * (`configurationId`, `isEnabled`, `action`). Managed lists have no content to serve.
 */
export interface AccessListRecord {
  readonly kind: 'custom' | 'managed';
  readonly shieldZoneId: number;
  readonly listId: number;
  readonly configurationId: number;
  name: string;
  description: string | null;
  /** AccessListType integer; E2 cannot change it. */
  type: number;
  content: string;
  /** Lowercase hex SHA-256 of `content`. */
  checksum: string;
  entryCount: number;
  /** ISO 8601; moves forward whenever name or content changes. */
  lastModified: string;
  isEnabled: boolean;
  /** AccessListAction integer. */
  action: number;
  /** AccessListCategory integer (managed lists). */
  category: number;
  /** ShieldPlanType integer the list needs. */
  requiredPlan: number;
  /** .NET TimeSpan text, managed lists only (e.g. "1.00:00:00"). */
  updateFrequency: string | null;
}

/** A DNS zone and the DNSSEC facts the zone model does not carry. */
export interface DnsZoneRecord {
  readonly model: DnsZoneModel;
  /** Whether the DS record is published at the registrar (seedable; the emulator never changes it). */
  dsConfigured: boolean;
}

/** Entries of an access list: the non-empty lines of its content. */
export function countEntries(content: string): number {
  let count = 0;
  for (const line of content.split('\n')) {
    if (line.trim() !== '') count += 1;
  }
  return count;
}

/** The E2/GET `data` view of a custom list (a fresh object). */
export function customAccessListView(record: AccessListRecord): CustomAccessList {
  return {
    id: record.listId,
    name: record.name,
    description: record.description,
    type: record.type,
    content: record.content,
    checksum: record.checksum,
    entryCount: record.entryCount,
    lastModified: record.lastModified,
  };
}

/** The listing row of a list (a fresh object); `updateFrequency` only on managed lists. */
export function accessListDetailsView(record: AccessListRecord): AccessListDetails {
  const details: AccessListDetails = {
    listId: record.listId,
    configurationId: record.configurationId,
    name: record.name,
    description: record.description,
    isEnabled: record.isEnabled,
    type: record.type,
    category: record.category,
    action: record.action,
    requiredPlan: record.requiredPlan,
    entryCount: record.entryCount,
    lastUpdated: record.lastModified,
  };
  if (record.kind === 'managed') details.updateFrequency = record.updateFrequency;
  return details;
}

/**
 * A container registry of `GET /mc/registries`: a public one of the platform (no `userName`),
 * or one `POST /mc/registries` added with credentials, of which only the first and last two
 * characters of the password are kept (`firstPasswordSymbols`, `lastPasswordSymbols`).
 */
export interface RegistryRecord {
  readonly id: number;
  readonly displayName: string;
  readonly hostName: string;
  readonly userName?: string;
  readonly passwordHint?: { readonly first: string; readonly last: string };
  readonly createdAt?: string;
}
