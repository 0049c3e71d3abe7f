/** Export of `DnsZone`: the zone's DNSSEC state from `GET /dnszone/{id}`, named after its domain. */
import type { DnsZoneWire } from '../../api/wire/dns.js';
import type { ExportedSpec, KindExporter } from '../common/export.js';
import { liveZone } from './index.js';

/** One DNS zone in the desired-state format, from the same live form its plan compares. */
function dnsZoneToSpec(wire: DnsZoneWire): ExportedSpec {
  const live = liveZone(wire);
  return {
    kind: 'DnsZone',
    liveName: live.domain,
    id: live.id,
    spec: { id: live.id, dnssec: live.dnssec },
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
