/**
 * The run loop: when a daemon run happens (what one run does is run.ts).
 *
 * Triggers (start-up, cron, file watcher, webhooks) only call `request`; the daemon's own
 * triggers are the retry after retryable failures (`retry-state.ts`), the `settle` run after a
 * plan that deletes was held back (`settle-hold.ts`), and a `rollback` run for a failed rollout
 * (`run-rollbacks.ts`). The queue (`queue.ts`) runs one reconcile at a time and merges requests
 * made meanwhile into one follow-up. Schedule, webhook and start-up runs are full (they find
 * drift made outside git); a file-change run reconciles only the subjects the loader reports
 * added or changed.
 *
 * A lost lease (fencing) or a shutdown ends it: no run follows, and the run in flight is
 * aborted at once (fencing) or after the shutdown timeout.
 */
import type { ApiClient } from '../api/types.js';
import type { BackoffBounds } from '../backoff.js';
import type { DesiredStateLoader } from '../config/loader.js';
import type { StateStore } from '../engine/state.js';
import type { Logger } from '../log.js';
import type { Lease } from '../state/backend.js';
import { createGitPuller } from './git-pull.js';
import type { DaemonMetrics } from './metrics.js';
import type { RunObserver } from './notify/run-summary.js';
import { createReconcileQueue } from './queue.js';
import type { RecordMemory } from './remembered-record.js';
import { createRetryState } from './retry-state.js';
import { createRun } from './run.js';
import { createRunLoader } from './run-load.js';
import { createRollbackFollowUp } from './run-rollbacks.js';
import type { ReconcileSettings } from './run-stage.js';
import { createSettleHold } from './settle-hold.js';
import { createStalledReporter } from './stalled.js';
import type { StatusTracker } from './status.js';
import { createUnclaimedTracker } from './unclaimed.js';

export type { ReconcileSettings } from './run-stage.js';

/** Why a run is requested. `retry` is the controller's own backoff; `rollback`, a failed rollout's remediation. */
type TriggerReason = 'startup' | 'schedule' | 'file-change' | 'webhook' | 'retry' | 'settle' | 'rollback';

/** Reasons that pull first with `--git-pull` (a file change is already on disk). */
const PULL_REASONS: ReadonlySet<string> = new Set(['startup', 'schedule', 'webhook']);

/** Everything a controller works with; the daemon builds these. */
export interface ControllerOptions {
  /** The config path as configured (absolute; may be a symlink a git-sync sidecar swaps). */
  readonly configPath: string;
  readonly gitPull: boolean;
  readonly api: ApiClient;
  readonly state: StateStore;
  /** The writer's lease: checked before each write, carried by each save. */
  readonly lease?: Lease;
  /**
   * Fencing: aborted when the lease is lost. The run in flight is aborted at once (no further
   * request goes out, also none waiting in the API client's retry backoff) and no run follows.
   */
  readonly fence?: AbortSignal;
  readonly loader: DesiredStateLoader;
  readonly settings: ReconcileSettings;
  readonly backoff: BackoffBounds;
  readonly status: StatusTracker;
  readonly metrics: DaemonMetrics;
  /** `component: daemon`: trigger, config, git and retry events. */
  readonly logger: Logger;
  /** `component: audit`: the engine's reconcile events. */
  readonly audit: Logger;
  readonly random?: () => number;
  /** Told when a run starts writing and how each run ended (the notifier). */
  readonly observer?: RunObserver;
  /**
   * Resolves once the files the watcher saw change kept their size, mtime and inode for the
   * debounce (the watcher's `settled`): every run waits for it before it reads.
   */
  readonly settled?: () => Promise<void>;
  /** Milliseconds since a config file last changed (the watcher's `quietForMs`); Infinity if none. */
  readonly quietForMs?: () => number;
  /**
   * `--settle-ms`: how long the files must have been quiet before a run may apply a plan that
   * deletes anything. A short debounce cannot tell a finished file from a writer's pause.
   */
  readonly settleMs?: number;
  /** The state store's `unclaimed` record: the objects already reported survive a restart. */
  readonly unclaimedMemory?: RecordMemory;
}

/** The run loop of one daemon. */
export interface Controller {
  /** Logs `trigger.received` and asks for a run (full, or file-change scoped). Ignored once stopping. */
  request(
    reason: Exclude<TriggerReason, 'retry' | 'settle' | 'rollback'>,
    details?: Readonly<Record<string, unknown>>,
  ): void;
  /** The API asked to wait this long (a reply's Retry-After): the next retry waits at least that. */
  noteRetryAfter(ms: number): void;
  /** Resolves when no run is in progress or queued (a pending retry timer does not count). */
  idle(): Promise<void>;
  /**
   * Stops: cancels a pending retry, drops queued requests, lets the run in flight finish for up
   * to `timeoutMs`, then aborts it through its AbortSignal. Resolves `aborted: true` in that case.
   */
  stop(timeoutMs: number): Promise<{ aborted: boolean }>;
}

