/**
 * The run loop: what one daemon run does, and when the next one happens.
 *
 * Triggers (start-up, cron, file watcher, webhooks) only call `request`. The queue runs one
 * reconcile at a time and merges requests made meanwhile into one follow-up. Each run:
 *
 * 1. `git pull --ff-only` first when `--git-pull` is set and the trigger is a webhook, the
 *    schedule or start-up (`git-pull.ts`).
 * 2. Load incrementally. CONFIG_INVALID → `Stalled` (`stalled.ts`): nothing touches the API
 *    until a load succeeds again.
 * 3. Scope: schedule, webhook and start-up runs are full (they find drift made outside git);
 *    a file-change run reconciles only the subjects the loader reports added or changed, with
 *    `managedCount` = every resource so the change threshold means what it means in a full run.
 *    A full run whose load brought changes reconciles those first, then the rest: a webhook
 *    after its pull applies the push as fast as a file edit does.
 * 4. Reconcile (the engine emits the audit events), then record per-resource status, metrics,
 *    and on retryable failures a retry of just the failed subjects (`retry-state.ts`). While the
 *    files changed less than `--settle-ms` ago, a plan that deletes anything is not applied at
 *    all (`settle-hold.ts`, which shows it in /status): a file may be half-written, so a `settle`
 *    run follows once the files have been quiet that long. Edits that delete nothing apply at once.
 * 5. Tell the observer (the notifier): when a run starts writing, and a plain summary of how
 *    each run ended (`notify/run-summary.ts`).
 */
import type { ApiClient } from '../api/types.js';
import type { BackoffBounds } from '../backoff.js';
import { formatIssue } from '../config/issues.js';
import type { DesiredStateLoader, LoadResult } from '../config/loader.js';
import type { ConfigIssue, DesiredResource } from '../config/types.js';
import { reconcileRollbacks } from '../engine/reconcile.js';
import { DEFAULT_ROLLOUT_POLL_MS, type Rollback } from '../engine/rollout.js';
import type { StateStore } from '../engine/state.js';
import type { ChangeResult, Plan } from '../engine/types.js';
import { toReconcileError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Lease } from '../state/backend.js';
import { refreshApiGuardianGauges } from './api-guardian-gauges.js';
import { createGitPuller } from './git-pull.js';
import type { DaemonMetrics } from './metrics.js';
import { createRunTally, type RunObserver, type RunSummary, type RunTally } from './notify/run-summary.js';
import { createReconcileQueue, type RunRequest } from './queue.js';
import type { RecordMemory } from './remembered-record.js';
import { createRetryState, isRetryable } from './retry-state.js';
import { createRolloutFollower } from './rollouts.js';
import { createRunLoader } from './run-load.js';
import { type ReconcileSettings, reconcileStage, type StageContext, stagesOf } from './run-stage.js';
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

