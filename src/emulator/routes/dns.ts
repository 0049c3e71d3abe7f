/**
 * Routes under /dnszone (core API, PascalCase): the zone GET, DNSSEC enable (POST) and E5
 * disable (DELETE). The core API answers 401 and 404 with an empty body.
 */
import { dnssecDisabledStatus, dnssecEnabledStatus } from '../dnssec.js';
import type { Reply } from '../replies.js';
import { CORE_PROFILE } from '../replies.js';
import type { DnsZoneRecord } from '../store.js';
import type { RequestContext, Route } from './types.js';
import { badIdFailure, parseId } from './types.js';

function zoneOf(ctx: RequestContext): DnsZoneRecord | Reply {
  const raw = ctx.params[0] as string;
  const id = parseId(raw);
  if (id === undefined) return ctx.fail('invalid', badIdFailure('id', raw));
  return ctx.state.dnsZoneRecord(id) ?? ctx.fail('notFound', { status: 404 });
}

function isRecord(value: DnsZoneRecord | Reply): value is DnsZoneRecord {
  return 'model' in value;
}

function getDnsZone(ctx: RequestContext): Reply {
  const zone = zoneOf(ctx);
  if (!isRecord(zone)) return zone;
  return { status: 200, body: zone.model };
}

function enableDnssec(ctx: RequestContext): Reply {
  const zone = zoneOf(ctx);
  if (!isRecord(zone)) return zone;
  // Idempotent: an already-signed zone gets its existing key back (Terraform reads DS data this way).
  ctx.state.setDnssec(zone.model.Id, true);
  return { status: 200, body: dnssecEnabledStatus(zone.model, zone.dsConfigured) };
}

function disableDnssec(ctx: RequestContext): Reply {
  const zone = zoneOf(ctx);
  if (!isRecord(zone)) return zone;
  // Disabling a zone that is already unsigned is not an error: 200 with Enabled false.
  ctx.state.setDnssec(zone.model.Id, false);
  return { status: 200, body: dnssecDisabledStatus() };
}

/** Every /dnszone route. */
export const DNS_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    pattern: '/dnszone/:id',
    operation: 'getDnsZone',
    profile: CORE_PROFILE,
    body: 'none',
    handle: getDnsZone,
  },
  {
    method: 'POST',
    pattern: '/dnszone/:id/dnssec',
    operation: 'enableDnssec',
    profile: CORE_PROFILE,
    body: 'none',
    handle: enableDnssec,
  },
  {
    method: 'DELETE',
    pattern: '/dnszone/:id/dnssec',
    operation: 'disableDnssec',
    profile: CORE_PROFILE,
    body: 'none',
    handle: disableDnssec,
  },
];
