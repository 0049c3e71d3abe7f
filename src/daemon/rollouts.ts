/**
 * The daemon's rollout watches (docs/daemon.md, Rollout health). A run hands over the rollouts
 * its writes started (`reconcile`'s `detach`) and ends: the watches run here, beside the run
 * loop, so a 300 s rollout holds up no other zone, kind or run. Each result is recorded in the
 * state (saved), in `/status` (the resource and `apps`) and in `edgesync_app_health`, and told
 * to the notifier as a run of its own (trigger `rollout`): a failed rollout is a
 * `reconcile.failed` with its cause. A failed rollout whose document asks for `onFailure:
 * rollback` is handed to the run loop (`rollback`), which applies the last spec that reached
 * `active` in a run of its own. Stopping the daemon or losing the lease aborts every watch.
 */
import type { ApiClient } from '../api/types.js';
import type { DesiredResource } from '../config/types.js';
import {
  followRollouts,
  type Rollback,
  type RolloutResult,
  type RolloutTarget,
  rollbacksFor,
  watchesRollouts,
} from '../engine/rollout.js';
import type { RolloutRecord, StateStore } from '../engine/state.js';
import type { Logger } from '../log.js';
import type { Lease } from '../state/backend.js';
import type { DaemonMetrics } from './metrics.js';
import { NO_COUNTS, type RunObserver } from './notify/run-summary.js';
import type { AppHealthStatus, StatusTracker } from './status.js';

export interface RolloutFollowerOptions {
  readonly api: ApiClient;
  readonly state: StateStore;
  readonly lease?: Lease;
  /** Aborted by fencing (a lost lease) or a shutdown that timed out: every watch ends. */
  readonly signal?: AbortSignal;
  readonly status: StatusTracker;
  readonly metrics: DaemonMetrics;
  readonly logger: Logger;
  readonly audit: Logger;
  readonly observer?: RunObserver;
  readonly pollMs: number;
  /** The desired resources as last loaded: a rollback restores onto today's document. */
  resources(): ReadonlyMap<string, DesiredResource>;
  /** Queues a run that applies these rollbacks. */
  rollback(rollbacks: readonly Rollback[]): void;
}

export interface RolloutFollower {
  /** Starts watching (a newer write to an app replaces the watch of its older one). */
  follow(targets: readonly RolloutTarget[]): void;
  /** Shows every app's last recorded rollout in `/status` and the gauge (after each run's load). */
  refresh(): void;
  /** Aborts every watch and waits until each has recorded `aborted`. */
  stop(): Promise<void>;
}

/** `/status` `apps`: each app whose kind rolls out, with its last rollout as the state has it. */
function appsOf(resources: ReadonlyMap<string, DesiredResource>, state: StateStore): AppHealthStatus[] {
  const apps: AppHealthStatus[] = [];
  for (const resource of resources.values()) {
    if (!watchesRollouts(resource.kind)) continue;
    const record: RolloutRecord | undefined = state.rollout(resource.subject);
    const spec = resource.spec as { name?: unknown; appId?: unknown };
    apps.push({
      subject: resource.subject,
      name: typeof spec.name === 'string' ? spec.name : resource.name,
      appId:
        record !== undefined ? String(record.objectId) : typeof spec.appId === 'string' ? spec.appId : null,
      status: record?.status ?? 'unknown',
      health: record?.health ?? 'unknown',
      revision: record?.revision ?? null,
      reason: record?.error?.message ?? null,
      rolledBackTo: record?.held?.to ?? null,
      at: record?.at ?? null,
    });
  }
  return apps.sort((a, b) => (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0));
}

/** The gauge's word for a record: the API's, where it is one the gauge knows. */
function gaugeStatus(app: AppHealthStatus): string {
  if (app.status === 'progressing') return 'progressing';
  return ['active', 'failing', 'inactive'].includes(app.health) ? app.health : 'unknown';
}

