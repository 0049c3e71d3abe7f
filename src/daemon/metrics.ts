/**
 * The daemon's Prometheus metrics (prom-client). Every daemon instance owns its own Registry:
 * the global default registry is never touched, so two daemons in one process (the tests) or a
 * library user's own metrics never collide. Names are `edgesync_*`; docs/daemon.md lists
 * each one with its labels.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { PaceReading } from '../api/pacer.js';
import type { RequestEvent } from '../api/types.js';

/** Result label of a reconcile: every resource fine, some failed, or the config did not validate. */
type ReconcileResult = 'success' | 'failed' | 'invalid';

/** API Guardian totals of one Shield Zone (E9 `data.total*`), as the API client returns them. */
interface ApiGuardianTotals {
  readonly totalBlockedRequests?: number | null;
  readonly totalLoggedRequests?: number | null;
  readonly totalRateLimited?: number | null;
  readonly totalRequestsInspected?: number | null;
  readonly totalFailedRequestValidation?: number | null;
  readonly totalFailedAuthenticationEnforcement?: number | null;
}

/** E9 field → gauge name suffix: `edgesync_api_guardian_<suffix>{shield_zone}`. */
const API_GUARDIAN_GAUGES = {
  totalBlockedRequests: 'blocked_requests',
  totalLoggedRequests: 'logged_requests',
  totalRateLimited: 'rate_limited',
  totalRequestsInspected: 'requests_inspected',
  totalFailedRequestValidation: 'failed_request_validation',
  totalFailedAuthenticationEnforcement: 'failed_authentication_enforcement',
} as const satisfies Record<keyof ApiGuardianTotals, string>;

/** The values of `edgesync_app_health`'s `status` label. */
const APP_HEALTH_STATUSES = ['progressing', 'active', 'failing', 'inactive', 'unknown'] as const;

/** The metrics of one daemon, and the only functions that change them. */
export interface DaemonMetrics {
  /** One finished reconcile (or a load that failed validation). */
  observeReconcile(result: ReconcileResult, durationMs: number): void;
  /** A run whose plan deletes was not applied: the files changed less than `--settle-ms` ago. */
  countDeferred(): void;
  /** 1 while a deferred plan waits for its `settle` run, else 0. */
  setSettleHoldPending(pending: boolean): void;
  /** Live objects no document claims that are not pruned (`--prune` off, or another reason). */
  setUnclaimed(count: number): void;
  /**
   * Replaces `edgesync_app_health{app,status}`: per app whose rollouts are watched, 1 for the
   * health its last rollout left (`progressing`, `active`, `failing`, `inactive`, `unknown`), 0 for the others.
   */
  setAppHealth(health: ReadonlyMap<string, string>): void;
  /** A trigger asked for a run (before coalescing): `schedule`, `file-change`, `webhook`, `retry`, `startup`. */
  countTrigger(reason: string): void;
  /** A webhook request and how it was answered (`accepted`, `ignored`, `unauthorized`, `too-large`…). */
  countWebhook(hook: string, outcome: string): void;
  /** Drift found on one resource in one run. */
  countDrift(kind: string, cause: string): void;
  /** One change outcome (`applied`, `failed`, …) per kind. */
  /** One change's outcome; `action` is the plan's (update, create, adopt, delete, noop, error). */
  countChange(kind: string, outcome: string, action?: string): void;
  /** The API client's `onRequest` hook: one HTTP exchange. */
  observeApiRequest(event: RequestEvent): void;
  /** Where the pace gauge reads the API client's pace at each scrape (`ApiClient.pacing`). */
  trackApiPacing(read: () => PaceReading): void;
  /** Replaces the resource gauge with these counts (`kind` → `status` → n). */
  setResources(counts: ReadonlyMap<string, ReadonlyMap<string, number>>): void;
  /** Wall-clock time of the last reconcile in which nothing failed. */
  setLastSuccess(at: Date): void;
  /** 1 while the desired state validates, 0 while the daemon is stalled on it. */
  setConfigValid(valid: boolean): void;
  countGitPullFailure(): void;
  /** `edgesync_ready` (what /readyz answers) and `edgesync_degraded` (resources or the last run failed). */
  setCondition(ready: boolean, degraded: boolean): void;
  /** `edgesync_leader`: 1 while this daemon holds the state store's lease and writes, else 0. */
  setLeader(leading: boolean): void;
  /** One notification delivery ended (`success`, `failed`, `timeout`, `dropped`), or a held one was `superseded`. */
  countNotification(target: string, result: string): void;
  /**
   * Sets the API Guardian gauges of one Shield Zone from E9's totals; a null or missing total
   * removes that zone's series rather than exporting a made-up zero.
   */
  setApiGuardian(shieldZoneId: number, totals: ApiGuardianTotals): void;
  /** Drops the API Guardian series of every zone not in `keep` (a zone left the desired state). */
  retainApiGuardian(keep: ReadonlySet<number>): void;
  /** Prometheus text exposition of every metric of this daemon. */
  render(): Promise<string>;
  readonly contentType: string;
}

