/**
 * The zone's access-list listing, shared by AccessList and ManagedAccessList: one
 * `GET /shield/shield-zone/{sz}/access-lists` per zone and reconcile. It is the only place
 * that maps a list id to its configuration id (the E3 path id).
 */
import { type ApiRequest, writeRequests } from '../../api/operations.js';
import type { AccessListDetailsWire, AccessListsWire } from '../../api/wire/shield.js';
import { AccessListAction, enumName } from '../../domain/enums.js';
import type { FieldDiff } from '../types.js';
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

/** What both kinds declare of a list's configuration; an omitted field is left as it is. */
export interface DesiredConfiguration {
  readonly shieldZoneId: number;
  readonly enabled?: boolean;
  readonly action?: number;
  readonly configurationId?: number;
}

/** An `action` integer by its name, for display. */
function actionName(action: number | null | undefined): unknown {
  return typeof action === 'number' ? enumName(AccessListAction, action) : action;
}

/**
 * The E3 part of a plan: appends the `enabled` and `action` diffs to `diffs` and returns the
 * one request that sets both, or undefined when neither differs. The request always carries
 * `isEnabled` (the live state when undeclared), and `action` only when declared.
 */
export function planConfiguration(
  spec: DesiredConfiguration,
  live: LiveConfiguration,
  diffs: FieldDiff[],
): ApiRequest<'updateAccessListConfiguration'> | undefined {
  const enabledDiffers = spec.enabled !== undefined && spec.enabled !== live.isEnabled;
  const actionDiffers = spec.action !== undefined && spec.action !== live.action;
  if (enabledDiffers) diffs.push({ path: 'enabled', live: live.isEnabled, desired: spec.enabled });
  if (actionDiffers)
    diffs.push({ path: 'action', live: actionName(live.action), desired: actionName(spec.action) });
  if (!enabledDiffers && !actionDiffers) return undefined;
  return writeRequests.updateAccessListConfiguration(
    spec.shieldZoneId,
    spec.configurationId ?? live.configurationId,
    {
      isEnabled: spec.enabled ?? live.isEnabled,
      ...(spec.action === undefined ? {} : { action: spec.action }),
    },
  );
}