function sleep(ms: number): { promise: Promise<void>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

/** Creates the run loop; nothing runs until the first `request`. */
export function createController(options: ControllerOptions): Controller {
  const { status, metrics, logger, loader, state } = options;
  const runAbort = new AbortController();
  let stopping = false;
  const queue = createReconcileQueue(run);
  const pull = createGitPuller({ configPath: options.configPath, status, metrics, logger });
  const stalled = createStalledReporter({ status, metrics, logger, state });
  const unclaimed = createUnclaimedTracker({
    logger,
    status,
    metrics,
    ...(options.unclaimedMemory === undefined ? {} : { memory: options.unclaimedMemory }),
  });
  const retry = createRetryState({
    backoff: options.backoff,
    ...(options.random === undefined ? {} : { random: options.random }),
    status,
    logger,
    active: () => !stopping,
    fire(attempt, scope) {
      metrics.countTrigger('retry');
      logger.info({ event: 'trigger.received', reason: 'retry', attempt }, 'trigger received');
      queue.request('retry', scope === 'full' ? undefined : scope);
    },
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

  // Fencing: a lost lease ends the run in flight at once and lets no run follow.
  const fenced = (): void => {
    stopping = true;
    retry.cancel();
    hold.cancel();
    runAbort.abort(options.fence?.reason);
  };
  if (options.fence?.aborted === true) fenced();
  else options.fence?.addEventListener('abort', fenced, { once: true });

  // The desired resources of the last successful load, for the rollout watches' rollbacks.
  let lastLoaded: ReadonlyMap<string, DesiredResource> = new Map();
  /** Rollbacks the watches asked for, with the digest of the document whose rollout failed. */
  const rollbacks = new Map<string, { rollback: Rollback; documentDigest: string | undefined }>();
  const rollouts = createRolloutFollower({
    api: options.api,
    state,
    ...(options.lease === undefined ? {} : { lease: options.lease }),
    // Fencing and a shutdown that timed out end the watches too.
    signal: runAbort.signal,
    status,
    metrics,
    logger,
    audit: options.audit,
    ...(options.observer === undefined ? {} : { observer: options.observer }),
    pollMs: options.settings.rolloutPollMs ?? DEFAULT_ROLLOUT_POLL_MS,
    resources: () => lastLoaded,
    rollback(asked) {
      if (stopping) return;
      for (const rollback of asked) {
        const subject = rollback.resource.subject;
        rollbacks.set(subject, { rollback, documentDigest: lastLoaded.get(subject)?.digest });
      }
      metrics.countTrigger('rollback');
      logger.info(
        { event: 'trigger.received', reason: 'rollback', subjects: asked.map((r) => r.resource.subject) },
        'trigger received',
      );
      queue.request(
        'rollback',
        asked.map((r) => r.resource.subject),
      );
    },
  });

  /**
   * The rollbacks this run applies first, in a stage of their own (reconcileRollbacks): those
   * whose document did not change since its rollout failed (a changed one supersedes them).
   */
  async function applyRollbacks(loaded: LoadResult, revision: string, tally: RunTally): Promise<void> {
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
        ...(options.settings.secrets === undefined ? {} : { secrets: options.settings.secrets }),
      },
      write: {
        mode: 'apply',
        driftMode: options.settings.driftMode,
        concurrency: options.settings.concurrency,
        maxChangePercent: options.settings.maxChangePercent,
        force: true,
        signal: runAbort.signal,
        ...(options.lease === undefined ? {} : { lease: options.lease }),
        rollouts: 'detach',
      },
      report: { trigger: 'rollback', audit: options.audit },
    });
    tally.add(outcome.plan, outcome.apply);
    for (const result of outcome.apply?.results ?? [])
      metrics.countChange(result.kind, result.outcome, 'rollback');
    rollouts.follow(outcome.rollouts?.pending ?? []);
  }

  const stageContext: StageContext = {
    api: options.api,
    state,
    settings: options.settings,
    ...(options.lease === undefined ? {} : { lease: options.lease }),
    signal: runAbort.signal,
    status,
    metrics,
    audit: options.audit,
    ...(options.observer === undefined ? {} : { observer: options.observer }),
    follow: (pending) => rollouts.follow(pending),
  };
  const load = createRunLoader({ configPath: options.configPath, loader, stalled, status, metrics, logger });

  async function run(request: RunRequest): Promise<void> {
    const trigger = [...request.reasons].sort().join(',');
    // A full run covers whatever a pending retry would have retried.
    if (request.full) retry.cancel();
    const startedAt = new Date();
    const started = performance.now();
    status.runStarted();
    // The subjects this run covers once known: what a retry must cover if the run itself fails
    // (the loader has already reported them as changed and will not report them again).
    let scoped: readonly string[] | undefined;
    let revision: string | undefined;
    const results: ChangeResult[] = [];
    const tally = createRunTally(request.full);
    const report = (fields: Pick<RunSummary, 'result' | 'error' | 'issues'>): void =>
      options.observer?.runFinished({
        revision,
        trigger,
        full: request.full,
        startedAt: startedAt.toISOString(),
        durationMs: Math.round(performance.now() - started),
        ...tally.totals(),
        failingTotal: status.failedCount(),
        ...fields,
      });
    try {
      await options.settled?.();
      // Measured before the load: were the files this run reads already quiet for settleMs?
      const holdDestructive = hold.holds();
      if (options.gitPull && [...request.reasons].some((r) => PULL_REASONS.has(r))) await pull();
      const done = await load({ trigger, startedAt, started });
      if ('invalid' in done) {
        const { invalid } = done;
        revision = done.revision;
        const issues = (invalid.details?.issues ?? []) as ConfigIssue[];
        report({
          result: 'invalid',
          error: { code: invalid.code, message: invalid.message },
          issues: issues.map((issue) => formatIssue(issue)),
        });
        return;
      }
      const { loaded } = done;
      revision = done.revision;
      lastLoaded = new Map(loaded.state.resources.map((r) => [r.subject, r]));
      rollouts.refresh();
      // Known before the store is read again: if that read fails, the retry must still cover
      // the changed resources (the loader has reported them and will not again).
      const stages = stagesOf(request, loaded);
      scoped = stages.flat().map((resource) => resource.subject);
      // What this run prunes comes from the store as it is now, not from this process's memory
      // (docs/state.md, The writer's lease).
      await state.reload();
      // A removed document is read for even without --prune: its objects are pruned, or listed
      // as unclaimed (unclaimed.ts), never silently dropped from view.
      const removed = loaded.changes.removed.length > 0;
      if (scoped.length === 0 && !removed) {
        // A comment or a removed document: nothing to read or write. The revision moved on.
        logger.debug(
          { event: 'reconcile.skipped', trigger, revision, removed: loaded.changes.removed },
          'no resource changed',
        );
        metrics.setResources(status.countsByKind());
        if (status.failedCount() === 0 && !retry.pending) status.applied(revision);
        status.setRunError(null);
        report({ result: 'reconciled' });
        return;
      }
      if (rollbacks.size > 0) await applyRollbacks(loaded, revision, tally);
      let at = new Date();
      let writes = 0;
      let lastPlan: Plan | undefined;
      for (const [index, scope] of stages.entries()) {
        const staged = await reconcileStage(stageContext, {
          scope,
          loaded,
          revision,
          trigger,
          writesBefore: writes,
          tally,
          full: request.full,
          last: index === stages.length - 1,
          holdDestructive,
        });
        if (staged.deferred !== undefined) {
          // A removed document's prune is scoped by this load alone: the settle run must be full.
          const full = request.full || loaded.changes.removed.length > 0;
          await hold.defer({ full, scope: scoped, trigger, revision, startedAt, plan: staged.deferred });
          return;
        }
        results.push(...staged.results);
        writes += staged.writes;
        at = staged.at;
        lastPlan = staged.plan;
      }
      // Only the last stage judged the lifecycle with everything applied before it.
      if (lastPlan !== undefined) {
        unclaimed.observe(
          lastPlan.notPruned ?? [],
          request.full ? 'full' : new Set([...scoped, ...loaded.changes.removed]),
        );
      }
      hold.reconciled(request.full ? 'full' : scoped);
      const failed = results.filter((r) => r.outcome === 'failed');
      metrics.observeReconcile(
        failed.length > 0 ? 'failed' : 'success',
        Math.round(performance.now() - started),
      );
      status.setRunError(null);
      if (failed.length === 0) {
        status.setLastError(null);
        metrics.setLastSuccess(at);
      } else {
        const first = failed[0] as ChangeResult;
        status.setLastError({
          code: first.error?.code ?? 'APPLY_PARTIAL',
          message: `${failed.length} of ${scoped.length} resources failed; first: ${first.subject}: ${first.error?.message ?? 'failed'}`,
          at: at.toISOString(),
        });
      }
      if (status.failedCount() === 0) status.applied(revision, at);
      report({ result: 'reconciled' });
      // Full runs only: a file-change run reads just the changed resources (the push-to-applied path).
      if (request.full) {
        await refreshApiGuardianGauges(loaded.state.resources, {
          api: options.api,
          metrics,
          logger,
          signal: runAbort.signal,
        });
      }
      const retryable = failed.filter((r) => isRetryable(r.error?.code ?? ''));
      const firstRetryable = retryable[0];
      if (firstRetryable !== undefined) {
        retry.schedule(
          retryable.map((r) => r.subject),
          firstRetryable.error?.code as string,
        );
      } else if (!retry.pending) {
        // A full run cancelled any pending retry when it started; a scoped run leaves one alone.
        retry.reset();
      }
    } catch (err) {
      const error = toReconcileError(err);
      const durationMs = Math.round(performance.now() - started);
      metrics.observeReconcile('failed', durationMs);
      const shown = { code: error.code, message: error.message, at: new Date().toISOString() };
      status.setLastError(shown);
      status.setRunError(shown);
      if (stopping) {
        const by = options.fence?.aborted === true ? 'lease-lost' : 'shutdown';
        logger.warn({ event: 'reconcile.aborted', code: error.code, by }, `reconcile ended by ${by}`);
        return;
      }
      logger.error({ event: 'reconcile.error', code: error.code, error: error.message }, 'reconcile failed');
      report({ result: 'error', error: { code: error.code, message: error.message } });
      // Unexpected failures (state directory, file system) are retried like API outages.
      retry.schedule(request.full ? 'full' : (scoped ?? [...(request.subjects ?? [])]), error.code);
    } finally {
      hold.ran(request.reasons);
      status.runFinished();
      metrics.setCondition(status.ready, status.degraded);
    }
  }

  return {
    request(reason, details = {}) {
      if (stopping) return;
      metrics.countTrigger(reason);
      // The log's own fields win over the details (a hook's `event` is the GitHub event name).
      logger.info({ ...details, event: 'trigger.received', reason }, 'trigger received');
      queue.request(reason, reason === 'file-change' ? [] : undefined);
    },
    noteRetryAfter: (ms) => retry.noteRetryAfter(ms),
    idle: () => queue.idle(),
    async stop(timeoutMs) {
      stopping = true;
      retry.cancel();
      hold.cancel();
      // Watches end at once (recorded `aborted`); the next leader watches the next write.
      await rollouts.stop();
      const closed = queue.close();
      const timeout = sleep(timeoutMs);
      const timedOut = await Promise.race([closed.then(() => false), timeout.promise.then(() => true)]);
      timeout.cancel();
      if (!timedOut) return { aborted: false };
      logger.warn(
        { event: 'daemon.shutdown.timeout', timeoutMs },
        'the run in flight outlived the shutdown timeout; aborting it',
      );
      runAbort.abort();
      // Aborted requests end at once; the bound only guards against a bug keeping us here.
      const grace = sleep(5000);
      await Promise.race([closed, grace.promise]);
      grace.cancel();
      return { aborted: true };
    },
  };
}