export function createRolloutFollower(options: RolloutFollowerOptions): RolloutFollower {
  const { state, status, metrics, logger } = options;
  const stopping = new AbortController();
  const watches = new Map<string, { abort: AbortController; done: Promise<void> }>();
  options.lease?.onLost(() => stopping.abort());
  if (options.signal?.aborted === true) stopping.abort();
  else options.signal?.addEventListener('abort', () => stopping.abort(), { once: true });
  // A watch a stopped process left `progressing` is not watched by anyone now.
  for (const [subject, record] of Object.entries(state.rollouts())) {
    if (record.status === 'progressing') state.setRollout(subject, { ...record, status: 'aborted' });
  }

  function refresh(): void {
    const apps = appsOf(options.resources(), state);
    status.setApps(apps);
    metrics.setAppHealth(new Map(apps.map((app) => [app.subject, gaugeStatus(app)])));
  }

  /** The failure as the notifier and `/status` tell it: the cause, and what remediation does. */
  function failureOf(result: RolloutResult, rollback: Rollback | undefined, refused: string | undefined) {
    const cause = result.error?.message ?? 'the rollout failed';
    const remedy =
      rollback !== undefined
        ? `; onFailure: rollback: applying ${rollback.to} again, the last revision that reached active`
        : refused !== undefined
          ? `; onFailure: rollback: not rolled back: ${refused}`
          : result.rollbackOf !== undefined
            ? ` (the rollback from ${result.rollbackOf} failed too: not retried until the document changes)`
            : '';
    return { code: 'ROLLOUT_FAILED', message: `${cause}${remedy}` };
  }

  async function settle(result: RolloutResult, startedAt: Date): Promise<void> {
    if (result.outcome === 'aborted' || options.lease?.held() === false) return;
    const { rollbacks, refused } = rollbacksFor([result], options.resources(), state);
    const rollback = rollbacks[0];
    const failure = result.outcome === 'failed' ? failureOf(result, rollback, refused[0]?.reason) : undefined;
    if (failure !== undefined)
      status.markRolloutFailed(result.subject, { ...failure, at: new Date().toISOString() });
    try {
      await state.save();
    } catch (err) {
      logger.warn(
        { event: 'rollout.state-save-failed', reason: (err as Error).message },
        'rollout not saved',
      );
    }
    refresh();
    metrics.setCondition(status.ready, status.degraded);
    options.observer?.runFinished({
      revision: result.revision,
      trigger: 'rollout',
      full: false,
      startedAt: startedAt.toISOString(),
      durationMs: result.durationMs,
      result: 'reconciled',
      counts: { ...NO_COUNTS, failed: failure === undefined ? 0 : 1 },
      subjects: failure === undefined ? [] : [{ subject: result.subject, outcome: 'failed', error: failure }],
      failingTotal: status.failedCount(),
    });
    if (rollback !== undefined) options.rollback(rollbacks);
  }

  return {
    follow(targets) {
      for (const target of targets) {
        if (stopping.signal.aborted) return;
        watches.get(target.subject)?.abort.abort();
        const abort = new AbortController();
        const signal = AbortSignal.any([stopping.signal, abort.signal]);
        const startedAt = new Date();
        const done = followRollouts([target], {
          api: options.api,
          signal,
          pollMs: options.pollMs,
          state,
          audit: options.audit,
        })
          .then(([result]) => (result === undefined ? undefined : settle(result, startedAt)))
          .catch((err: unknown) => {
            logger.error(
              { event: 'rollout.error', subject: target.subject, error: (err as Error).message },
              'rollout watch failed',
            );
          })
          .finally(() => {
            if (watches.get(target.subject)?.abort === abort) watches.delete(target.subject);
          });
        watches.set(target.subject, { abort, done });
      }
      refresh();
    },
    refresh,
    async stop() {
      stopping.abort();
      await Promise.all([...watches.values()].map((watch) => watch.done));
    },
  };
}
