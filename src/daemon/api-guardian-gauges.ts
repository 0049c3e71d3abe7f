/**
 * The API Guardian gauges: E9 totals of every Shield Zone in the desired state, read after
 * each full run. A failed read keeps the zone's last values and is logged: it never fails the
 * reconcile. A zone that leaves the desired state loses its series.
 */
import type { ApiClient } from '../api/types.js';
import type { DesiredResource } from '../config/types.js';
import { desiredShieldZones, readApiGuardianTotals } from '../engine/api-guardian.js';
import type { Logger } from '../log.js';
import type { DaemonMetrics } from './metrics.js';

/** Reads E9 for every desired Shield Zone and sets the gauges. */
export async function refreshApiGuardianGauges(
  resources: readonly DesiredResource[],
  options: {
    readonly api: ApiClient;
    readonly metrics: DaemonMetrics;
    readonly logger: Logger;
    readonly signal: AbortSignal;
  },
): Promise<void> {
  const { metrics, logger } = options;
  const zones = desiredShieldZones(resources);
  metrics.retainApiGuardian(new Set(zones));
  const readings = await readApiGuardianTotals(options.api, zones, { signal: options.signal });
  for (const [zoneId, reading] of readings) {
    if (reading.ok) metrics.setApiGuardian(zoneId, reading.totals);
    else {
      logger.warn(
        {
          event: 'apiGuardian.failed',
          shieldZoneId: zoneId,
          code: reading.error.code,
          error: reading.error.message,
        },
        'API Guardian metrics not read',
      );
    }
  }
}
