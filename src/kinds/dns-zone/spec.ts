/** `DnsZone` desired state → E5 `DELETE /dnszone/{id}/dnssec` (and `POST` to enable). */
import { z } from 'zod';
import { IntId } from '../common/fields.js';
import type { KindSpecModule } from '../common/spec-module.js';

export const DnsZoneSpec = z.strictObject({
  id: IntId,
  dnssec: z.boolean(),
});
export type DnsZoneSpec = z.infer<typeof DnsZoneSpec>;

export const dnsZoneSpec: KindSpecModule<DnsZoneSpec, DnsZoneSpec> = {
  kind: 'DnsZone',
  schema: DnsZoneSpec,
  resolve: (parsed) => parsed,
  target: (spec) => `dns-zone:${spec.id}`,
  targetPath: () => ['id'],
  shieldZoneId: () => undefined,
};