/** Whether `done` settles within `ms`; the timer does not outlive the answer. */
async function within(done: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([done.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Creates the run loop; nothing runs until the first `request`. */
export function createController(options: ControllerOptions): Controller {
  const { status, metrics, logger, state } = options;
  const runAbort = new AbortController();
  let stopping = false;
  const queue = createReconcileQueue((request) => run(request));
  /** Every trigger, the daemon's own included, is counted and logged, then queued. */
  const trigger = (
    reason: TriggerReason,
    fields: Readonly<Record<string, unknown>>,
    subjects?: Iterable<string>,
  ) => {
    metrics.countTrigger(reason);
    // The log's own fields win over the details (a hook's `event` is the GitHub event name).
    logger.info({ ...fields, event: 'trigger.received', reason }, 'trigger received');
    queue.request(reason, subjects);
  };
  const retry = createRetryState({
    backoff: options.backoff,
    ...(options.random === undefined ? {} : { random: options.random }),
    status,
    logger,
    active: () => !stopping,
    fire: (attempt, scope) => trigger('retry', { attempt }, scope === 'full' ? undefined : scope),
  });
  const hold = createSettleHold({
    settleMs: options.settleMs ?? 0,
    quietForMs: options.quietForMs ?? (() => Number.POSITIVE_INFINITY),
    logger,
    status,
    metrics,
    state,
    active: () => !stopping,
    fire(scope) {
      metrics.countTrigger('settle');
      queue.request('settle', scope);
    },
  });
  const shared = {
    api: options.api,
    state,
    settings: options.settings,
    ...(options.lease === undefined ? {} : { lease: options.lease }),
    // Fencing and a shutdown that timed out end the run in flight and the rollout watches.
    signal: runAbort.signal,
    status,
    metrics,
    audit: options.audit,
    ...(options.observer === undefined ? {} : { observer: options.observer }),
  };
  const rollbacks = createRollbackFollowUp({
    ...shared,
    logger,
    active: () => !stopping,
    request: (subjects) => trigger('rollback', { subjects }, subjects),
  });
  const stalled = createStalledReporter({ status, metrics, logger, state });
  const run = createRun({
    ...(options.settled === undefined ? {} : { settled: options.settled }),
    ...(options.gitPull
      ? {
          pull: {
            reasons: PULL_REASONS,
            run: createGitPuller({ configPath: options.configPath, status, metrics, logger }),
          },
        }
      : {}),
    load: createRunLoader({
      configPath: options.configPath,
      loader: options.loader,
      stalled,
      status,
      metrics,
      logger,
    }),
    state,
    stage: { ...shared, follow: (pending) => rollbacks.follow(pending) },
    hold,
    rollbacks,
    unclaimed: createUnclaimedTracker({
      logger,
      status,
      metrics,
      ...(options.unclaimedMemory === undefined ? {} : { memory: options.unclaimedMemory }),
    }),
    retry,
    record: {
      status,
      metrics,
      logger,
      ...(options.observer === undefined ? {} : { observer: options.observer }),
    },
    api: options.api,
    stoppedBy: () => (!stopping ? undefined : options.fence?.aborted === true ? 'lease-lost' : 'shutdown'),
  });

  // Fencing: a lost lease ends the run in flight at once and lets no run follow.
  const fenced = (): void => {
    stopping = true;
    retry.cancel();
    hold.cancel();
    runAbort.abort(options.fence?.reason);
  };
  if (options.fence?.aborted === true) fenced();
  else options.fence?.addEventListener('abort', fenced, { once: true });

  return {
    request(reason, details = {}) {
      if (stopping) return;
      trigger(reason, details, reason === 'file-change' ? [] : undefined);
    },
    noteRetryAfter: (ms) => retry.noteRetryAfter(ms),
    idle: () => queue.idle(),
    async stop(timeoutMs) {
      stopping = true;
      retry.cancel();
      hold.cancel();
      // Watches end at once (recorded `aborted`); the next leader watches the next write.
      await rollbacks.stop();
      const closed = queue.close();
      const finished = await within(closed, timeoutMs);
      if (finished) return { aborted: false };
      logger.warn(
        { event: 'daemon.shutdown.timeout', timeoutMs },
        'the run in flight outlived the shutdown timeout; aborting it',
      );
      runAbort.abort();
      // Aborted requests end at once; the bound only guards against a bug keeping us here.
      await within(closed, 5000);
      return { aborted: true };
    },
  };
}
