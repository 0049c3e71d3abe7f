/**
 * The zone's access-list listing, shared by AccessList and ManagedAccessList: one
 * `GET /shield/shield-zone/{sz}/access-lists` per zone and reconcile. It is the only place
 * that maps a list id to its configuration id (the E3 path id).
 */
import type { AccessListDetailsWire, AccessListsWire } from '../../api/wire/shield.js';
import { AccessListAction, enumName } from '../../domain/enums.js';
import type { ReadContext } from './kind.js';

export function readZoneAccessLists(zoneId: number, ctx: ReadContext): Promise<AccessListsWire> {
  return ctx.once(`access-lists:${zoneId}`, () =>
    ctx.limit(() => ctx.api.listAccessLists(zoneId, { signal: ctx.signal })),
  );
}

/** The configuration state E3 manages, as the listing reports it. */
export interface LiveConfiguration {
  configurationId: number;
  isEnabled: boolean;
  action: number | null;
}

export function liveConfiguration(details: AccessListDetailsWire): LiveConfiguration {
  return {
    configurationId: details.configurationId,
    isEnabled: details.isEnabled,
    action: details.action ?? null,
  };
}

/** `action` integers back to names for display. */
export function displayAccessListValue(path: string, value: unknown): unknown {
  return path.endsWith('action') && typeof value === 'number' ? enumName(AccessListAction, value) : value;
}