/** Creates the metrics of one daemon in a new Registry (with Node's default process metrics). */
export function createDaemonMetrics(options: { version: string }): DaemonMetrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  new Gauge({ name: 'edgesync_up', help: '1 while the daemon runs', registers }).set(1);
  new Gauge({
    name: 'edgesync_build_info',
    help: 'edgesync version and Node.js version, always 1',
    labelNames: ['version', 'node_version'],
    registers,
  })
    .labels(options.version, process.versions.node)
    .set(1);
  const reconciles = new Counter({
    name: 'edgesync_reconcile_total',
    help: 'Reconcile runs by result (success, failed, invalid)',
    labelNames: ['result'],
    registers,
  });
  const duration = new Histogram({
    name: 'edgesync_reconcile_duration_seconds',
    help: 'Duration of reconcile runs by result, pull and load to record',
    labelNames: ['result'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers,
  });
  const deferred = new Counter({
    name: 'edgesync_reconcile_deferred_total',
    help: 'Runs whose plan deletes and that applied nothing: the config files changed less than --settle-ms ago',
    registers,
  });
  const settleHold = new Gauge({
    name: 'edgesync_settle_hold_pending',
    help: '1 while a deferred plan that deletes waits for its settle run, else 0',
    registers,
  });
  const unclaimed = new Gauge({
    name: 'edgesync_unclaimed_objects',
    help: 'Live custom rules and lists no document claims any more and that are not pruned (listed in /status unclaimed)',
    registers,
  });
  const triggers = new Counter({
    name: 'edgesync_triggers_total',
    help: 'Reconcile requests by reason, before coalescing',
    labelNames: ['reason'],
    registers,
  });
  const webhooks = new Counter({
    name: 'edgesync_webhook_requests_total',
    help: 'Webhook requests by hook and outcome',
    labelNames: ['hook', 'outcome'],
    registers,
  });
  const drift = new Counter({
    name: 'edgesync_drift_detected_total',
    help: 'Resources found drifted, per run, by kind and cause',
    labelNames: ['kind', 'cause'],
    registers,
  });
  const changes = new Counter({
    name: 'edgesync_changes_total',
    help: 'Change outcomes of apply by kind, outcome and planned action',
    labelNames: ['kind', 'outcome', 'action'],
    registers,
  });
  const apiRequests = new Counter({
    name: 'edgesync_api_requests_total',
    help: 'HTTP exchanges with the management API by operation, route, method and status (0 = no reply)',
    labelNames: ['operation', 'route', 'method', 'status'],
    registers,
  });
  const apiDuration = new Histogram({
    name: 'edgesync_api_request_duration_seconds',
    help: 'Duration of HTTP exchanges with the management API by operation',
    labelNames: ['operation'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const apiThrottled = new Counter({
    name: 'edgesync_api_throttled_total',
    help: 'Replies of the management API that were 429 Too Many Requests',
    registers,
  });
  let readPacing: (() => PaceReading) | undefined;
  new Gauge({
    name: 'edgesync_api_pace_rps',
    help: 'Requests per second the API client keeps to (learned from 429s, or the --max-rps cap); 0 while unpaced',
    registers,
    collect() {
      this.set(readPacing?.().rps ?? 0);
    },
  });
  const resources = new Gauge({
    name: 'edgesync_resources',
    help: 'Managed resources by kind and status (pending, in-sync, suspended, report-only, failed)',
    labelNames: ['kind', 'status'],
    registers,
  });
  const lastSuccess = new Gauge({
    name: 'edgesync_last_success_timestamp_seconds',
    help: 'Unix time of the last reconcile in which nothing failed',
    registers,
  });
  const configValid = new Gauge({
    name: 'edgesync_config_valid',
    help: '1 while the desired state validates, 0 while the daemon is stalled on an invalid config',
    registers,
  });
  const leader = new Gauge({
    name: 'edgesync_leader',
    help: '1 while this daemon leads (holds the state lease and writes), 0 while it stands by',
    registers,
  });
  const ready = new Gauge({
    name: 'edgesync_ready',
    help: '1 once the desired state has loaded (what /readyz answers with 200), else 0',
    registers,
  });
  const degraded = new Gauge({
    name: 'edgesync_degraded',
    help: '1 while resources are failed or the last run failed itself (an API outage), else 0',
    registers,
  });
  const gitPullFailures = new Counter({
    name: 'edgesync_git_pull_failures_total',
    help: 'git pull --ff-only runs that failed (the last good revision stays)',
    registers,
  });
  const notifications = new Counter({
    name: 'edgesync_notifications_total',
    help: 'notification deliveries by target (webhook, slack, github) and result (success, failed, timeout, dropped, superseded)',
    labelNames: ['target', 'result'],
    registers,
  });
  const guardian = Object.fromEntries(
    Object.entries(API_GUARDIAN_GAUGES).map(([field, suffix]) => [
      field,
      new Gauge({
        name: `edgesync_api_guardian_${suffix}`,
        help: `API Guardian ${field} of a Shield Zone (past 28 days)`,
        labelNames: ['shield_zone'],
        registers,
      }),
    ]),
  ) as Record<keyof ApiGuardianTotals, Gauge<'shield_zone'>>;
  const guardianZones = new Set<number>();
  ready.set(0);
  degraded.set(0);
  settleHold.set(0);
  unclaimed.set(0);

  const appHealth = new Gauge({
    name: 'edgesync_app_health',
    help: "1 for the health of each container app's last watched rollout (progressing, active, failing, inactive, unknown), 0 for the others",
    labelNames: ['app', 'status'],
    registers,
  });

  return {
    setAppHealth(health) {
      appHealth.reset();
      for (const [app, current] of health) {
        for (const status of APP_HEALTH_STATUSES)
          appHealth.labels(app, status).set(status === current ? 1 : 0);
      }
    },
    contentType: registry.contentType,
    observeReconcile(result, durationMs) {
      reconciles.inc({ result });
      duration.observe({ result }, durationMs / 1000);
    },
    countDeferred: () => deferred.inc(),
    setSettleHoldPending: (pending) => settleHold.set(pending ? 1 : 0),
    setUnclaimed: (count) => unclaimed.set(count),
    countTrigger: (reason) => triggers.inc({ reason }),
    countWebhook: (hook, outcome) => webhooks.inc({ hook, outcome }),
    countDrift: (kind, cause) => drift.inc({ kind, cause }),
    countChange: (kind, outcome, action = 'update') => changes.inc({ kind, outcome, action }),
    observeApiRequest(event) {
      apiRequests.inc({
        operation: event.operation,
        route: event.route,
        method: event.method,
        status: String(event.status),
      });
      apiDuration.observe({ operation: event.operation }, event.durationMs / 1000);
      if (event.status === 429) apiThrottled.inc();
    },
    trackApiPacing(read) {
      readPacing = read;
    },
    setResources(counts) {
      // Reset first, so a status no resource has any more drops to absent, not a stale count.
      resources.reset();
      for (const [kind, byStatus] of counts)
        for (const [status, n] of byStatus) resources.set({ kind, status }, n);
    },
    setLastSuccess: (at) => lastSuccess.set(at.getTime() / 1000),
    setConfigValid: (valid) => configValid.set(valid ? 1 : 0),
    countGitPullFailure: () => gitPullFailures.inc(),
    setCondition(isReady, isDegraded) {
      ready.set(isReady ? 1 : 0);
      degraded.set(isDegraded ? 1 : 0);
    },
    setLeader: (leading) => leader.set(leading ? 1 : 0),
    countNotification: (target, result) => notifications.labels(target, result).inc(),
    setApiGuardian(shieldZoneId, totals) {
      guardianZones.add(shieldZoneId);
      const labels = { shield_zone: String(shieldZoneId) };
      for (const field of Object.keys(API_GUARDIAN_GAUGES) as (keyof ApiGuardianTotals)[]) {
        const value = totals[field];
        if (typeof value === 'number' && Number.isFinite(value)) guardian[field].set(labels, value);
        else guardian[field].remove(labels);
      }
    },
    retainApiGuardian(keep) {
      for (const zone of guardianZones) {
        if (keep.has(zone)) continue;
        for (const gauge of Object.values(guardian)) gauge.remove({ shield_zone: String(zone) });
        guardianZones.delete(zone);
      }
    },
    render: () => registry.metrics(),
  };
}
