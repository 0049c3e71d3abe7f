/**
 * `DnsZone`: live `DnsSecEnabled` comes from `GET /dnszone/{id}`, or — from
 * DNS_LISTING_THRESHOLD desired zones on — from the paged zone listing (1,000 zones a request);
 * E5 (`DELETE .../dnssec`) turns DNSSEC off only when it is on, and `POST .../dnssec` turns it
 * on. The DNSSEC status object either call returns is kept for the audit log.
 */
import { writeRequests } from '../../api/operations.js';
import type { DnssecStatusWire, DnsZoneWire } from '../../api/wire/dns.js';
import type { KindPlan, LiveRead, ReadContext, ResourceKind } from '../common/kind.js';
import { found, notFound, readByGroup, readEach } from '../common/read.js';
import type { DesiredResource } from '../types.js';
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

/**
 * From this many DnsZone resources on, one listing (a request per 1,000 zones of the account)
 * replaces one GET per zone. Below it, GETs win: the account may hold many zones edgesync
 * does not manage, and the listing would read them all.
 */
const DNS_LISTING_THRESHOLD = 50;

/** A zone as the plan compares it (and the export writes it): no domain is '', no DNSSEC flag is off. */
export function liveZone(wire: DnsZoneWire): LiveDnsZone {
  return { id: wire.Id, domain: wire.Domain ?? '', dnssec: wire.DnsSecEnabled ?? false };
}

async function readDnsZones(
  resources: readonly DesiredResource<DnsZoneSpec>[],
  ctx: ReadContext,
): Promise<Map<string, LiveRead<LiveDnsZone>>> {
  if (resources.length < DNS_LISTING_THRESHOLD) {
    return readEach(resources, async (resource) =>
      liveZone(await ctx.limit(() => ctx.api.getDnsZone(resource.spec.id, { signal: ctx.signal }))),
    );
  }
  // One group, the account: its listing serves every zone, and its failure fails them all.
  return readByGroup(
    resources,
    () => 'account',
    async () => {
      const listing = await ctx.limit(() => ctx.api.listDnsZones({ signal: ctx.signal }));
      return new Map(listing.map((zone) => [zone.Id, zone]));
    },
    (resource, zones) => {
      const wire = zones.get(resource.spec.id);
      return wire === undefined
        ? notFound(resource, `DNS zone ${resource.spec.id} is not in the account`)
        : found(liveZone(wire));
    },
  );
}

export const dnsZoneKind: ResourceKind<DnsZoneSpec, LiveDnsZone> = {
  kind: 'DnsZone',
  spec: dnsZoneSpec as ResourceKind<DnsZoneSpec>['spec'],
  readLive: readDnsZones,
  plan: planDnsZone,
  planSection: { title: 'DNS zones' },
  checkReply(_request, reply) {
    // The DNSSEC status object is the audit record of E5 and of the enable call.
    return reply as DnssecStatusWire;
  },
};
