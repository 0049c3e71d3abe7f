/**
 * Routes under /dnszone (core API, PascalCase): the zone listing and GET, DNSSEC enable (POST)
 * and E5 disable (DELETE). The core API answers 401 and 404 with an empty body.
 */
import { dnssecDisabledStatus, dnssecEnabledStatus } from '../dnssec.js';
import type { Reply } from '../replies.js';
import { CORE_PROFILE } from '../replies.js';
import type { DnsZoneRecord } from '../store.js';
import type { RequestContext, Route } from './types.js';
import { idParam, queryInt } from './types.js';

function zoneOf(ctx: RequestContext): DnsZoneRecord | Reply {
  const id = idParam(ctx, 0, 'id');
  if (typeof id !== 'number') return id;
  return ctx.state.dnsZoneRecord(id) ?? ctx.fail('notFound', { status: 404 });
}

function isRecord(value: DnsZoneRecord | Reply): value is DnsZoneRecord {
  return 'model' in value;
}

/** The core API's bounds of `perPage` (SPEC-CORE `GET /dnszone`): 5–1000, default 1000. */
const MIN_PER_PAGE = 5;
const MAX_PER_PAGE = 1000;

/** `GET /dnszone?page=&perPage=&search=`: `{Items, CurrentPage, TotalItems, HasMoreItems}`. */
function listDnsZones(ctx: RequestContext): Reply {
  const query = new URLSearchParams(ctx.rawQuery);
  const page = queryInt(query, 'page', 1);
  const perPage = queryInt(query, 'perPage', MAX_PER_PAGE);
  if (
    page === undefined ||
    page < 1 ||
    perPage === undefined ||
    perPage < MIN_PER_PAGE ||
    perPage > MAX_PER_PAGE
  ) {
    return ctx.fail('invalid', {
      status: 400,
      detail: `page must be at least 1 and perPage between ${MIN_PER_PAGE} and ${MAX_PER_PAGE}.`,
    });
  }
  const search = query.get('search')?.toLowerCase();
  const zones = ctx.state
    .dnsZoneRecords()
    .filter(
      (zone) => search === undefined || search === '' || zone.model.Domain.toLowerCase().includes(search),
    );
  const start = (page - 1) * perPage;
  return {
    status: 200,
    body: {
      Items: zones.slice(start, start + perPage).map((zone) => zone.model),
      CurrentPage: page,
      TotalItems: zones.length,
      HasMoreItems: start + perPage < zones.length,
    },
  };
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
    pattern: '/dnszone',
    operation: 'listDnsZones',
    profile: CORE_PROFILE,
    body: 'none',
    handle: listDnsZones,
  },
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
