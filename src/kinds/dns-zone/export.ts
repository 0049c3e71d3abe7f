/** Export of `DnsZone`: the zone's DNSSEC state from `GET /dnszone/{id}`, named after its domain. */
import type { DnsZoneWire } from '../../api/wire/dns.js';
import type { ExportedSpec, KindExporter } from '../common/export.js';

/** One DNS zone in the desired-state format. */
export function dnsZoneToSpec(wire: DnsZoneWire): ExportedSpec {
  return {
    kind: 'DnsZone',
    liveName: wire.Domain ?? '',
    id: wire.Id,
    spec: { id: wire.Id, dnssec: wire.DnsSecEnabled ?? false },
    warnings: [],
  };
}

/** One DNS zone by id. */
export const dnsZoneExporter: KindExporter<'dnsZone'> = {
  kind: 'DnsZone',
  scope: 'dnsZone',
  async read(zoneId, ctx) {
    const wire = await ctx.limit(() => ctx.api.getDnsZone(zoneId, { signal: ctx.signal }));
    return [dnsZoneToSpec(wire)];
  },
};
