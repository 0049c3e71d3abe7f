/**
 * The run loop: what one daemon run does, and when the next one happens.
 *
 * Triggers (start-up, cron, file watcher, webhooks) only call `request`. The queue runs one
 * reconcile at a time and merges requests made meanwhile into one follow-up. Each run:
 *
 * 1. `git pull --ff-only` first when `--git-pull` is set, the trigger is a webhook, the
 *    schedule or start-up, and the config directory is a git work tree. A failed pull is
 *    logged and shown in /status; the run goes on with the checkout it has (the last good
 *    revision stays).
 * 2. Load incrementally. CONFIG_INVALID → `Stalled`: the issues are logged (once per distinct
 *    set) and shown in /status, and nothing touches the API until a load succeeds again.
 * 3. Scope: schedule, webhook and start-up runs are full (they find drift made outside git);
 *    a file-change run reconciles only the subjects the loader reports added or changed, with
 *    `managedCount` = every resource so the change threshold means what it means in a full run.
 *    A full run whose load brought changes reconciles those first, then the rest: a webhook
 *    after its pull applies the push as fast as a file edit does.
 * 4. Reconcile (the engine emits the audit events), then record per-resource status, metrics,
 *    and on retryable failures (API unavailable, rate limited, a read that failed) a retry of
 *    just the failed subjects with exponential backoff and jitter, reset after a success.
 */
import type { ApiClient } from '../api/types.js';
import { formatIssue } from '../config/issues.js';
import type { DesiredStateLoader, LoadResult } from '../config/loader.js';
import type { ConfigIssue, DesiredResource } from '../config/types.js';
import type { SecretReader } from '../domain/secret-sources.js';
import { desiredShieldZones, readApiGuardianTotals } from '../engine/api-guardian.js';
import { withConflictPeers } from '../engine/conflicts.js';
import {
  COMPACT_FROM_RESOURCES,
  currentRuntime,
  type RuntimeFlags,
  releaseHeap,
  youngGenerationUncapped,
} from '../engine/heap.js';
import { reconcile } from '../engine/reconcile.js';
import type { StateStore } from '../engine/state.js';
import type { ChangeResult } from '../engine/types.js';
import { ERROR_CODES, type ErrorCode, type ReconcileError, toReconcileError } from '../errors.js';
import {
  gitPullFastForward,
  isGitWorkTree,
  type PendingHead,
  resolveRevision,
  startGitHead,
} from '../git.js';
import type { Logger } from '../log.js';
import { type BackoffBounds, backoffDelay } from './backoff.js';
import type { DaemonMetrics } from './metrics.js';
import { createRunTally, type RunObserver, type RunSummary, type RunTally } from './notify/run-summary.js';
import { createReconcileQueue, type RunRequest } from './queue.js';
import type { StatusTracker } from './status.js';
import { realpathOrUndefined } from './watcher.js';

/** Why a run is requested. `retry` is the controller's own backoff. */
export type TriggerReason = 'startup' | 'schedule' | 'file-change' | 'webhook' | 'retry';

/** Reasons that pull first with `--git-pull` (a file change is already on disk). */
const PULL_REASONS: ReadonlySet<string> = new Set(['startup', 'schedule', 'webhook']);

/** How the engine is driven: the flags of `plan`/`apply` that the daemon shares. */
export interface ReconcileSettings {
  readonly concurrency: number;
  readonly maxChangePercent: number;
  readonly force: boolean;
  readonly driftMode: 'correct' | 'report';
  /** `--prune`: delete custom rules and lists no document claims (design §7). */
  readonly prune?: boolean;
  /** Where container secrets (`valueFrom`) are read from. */
  readonly secrets?: SecretReader;
}

/** Everything a controller works with; the daemon builds these. */
export interface ControllerOptions {
  /** The config path as configured (absolute; may be a symlink a git-sync sidecar swaps). */
  readonly configPath: string;
  readonly gitPull: boolean;
  readonly api: ApiClient;
  readonly state: StateStore;
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
  /** The runtime whose heap flags the first big load checks (default: this process's). */
  readonly runtime?: RuntimeFlags;
  /** Told when a run starts writing and how each run ended (the notifier). */
  readonly observer?: RunObserver;
}

/** The run loop of one daemon. */
export interface Controller {
  /** Logs `trigger.received` and asks for a run (full, or file-change scoped). Ignored once stopping. */
  request(reason: Exclude<TriggerReason, 'retry'>, details?: Readonly<Record<string, unknown>>): void;
  /** Resolves when no run is in progress or queued (a pending retry timer does not count). */
  idle(): Promise<void>;
  /**
   * Stops: cancels a pending retry, drops queued requests, lets the run in flight finish for up
   * to `timeoutMs`, then aborts it through its AbortSignal. Resolves `aborted: true` in that case.
   */
  stop(timeoutMs: number): Promise<{ aborted: boolean }>;
}

