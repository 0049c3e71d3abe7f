/** Wire schemas of the core API (`/dnszone`, `/pullzone`; PascalCase). */
import { z } from 'zod';
import { WireInt } from './common.js';

export const DnsZoneWire = z.object({
  Id: WireInt,
  Domain: z.string().nullish(),
  DnsSecEnabled: z.boolean().nullish(),
});
export type DnsZoneWire = z.infer<typeof DnsZoneWire>;

/** `GET /dnszone`: one page of the account's zones (PaginationListModelOfDnsZoneModel). */
export const DnsZoneListWire = z.object({
  Items: z.array(DnsZoneWire).nullish(),
  CurrentPage: WireInt.nullish(),
  TotalItems: WireInt.nullish(),
  HasMoreItems: z.boolean().nullish(),
});
export type DnsZoneListWire = z.infer<typeof DnsZoneListWire>;

/** DnsSecDsRecordModel: the reply of E5 (DELETE) and of the enable POST. */
export const DnssecStatusWire = z.object({
  Enabled: z.boolean(),
  DsRecord: z.string().nullish(),
  Digest: z.string().nullish(),
  DigestType: z.string().nullish(),
  Algorithm: WireInt.nullish(),
  PublicKey: z.string().nullish(),
  KeyTag: WireInt.nullish(),
  Flags: WireInt.nullish(),
  DsConfigured: z.boolean().nullish(),
});
export type DnssecStatusWire = z.infer<typeof DnssecStatusWire>;

/** A pull zone of `GET /pullzone` (PullZoneModel): what `inspect zones` shows beside a Shield Zone. */
const PullZoneWire = z.looseObject({
  Id: WireInt,
  Name: z.string().nullish(),
  Hostnames: z.array(z.looseObject({ Value: z.string().nullish() })).nullish(),
});
export type PullZoneWire = z.infer<typeof PullZoneWire>;

/** `GET /pullzone?page=N` (N ≥ 1): the paginated form of the listing. */
export const PullZoneListWire = z.object({
  Items: z.array(PullZoneWire).nullish(),
  CurrentPage: WireInt.nullish(),
  TotalItems: WireInt.nullish(),
  HasMoreItems: z.boolean().nullish(),
});
