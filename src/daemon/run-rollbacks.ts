/**
 * The rollout follow-up of the run loop: the watches of the rollouts a run's writes started
 * (rollouts.ts), and the rollbacks a failed watch asks for. A rollback is not applied by the
 * watch: it asks the run loop for a `rollback` run, which applies it first, in a stage of its
 * own (`apply`), unless the document changed since its rollout failed (the new document then
 * supersedes it).
 */
import type { ApiClient } from '../api/types.js';
import type { LoadResult } from '../config/loader.js';
import type { DesiredResource } from '../config/types.js';
import { reconcileRollbacks } from '../engine/reconcile.js';
import { DEFAULT_ROLLOUT_POLL_MS, type Rollback, type RolloutTarget } from '../engine/rollout.js';
import type { StateStore } from '../engine/state.js';
import type { Logger } from '../log.js';
import type { Lease } from '../state/backend.js';
import type { DaemonMetrics } from './metrics.js';
import type { RunObserver, RunTally } from './notify/run-summary.js';
import { createRolloutFollower } from './rollouts.js';
import type { ReconcileSettings } from './run-stage.js';
import type { StatusTracker } from './status.js';

export interface RollbackFollowUpOptions {
  readonly api: ApiClient;
  readonly state: StateStore;
  readonly settings: ReconcileSettings;
  readonly lease?: Lease;
  /** Aborted by fencing or a shutdown that timed out: the watches and a rollback in flight end. */
  readonly signal: AbortSignal;
  readonly status: StatusTracker;
  readonly metrics: DaemonMetrics;
  readonly logger: Logger;
  readonly audit: Logger;
  readonly observer?: RunObserver;
  /** False once the daemon stops: a failed watch asks for no run any more. */
  active(): boolean;
  /** Queues a `rollback` run for these subjects. */
  request(subjects: readonly string[]): void;
}

export interface RollbackFollowUp {
  /** Watches the rollouts a run's writes started. */
  follow(pending: readonly RolloutTarget[]): void;
  /** A run loaded these documents: rollbacks restore onto them, `/status` shows their apps. */
  loaded(resources: readonly DesiredResource[]): void;
  /** Whether a failed rollout asked for a rollback since the last run applied them. */
  readonly asked: boolean;
  /**
   * Applies the rollbacks asked for whose document did not change since its rollout failed,
   * adds them to the run's tally, and watches the rollouts they start.
   */
  apply(loaded: LoadResult, revision: string, tally: RunTally): Promise<void>;
  /** Ends every watch (each is recorded `aborted`). */
  stop(): Promise<void>;
}

export function createRollbackFollowUp(options: RollbackFollowUpOptions): RollbackFollowUp {
  const { state, settings, metrics, logger } = options;
  // The desired resources of the last successful load, for the watches' rollbacks.
  let lastLoaded: ReadonlyMap<string, DesiredResource> = new Map();
  /** Rollbacks the watches asked for, with the digest of the document whose rollout failed. */
  const rollbacks = new Map<string, { rollback: Rollback; documentDigest: string | undefined }>();
  const rollouts = createRolloutFollower({
    api: options.api,
    state,
    ...(options.lease === undefined ? {} : { lease: options.lease }),
    signal: options.signal,
    status: options.status,
    metrics,
    logger,
    audit: options.audit,
    ...(options.observer === undefined ? {} : { observer: options.observer }),
    pollMs: settings.rolloutPollMs ?? DEFAULT_ROLLOUT_POLL_MS,
    resources: () => lastLoaded,
    rollback(asked) {
      if (!options.active()) return;
      for (const rollback of asked) {
        const subject = rollback.resource.subject;
        rollbacks.set(subject, { rollback, documentDigest: lastLoaded.get(subject)?.digest });
      }
      options.request(asked.map((r) => r.resource.subject));
    },
  });

  return {
    follow: (pending) => rollouts.follow(pending),
    loaded(resources) {
      lastLoaded = new Map(resources.map((r) => [r.subject, r]));
      rollouts.refresh();
    },
    get asked() {
      return rollbacks.size > 0;
    },
    async apply(loaded, revision, tally) {
      const current = new Map(loaded.state.resources.map((r) => [r.subject, r.digest]));
      const still = [...rollbacks.values()]
        .filter((d) => current.get(d.rollback.resource.subject) === d.documentDigest)
        .map((d) => d.rollback);
      rollbacks.clear();
      if (still.length === 0) return;
      const outcome = await reconcileRollbacks(still, {
        api: options.api,
        state,
        selection: {
          revision,
          ...(settings.secrets === undefined ? {} : { secrets: settings.secrets }),
        },
        write: {
          mode: 'apply',
          driftMode: settings.driftMode,
          concurrency: settings.concurrency,
          maxChangePercent: settings.maxChangePercent,
          force: true,
          signal: options.signal,
          ...(options.lease === undefined ? {} : { lease: options.lease }),
          rollouts: 'detach',
        },
        report: { trigger: 'rollback', audit: options.audit },
      });
      tally.add(outcome.plan, outcome.apply);
      for (const result of outcome.apply?.results ?? [])
        metrics.countChange(result.kind, result.outcome, 'rollback');
      rollouts.follow(outcome.rollouts?.pending ?? []);
    },
    stop: () => rollouts.stop(),
  };
}