/** Pull errors may quote a remote URL; never let credentials in one reach a log or /status. */
export function redactCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, '$1[redacted]@');
}

function isRetryable(code: string): boolean {
  return Object.hasOwn(ERROR_CODES, code) && ERROR_CODES[code as ErrorCode].retryable;
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
  const random = options.random ?? Math.random;
  const runAbort = new AbortController();
  let stopping = false;
  // The last issue set reported, so a stalled daemon does not repeat itself every tick.
  let reportedIssues: string | undefined;
  // Resources in the desired state at the last load (see the end of run()).
  let stateSize = 0;
  // Said once: the first load big enough for the young generation's size to matter.
  let heapFlagsChecked = false;
  /** The retry waiting for its timer, and what it covers: 'full', or these subjects. */
  let pendingRetry: { timer: NodeJS.Timeout; scope: 'full' | Set<string> } | undefined;
  let retryAttempt = 0;

  const queue = createReconcileQueue(run);

  function cancelRetryTimer(): void {
    if (pendingRetry !== undefined) clearTimeout(pendingRetry.timer);
    pendingRetry = undefined;
  }

  function resetBackoff(): void {
    if (retryAttempt === 0 && pendingRetry === undefined) return;
    cancelRetryTimer();
    retryAttempt = 0;
    status.setRetry(null);
  }

  function scheduleRetry(scope: 'full' | readonly string[], code: string): void {
    if (stopping) return;
    const before = pendingRetry?.scope;
    const covered: 'full' | Set<string> =
      scope === 'full' || before === 'full' ? 'full' : new Set([...(before ?? []), ...scope]);
    cancelRetryTimer();
    retryAttempt += 1;
    const attempt = retryAttempt;
    const delayMs = backoffDelay(attempt, options.backoff, random);
    const at = new Date(Date.now() + delayMs);
    status.setRetry({ attempt, at });
    logger.info(
      {
        event: 'retry.scheduled',
        attempt,
        delayMs,
        code,
        scope: covered === 'full' ? 'full' : covered.size,
      },
      'retry scheduled',
    );
    // stop() cancels the timer before anything else, so a timer that fires is never late.
    const timer = setTimeout(() => {
      pendingRetry = undefined;
      metrics.countTrigger('retry');
      logger.info({ event: 'trigger.received', reason: 'retry', attempt }, 'trigger received');
      queue.request('retry', covered === 'full' ? undefined : covered);
    }, delayMs);
    pendingRetry = { timer, scope: covered };
  }

  // The real directory last found to be a work tree: asking git again costs a process spawn
  // (~10 ms) on every webhook. A git-sync swap gives a new real path, which is asked afresh.
  let knownWorkTree: string | undefined;

  async function pull(): Promise<void> {
    const dir = realpathOrUndefined(options.configPath);
    if (dir === undefined || (dir !== knownWorkTree && !(await isGitWorkTree(dir)))) {
      logger.debug({ event: 'git.pull.skipped' }, 'config directory is not a git work tree; nothing to pull');
      return;
    }
    knownWorkTree = dir;
    const at = new Date().toISOString();
    try {
      await gitPullFastForward(dir);
      status.setPull({ at, ok: true });
      logger.debug({ event: 'git.pull.done' }, 'git pull done');
    } catch (err) {
      const error = redactCredentials((err as Error).message);
      status.setPull({ at, ok: false, error });
      metrics.countGitPullFailure();
      logger.warn({ event: 'git.pull.failed', error }, 'git pull failed; the last good revision stays');
    }
  }

  async function onInvalid(
    error: ReconcileError,
    trigger: string,
    startedAt: Date,
    started: number,
    pendingHead: PendingHead | undefined,
  ): Promise<void> {
    const issues = (error.details?.issues ?? []) as ConfigIssue[];
    const revision = await pendingHead?.head;
    const at = new Date();
    if (revision !== undefined) status.attempted(revision);
    status.stalled(issues, { code: error.code, message: error.message, at: at.toISOString() });
    metrics.setConfigValid(false);
    const durationMs = Math.round(performance.now() - started);
    metrics.observeReconcile('invalid', durationMs);
    const key = JSON.stringify(issues);
    if (key === reportedIssues) {
      logger.debug(
        { event: 'config.still-invalid', trigger },
        'config still invalid; waiting for the files to change',
      );
      return;
    }
    reportedIssues = key;
    state.addRun({
      revision: revision ?? 'unknown',
      trigger,
      startedAt: startedAt.toISOString(),
      durationMs,
      result: 'invalid',
      counts: { issues: issues.length },
      error: error.message,
    });
    try {
      await state.save();
    } catch (err) {
      logger.warn(
        { event: 'state.save.failed', error: toReconcileError(err).message },
        'cannot save the state',
      );
    }
    // Logged last: by the time anyone reads it, the run is over and /status says Stalled.
    logger.error(
      {
        event: 'config.invalid',
        trigger,
        ...(revision === undefined ? {} : { revision }),
        issues: issues.map((issue) => formatIssue(issue)),
      },
      'config invalid; nothing is written until the files change',
    );
  }

  /**
   * The resources a run covers, in the order it reconciles them. A scoped run: the changed ones
   * plus the ones a retry asked for. A full run: all of them, except that when its load brought
   * changes (a webhook's pull, a push the schedule found) those go first, in a stage of their
   * own, so a push is applied as fast as a file edit rather than after a read of everything.
   */
  function stagesOf(request: RunRequest, loaded: LoadResult): readonly (readonly DesiredResource[])[] {
    const all = loaded.state.resources;
    const wanted = new Set([...loaded.changes.added, ...loaded.changes.changed, ...(request.subjects ?? [])]);
    // With the documents that may reach the same live object: their conflict must show here too.
    const changed = withConflictPeers(
      all.filter((resource) => wanted.has(resource.subject)),
      all,
    );
    if (!request.full) return [changed];
    if (changed.length === 0 || changed.length === all.length) return [all];
    const first = new Set(changed.map((resource) => resource.subject));
    return [changed, all.filter((resource) => !first.has(resource.subject))];
  }

  /**
   * One reconcile of `scope`: records each resource's status and the drift and change metrics.
   * Returns when it ended, its failures, and the writes it planned (`writesBefore` counts them
   * into the next stage's change threshold).
   */
  async function reconcileStage(
    scope: readonly DesiredResource[],
    loaded: LoadResult,
    revision: string,
    trigger: string,
    writesBefore: number,
    tally: RunTally,
    full: boolean,
    /** Only the last stage of a run prunes, once the documents of the first are applied. */
    last: boolean,
  ): Promise<{ at: Date; failed: ChangeResult[]; writes: number }> {
    const outcome = await reconcile(scope, {
      api: options.api,
      state,
      mode: 'apply',
      revision,
      trigger,
      concurrency: options.settings.concurrency,
      maxChangePercent: options.settings.maxChangePercent,
      force: options.settings.force,
      driftMode: options.settings.driftMode,
      signal: runAbort.signal,
      managedCount: loaded.state.resources.length,
      writesBefore,
      audit: options.audit,
      // Claims are global; a file-change run prunes only what its removed documents owned.
      prune: options.settings.prune === true && last,
      all: loaded.state.resources,
      ...(full ? {} : { removed: loaded.changes.removed }),
      beforeApply: (plan) => {
        const writes = plan.summary.toUpdate;
        if (writes > 0) options.observer?.applyStarting({ revision, trigger, writes });
      },
      ...(options.settings.secrets === undefined ? {} : { secrets: options.settings.secrets }),
    });
    tally.add(outcome.plan, outcome.apply);
    const at = new Date();
    const results = new Map((outcome.apply?.results ?? []).map((r) => [r.subject, r]));
    const failed: ChangeResult[] = [];
    for (const change of outcome.plan.changes) {
      if (change.diffs.length > 0) metrics.countDrift(change.kind, change.cause);
      const result = results.get(change.subject);
      if (result === undefined) continue;
      status.recordResult(change, result, at);
      metrics.countChange(change.kind, result.outcome, change.action);
      if (result.outcome === 'failed') failed.push(result);
    }
    metrics.setResources(status.countsByKind());
    return { at, failed, writes: outcome.plan.summary.toUpdate };
  }

  /**
   * E9 totals of every Shield Zone in the desired state, as gauges, after each full run. A
   * failed read keeps the zone's last values and is logged: it never fails the reconcile.
   */
  async function refreshApiGuardian(resources: readonly DesiredResource[]): Promise<void> {
    const zones = desiredShieldZones(resources);
    metrics.retainApiGuardian(new Set(zones));
    const readings = await readApiGuardianTotals(options.api, zones, { signal: runAbort.signal });
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

  async function run(request: RunRequest): Promise<void> {
    const trigger = [...request.reasons].sort().join(',');
    // A full run covers whatever a pending retry would have retried.
    if (request.full) cancelRetryTimer();
    const startedAt = new Date();
    const started = performance.now();
    status.runStarted();
    // The subjects this run covers once known: what a retry must cover if the run itself fails
    // (the loader has already reported them as changed and will not report them again).
    let scoped: readonly string[] | undefined;
    let revision: string | undefined;
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
      if (options.gitPull && [...request.reasons].some((r) => PULL_REASONS.has(r))) await pull();
      let loaded: LoadResult;
      // The revision's git process runs beside the load, on the directory the load resolves to.
      const realDir = realpathOrUndefined(options.configPath);
      const pendingHead = realDir === undefined ? undefined : startGitHead(realDir);
      try {
        const loadStarted = performance.now();
        loaded = await loader.load(options.configPath);
        logger.debug(
          {
            event: 'config.loaded',
            ...loaded.stats,
            durationMs: Math.round(performance.now() - loadStarted),
          },
          'config loaded',
        );
      } catch (err) {
        const error = toReconcileError(err);
        if (error.code !== 'CONFIG_INVALID') throw error;
        await onInvalid(error, trigger, startedAt, started, pendingHead);
        revision = await pendingHead?.head;
        const issues = (error.details?.issues ?? []) as ConfigIssue[];
        report({
          result: 'invalid',
          error: { code: error.code, message: error.message },
          issues: issues.map((issue) => formatIssue(issue)),
        });
        return;
      }
      revision = await resolveRevision(loaded.state.configDir, loaded.state.digest, pendingHead);
      if (reportedIssues !== undefined) {
        logger.info({ event: 'config.valid', revision }, 'config valid again');
        reportedIssues = undefined;
      }
      stateSize = loaded.state.resources.length;
      if (!heapFlagsChecked && stateSize >= COMPACT_FROM_RESOURCES) {
        heapFlagsChecked = true;
        if (youngGenerationUncapped(options.runtime ?? currentRuntime())) {
          logger.warn(
            { event: 'daemon.memory', resources: stateSize, node: process.version },
            "V8's young generation is not capped: with this many resources the daemon may pass 200 MB of RSS; start it with NODE_OPTIONS=--max-semi-space-size=4, as the image does",
          );
        }
      }
      status.loaded(revision);
      status.syncResources(loaded.state.resources);
      metrics.setConfigValid(true);
      const stages = stagesOf(request, loaded);
      scoped = stages.flat().map((resource) => resource.subject);
      const pruneRemoved = options.settings.prune === true && loaded.changes.removed.length > 0;
      if (scoped.length === 0 && !pruneRemoved) {
        // A comment or a removed document: nothing to read or write. The revision moved on.
        logger.debug(
          { event: 'reconcile.skipped', trigger, revision, removed: loaded.changes.removed },
          'no resource changed',
        );
        metrics.setResources(status.countsByKind());
        if (status.failedCount() === 0 && pendingRetry === undefined) status.applied(revision);
        report({ result: 'reconciled' });
        return;
      }
      const failed: ChangeResult[] = [];
      let at = new Date();
      let writes = 0;
      for (const [index, stage] of stages.entries()) {
        const last = index === stages.length - 1;
        const done = await reconcileStage(
          stage,
          loaded,
          revision,
          trigger,
          writes,
          tally,
          request.full,
          last,
        );
        failed.push(...done.failed);
        writes += done.writes;
        at = done.at;
      }
      metrics.observeReconcile(
        failed.length > 0 ? 'failed' : 'success',
        Math.round(performance.now() - started),
      );
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
      if (request.full) await refreshApiGuardian(loaded.state.resources);
      const retryable = failed.filter((r) => isRetryable(r.error?.code ?? ''));
      const first = retryable[0];
      if (first !== undefined) {
        scheduleRetry(
          retryable.map((r) => r.subject),
          first.error?.code as string,
        );
      } else if (pendingRetry === undefined) {
        // A full run cancelled any pending retry when it started; a scoped run leaves one alone.
        resetBackoff();
      }
    } catch (err) {
      const error = toReconcileError(err);
      const durationMs = Math.round(performance.now() - started);
      metrics.observeReconcile('failed', durationMs);
      status.setLastError({ code: error.code, message: error.message, at: new Date().toISOString() });
      if (stopping) {
        logger.warn({ event: 'reconcile.aborted', code: error.code }, 'reconcile ended by shutdown');
        return;
      }
      logger.error({ event: 'reconcile.error', code: error.code, error: error.message }, 'reconcile failed');
      report({ result: 'error', error: { code: error.code, message: error.message } });
      // Unexpected failures (state directory, file system) are retried like API outages.
      scheduleRetry(request.full ? 'full' : (scoped ?? [...(request.subjects ?? [])]), error.code);
    } finally {
      status.runFinished();
      // A run of one resource leaves the garbage of an incremental load, a status rebuild
      // (~2.5 MB of JSON at 10,000 resources) and its reconcile; too small for the engine's
      // own collections, big enough to pile up: RSS climbed 184 → 194 MB over 12 such runs,
      // and stays flat with this (~30 ms a collection at 10,000 resources).
      releaseHeap(stateSize);
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
    idle: () => queue.idle(),
    async stop(timeoutMs) {
      stopping = true;
      cancelRetryTimer();
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
