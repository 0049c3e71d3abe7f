/** `DnsZone` desired state → E5 `DELETE /dnszone/{id}/dnssec` (and `POST` to enable). */
import { z } from 'zod';
import { IntId } from '../common/fields.js';
import type { KindSpecModule } from '../common/spec-module.js';

/** Strict schema of the `spec` of a DnsZone document (unknown keys are errors). */
export const DnsZoneSpec = z.strictObject({
  id: IntId,
  dnssec: z.boolean(),
});
/** The parsed (output) form of DnsZoneSpec: enums as the integers or spellings the API takes. */
export type DnsZoneSpec = z.infer<typeof DnsZoneSpec>;

/** The DnsZone kind as the config loader sees it: schema, canonical form, target. */
export const dnsZoneSpec: KindSpecModule<DnsZoneSpec, DnsZoneSpec> = {
  kind: 'DnsZone',
  schema: DnsZoneSpec,
  resolve: (parsed) => parsed,
  target: (spec) => `DNS zone (id ${spec.id})`,
  targetPath: () => ['id'],
  shieldZoneId: () => undefined,
};
