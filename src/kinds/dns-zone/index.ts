/**
 * `DnsZone`: `GET /dnszone/{id}` gives `DnsSecEnabled`; E5 (`DELETE .../dnssec`) turns DNSSEC
 * off only when it is on, and `POST .../dnssec` turns it on. The DNSSEC status object either
 * call returns is kept for the audit log.
 */
import { writeRequests } from '../../api/operations.js';
import type { DnssecStatusWire } from '../../api/wire/dns.js';
import type { DesiredResource } from '../../config/types.js';
import type { KindPlan, LiveRead, ReadContext, ResourceKind } from '../common/kind.js';
import { readEach } from '../common/read.js';
import { type DnsZoneSpec, dnsZoneSpec } from './spec.js';

export interface LiveDnsZone {
  id: number;
  domain: string;
  dnssec: boolean;
}

function planDnsZone(desired: DesiredResource<DnsZoneSpec>, live: LiveDnsZone): KindPlan {
  const { id, dnssec } = desired.spec;
  if (dnssec === live.dnssec) return { diffs: [], requests: [] };
  return {
    diffs: [{ path: 'dnssec', live: live.dnssec, desired: dnssec }],
    requests: [dnssec ? writeRequests.enableDnssec(id) : writeRequests.disableDnssec(id)],
  };
}

function readDnsZones(
  resources: readonly DesiredResource<DnsZoneSpec>[],
  ctx: ReadContext,
): Promise<Map<string, LiveRead<LiveDnsZone>>> {
  return readEach(resources, async (resource) => {
    const wire = await ctx.limit(() => ctx.api.getDnsZone(resource.spec.id, { signal: ctx.signal }));
    return { id: wire.Id, domain: wire.Domain ?? '', dnssec: wire.DnsSecEnabled ?? false };
  });
}

export const dnsZoneKind: ResourceKind<DnsZoneSpec, LiveDnsZone> = {
  kind: 'DnsZone',
  spec: dnsZoneSpec as ResourceKind<DnsZoneSpec>['spec'],
  readLive: readDnsZones,
  plan: planDnsZone,
  checkReply(_request, reply) {
    // The DNSSEC status object is the audit record of E5 and of the enable call.
    return reply as DnssecStatusWire;
  },
};
