/**
 * What one daemon run does, step by step (controller.ts decides when runs happen):
 *
 * 1. Wait for the watcher's debounce, note whether the files were quiet for `--settle-ms`,
 *    and `git pull --ff-only` first when `--git-pull` is set and a reason asks for it.
 * 2. Load (run-load.ts). CONFIG_INVALID → `Stalled`: reported, nothing touches the API.
 * 3. Apply the rollbacks failed rollouts asked for (run-rollbacks.ts), then reconcile the
 *    run's stages in order (run-stage.ts). A stage that would delete while the files are not
 *    settled defers the run to a `settle` run (settle-hold.ts).
 * 4. Record how it ended and tell the notifier (run-record.ts); list unclaimed objects
 *    (unclaimed.ts); on a full run, refresh the API guardian gauges; on retryable failures,
 *    schedule a retry of just the failed subjects (retry-state.ts).
 */
import type { ApiClient } from '../api/types.js';
import { formatIssue } from '../config/issues.js';
import type { ConfigIssue } from '../config/types.js';
import type { StateStore } from '../engine/state.js';
import type { ChangeResult, Plan } from '../engine/types.js';
import { toReconcileError } from '../errors.js';
import { refreshApiGuardianGauges } from './api-guardian-gauges.js';
import { createRunTally } from './notify/run-summary.js';
import type { RunRequest } from './queue.js';
import { isRetryable, type RetryState } from './retry-state.js';
import type { RunLoad, RunStart } from './run-load.js';
import {
  type RunRecordContext,
  type RunStarted,
  recordNothingToDo,
  recordReconciled,
  recordRunError,
  reportRun,
} from './run-record.js';
import type { RollbackFollowUp } from './run-rollbacks.js';
import { reconcileStage, type StageContext, stagesOf } from './run-stage.js';
import type { SettleHold } from './settle-hold.js';
import type { UnclaimedTracker } from './unclaimed.js';

/** The parts a run goes through, built once per controller. */
export interface RunParts {
  /** Resolves once the files the watcher saw change are settled (its debounce). */
  readonly settled?: () => Promise<void>;
  /** `git pull --ff-only` first, for a run with one of these reasons (`--git-pull`). */
  readonly pull?: { readonly reasons: ReadonlySet<string>; readonly run: () => Promise<void> };
  readonly load: (run: RunStart) => Promise<RunLoad>;
  readonly state: StateStore;
  readonly stage: StageContext;
  readonly hold: SettleHold;
  readonly rollbacks: RollbackFollowUp;
  readonly unclaimed: UnclaimedTracker;
  readonly retry: RetryState;
  readonly record: RunRecordContext;
  /** For the guardian gauges a full run refreshes. */
  readonly api: ApiClient;
  /** Why the daemon stops, once it does: a run it ends is neither reported nor retried. */
  stoppedBy(): 'lease-lost' | 'shutdown' | undefined;
}

/** The run function the controller's queue calls, one request at a time. */
export function createRun(parts: RunParts): (request: RunRequest) => Promise<void> {
  const { state, hold, retry, record } = parts;
  const { status, metrics, logger } = record;

  return async (request) => {
    // A full run covers whatever a pending retry would have retried.
    if (request.full) retry.cancel();
    const run: RunStarted = {
      trigger: [...request.reasons].sort().join(','),
      full: request.full,
      startedAt: new Date(),
      started: performance.now(),
      tally: createRunTally(request.full),
    };
    const { trigger } = run;
    status.runStarted();
    // The subjects this run covers once known: what a retry must cover if the run itself fails
    // (the loader has already reported them as changed and will not report them again).
    let scoped: readonly string[] | undefined;
    let revision: string | undefined;
    try {
      await parts.settled?.();
      // Measured before the load: were the files this run reads already quiet for settleMs?
      const holdDestructive = hold.holds();
      const { pull } = parts;
      if (pull !== undefined && [...request.reasons].some((r) => pull.reasons.has(r))) await pull.run();
      const done = await parts.load(run);
      if ('invalid' in done) {
        const { invalid } = done;
        const issues = (invalid.details?.issues ?? []) as ConfigIssue[];
        reportRun(record, run, {
          revision: done.revision,
          result: 'invalid',
          error: { code: invalid.code, message: invalid.message },
          issues: issues.map((issue) => formatIssue(issue)),
        });
        return;
      }
      const { loaded } = done;
      revision = done.revision;
      parts.rollbacks.loaded(loaded.state.resources);
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
        logger.debug(
          { event: 'reconcile.skipped', trigger, revision, removed: loaded.changes.removed },
          'no resource changed',
        );
        recordNothingToDo(record, run, revision, retry.pending);
        return;
      }
      if (parts.rollbacks.asked) await parts.rollbacks.apply(loaded, revision, run.tally);
      let at = new Date();
      let writes = 0;
      let lastPlan: Plan | undefined;
      const results: ChangeResult[] = [];
      for (const [index, scope] of stages.entries()) {
        const staged = await reconcileStage(parts.stage, {
          scope,
          loaded,
          revision,
          trigger,
          writesBefore: writes,
          tally: run.tally,
          full: request.full,
          last: index === stages.length - 1,
          holdDestructive,
        });
        if (staged.deferred !== undefined) {
          // A removed document's prune is scoped by this load alone: the settle run must be full.
          const full = request.full || removed;
          await hold.defer({
            full,
            scope: scoped,
            trigger,
            revision,
            startedAt: run.startedAt,
            plan: staged.deferred,
          });
          return;
        }
        results.push(...staged.results);
        writes += staged.writes;
        at = staged.at;
        lastPlan = staged.plan;
      }
      // Only the last stage judged the lifecycle with everything applied before it.
      if (lastPlan !== undefined) {
        parts.unclaimed.observe(
          lastPlan.notPruned ?? [],
          request.full ? 'full' : new Set([...scoped, ...loaded.changes.removed]),
        );
      }
      hold.reconciled(request.full ? 'full' : scoped);
      const failed = recordReconciled(record, run, { revision, results, covered: scoped.length, at });
      // Full runs only: a file-change run reads just the changed resources (the push-to-applied path).
      if (request.full) {
        await refreshApiGuardianGauges(loaded.state.resources, {
          api: parts.api,
          metrics,
          logger,
          signal: parts.stage.signal,
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
      const endedBy = parts.stoppedBy();
      recordRunError(record, run, error, { revision, endedBy });
      // Unexpected failures (state directory, file system) are retried like API outages.
      if (endedBy === undefined) {
        retry.schedule(request.full ? 'full' : (scoped ?? [...(request.subjects ?? [])]), error.code);
      }
    } finally {
      hold.ran(request.reasons);
      status.runFinished();
      metrics.setCondition(status.ready, status.degraded);
    }
  };
}
