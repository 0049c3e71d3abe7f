/**
 * API Guardian totals (E9) for every Shield Zone of the desired state, for the daemon's
 * Prometheus gauges. E9 only reads metrics, so it must never fail a reconcile: each zone's
 * failure is that zone's result, and the function itself does not throw.
 */
import pLimit from 'p-limit';
import type { ApiClient } from '../api/types.js';
import type { DesiredResource } from '../config/types.js';
import { ReconcileError, toReconcileError } from '../errors.js';
import { KIND_SPECS } from '../kinds/specs.js';

/** Names of the six totals of an E9 reply (the API's own), in a fixed order. */
const API_GUARDIAN_TOTAL_NAMES = [
  'totalBlockedRequests',
  'totalLoggedRequests',
  'totalRateLimited',
  'totalRequestsInspected',
  'totalFailedRequestValidation',
  'totalFailedAuthenticationEnforcement',
] as const;

/** The six totals of an E9 reply, by name. */
type ApiGuardianTotals = { readonly [K in (typeof API_GUARDIAN_TOTAL_NAMES)[number]]: number };

/** One zone's outcome: its totals, or why they could not be read. */
export type ApiGuardianReading =
  | { readonly ok: true; readonly totals: ApiGuardianTotals }
  | { readonly ok: false; readonly error: ReconcileError };

/** Settings of `readApiGuardianTotals`. */
export interface ApiGuardianReadOptions {
  readonly signal: AbortSignal;
  /** E9 calls in flight at once; default 4, so a large config does not crowd out the reconcile. */
  readonly concurrency?: number;
}

const DEFAULT_CONCURRENCY = 4;

/**
 * The Shield Zones the desired state writes to (WafCustomRule, AccessList, ManagedAccessList),
 * ascending and without repeats: the zones whose API Guardian totals the daemon exports.
 */
export function desiredShieldZones(resources: readonly DesiredResource[]): number[] {
  const zones = new Set<number>();
  for (const resource of resources) {
    const zone = KIND_SPECS[resource.kind].shieldZoneId(resource.spec);
    if (zone !== undefined) zones.add(zone);
  }
  return [...zones].sort((a, b) => a - b);
}

/**
 * Calls E9 once per zone (repeats asked once), at most `concurrency` at a time, and returns
 * each zone's totals or error. Never throws: not for one zone's failure, nor for an abort
 * (the zones not yet read then carry the abort as their error).
 *
 * A reply without `data` is an error (API_BAD_RESPONSE); a total the reply leaves out counts
 * as 0: the API declares every total required, and a gauge needs a number.
 */
export async function readApiGuardianTotals(
  api: Pick<ApiClient, 'getApiGuardianMetrics'>,
  zoneIds: Iterable<number>,
  options: ApiGuardianReadOptions,
): Promise<Map<number, ApiGuardianReading>> {
  const limit = pLimit(Math.max(1, Math.floor(options.concurrency ?? DEFAULT_CONCURRENCY)));
  const zones = [...new Set(zoneIds)];
  const readings = await Promise.all(
    zones.map((zoneId) =>
      limit(async (): Promise<[number, ApiGuardianReading]> => {
        try {
          const reply = await api.getApiGuardianMetrics(zoneId, { signal: options.signal });
          const data = reply.data;
          if (data === null || data === undefined) {
            return [zoneId, { ok: false, error: noData(zoneId) }];
          }
          const totals = Object.fromEntries(
            API_GUARDIAN_TOTAL_NAMES.map((name) => [name, data[name] ?? 0]),
          ) as ApiGuardianTotals;
          return [zoneId, { ok: true, totals }];
        } catch (err) {
          return [zoneId, { ok: false, error: toReconcileError(err) }];
        }
      }),
    ),
  );
  return new Map(readings);
}

function noData(zoneId: number): ReconcileError {
  return new ReconcileError(
    'API_BAD_RESPONSE',
    `read API Guardian metrics (GET /shield/metrics/shield-zone/${zoneId}/api-guardian) answered without data`,
  );
}
