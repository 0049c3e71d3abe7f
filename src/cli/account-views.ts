/**
 * `inspect zones` and `inspect apps`: what the account holds, by the ids the YAML needs —
 * Shield Zones with their pull zone's name and hostnames (`spec.shieldZoneId`), DNS zones
 * (`DnsZone` `spec.id`) and container apps (`ContainerApp` `spec.appId`). Pure: validated replies
 * in, text lines (or the JSON document) out.
 */
import type { DnsZoneWire, PullZoneWire } from '../api/wire/dns.js';
import type { AppListItemWire } from '../api/wire/mc.js';
import type { ShieldZoneListItemWire } from '../api/wire/shield.js';
import { enumName, ShieldPlanType } from '../domain/enums.js';
import type { ViewOptions } from './inspect-views.js';
import { type Column, renderTable, yesNo } from './tables.js';

/** What `inspect zones` read: the three listings. */
export interface AccountZones {
  readonly shieldZones: readonly ShieldZoneListItemWire[];
  readonly pullZones: readonly PullZoneWire[];
  readonly dnsZones: readonly DnsZoneWire[];
}

function plural(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? '' : 's'}`;
}

/** The hostnames users know first: their own, then bunny.net's `*.b-cdn.net`. */
function hostnamesOf(pullZone: PullZoneWire | undefined): string {
  const values = (pullZone?.Hostnames ?? []).flatMap((h) => (h.Value ? [h.Value] : []));
  const own = values.filter((v) => !v.endsWith('.b-cdn.net'));
  return [...own, ...values.filter((v) => v.endsWith('.b-cdn.net'))].join(', ');
}

/** `--json`: each Shield Zone as the API sent it with its pull zone beside it, and the DNS zones. */
export function zonesDocument(zones: AccountZones): unknown {
  const pullZones = new Map(zones.pullZones.map((p) => [p.Id, p]));
  return {
    shieldZones: zones.shieldZones.map((zone) => ({
      ...zone,
      pullZone: zone.pullZoneId == null ? null : (pullZones.get(zone.pullZoneId) ?? null),
    })),
    dnsZones: zones.dnsZones,
  };
}

/** Two tables: Shield Zones (id, pull zone id, name, hostnames, plan, WAF) and DNS zones (id, domain, DNSSEC). */
export function zonesView(zones: AccountZones, options: ViewOptions): string[] {
  const pullZones = new Map(zones.pullZones.map((p) => [p.Id, p]));
  const shieldColumns: Column[] = [
    { header: 'SHIELD ZONE', align: 'right' },
    { header: 'PULL ZONE', align: 'right' },
    { header: 'NAME' },
    { header: 'HOSTNAMES' },
    { header: 'PLAN' },
    { header: 'WAF' },
  ];
  const shieldRows = zones.shieldZones.map((zone) => {
    const pullZone = zone.pullZoneId == null ? undefined : pullZones.get(zone.pullZoneId);
    return [
      String(zone.shieldZoneId),
      zone.pullZoneId == null ? '-' : String(zone.pullZoneId),
      pullZone?.Name ?? (zone.pullZoneId == null ? '-' : '(not listed)'),
      hostnamesOf(pullZone),
      zone.planType == null ? '-' : enumName(ShieldPlanType, zone.planType),
      yesNo(zone.wafEnabled),
    ];
  });
  const dnsColumns: Column[] = [
    { header: 'DNS ZONE', align: 'right' },
    { header: 'DOMAIN' },
    { header: 'DNSSEC' },
  ];
  const dnsRows = zones.dnsZones.map((zone) => [
    String(zone.Id),
    zone.Domain ?? '',
    yesNo(zone.DnsSecEnabled),
  ]);
  return [
    ...(shieldRows.length === 0 ? ['No Shield Zones.'] : renderTable(shieldColumns, shieldRows, options)),
    '',
    ...(dnsRows.length === 0 ? ['No DNS zones.'] : renderTable(dnsColumns, dnsRows, options)),
    '',
    `${plural(shieldRows.length, 'Shield Zone')} (spec.shieldZoneId of rules, lists and ShieldZone documents), ${plural(dnsRows.length, 'DNS zone')} (spec.id of DnsZone documents).`,
  ];
}

/** One row per app: its id (`spec.appId`), name and status. */
export function appsView(apps: readonly AppListItemWire[], options: ViewOptions): string[] {
  if (apps.length === 0) return ['No container apps.'];
  const columns: Column[] = [{ header: 'APP ID' }, { header: 'NAME' }, { header: 'STATUS' }];
  const rows = apps.map((app) => [app.id, app.name, app.status ?? '-']);
  return [
    ...renderTable(columns, rows, options),
    '',
    `${plural(apps.length, 'app')} (spec.appId of ContainerApp documents, or find one by spec.name).`,
  ];
}
