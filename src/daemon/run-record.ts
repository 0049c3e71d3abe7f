/**
 * The record step of a daemon run: how it ended, in `/status` (last error, run error, the
 * applied revision), in the metrics (reconcile duration and result, last success), and told to
 * the observer (the notifier) as one run summary (`notify/run-summary.ts`). Each resource's own
 * status is recorded by its stage (run-stage.ts) as its change is applied.
 */

import type { ChangeResult } from '../engine/types.js';
import type { ReconcileError } from '../errors.js';
import type { Logger } from '../log.js';
import type { DaemonMetrics } from './metrics.js';
import type { RunObserver, RunSummary, RunTally } from './notify/run-summary.js';
import type { StatusTracker } from './status.js';

/** Where a run's end is recorded. */
export interface RunRecordContext {
  readonly status: StatusTracker;
  readonly metrics: DaemonMetrics;
  readonly logger: Logger;
  readonly observer?: RunObserver;
}

/** One run as it started: its summary names these. */
export interface RunStarted {
  /** The merged reasons, sorted and joined (`schedule,webhook`). */
  readonly trigger: string;
  readonly full: boolean;
  readonly startedAt: Date;
  /** `performance.now()` at the start. */
  readonly started: number;
  /** The run's change totals, added to by each stage. */
  readonly tally: RunTally;
}

/** How a run ended, as its summary says it. */
export type RunEnd = Pick<RunSummary, 'revision' | 'result' | 'error' | 'issues'>;

const durationOf = (run: RunStarted): number => Math.round(performance.now() - run.started);

/** Tells the observer how the run ended. */
export function reportRun(context: RunRecordContext, run: RunStarted, end: RunEnd): void {
  context.observer?.runFinished({
    trigger: run.trigger,
    full: run.full,
    startedAt: run.startedAt.toISOString(),
    durationMs: durationOf(run),
    ...run.tally.totals(),
    failingTotal: context.status.failedCount(),
    ...end,
  });
}

/**
 * A run with nothing to read or write (a comment changed, a document was removed without
 * prune's reads). The revision moved on; it counts as applied unless a resource still fails or
 * a retry is pending.
 */
export function recordNothingToDo(
  context: RunRecordContext,
  run: RunStarted,
  revision: string,
  retryPending: boolean,
): void {
  const { status } = context;
  context.metrics.setResources(status.countsByKind());
  if (status.failedCount() === 0 && !retryPending) status.applied(revision);
  status.setRunError(null);
  reportRun(context, run, { revision, result: 'reconciled' });
}

/** What a run's stages wrote. */
export interface RunOutcome {
  readonly revision: string;
  readonly results: readonly ChangeResult[];
  /** How many subjects the run covered: the last error says "N of them failed". */
  readonly covered: number;
  /** When the last stage finished. */
  readonly at: Date;
}

/**
 * A run whose stages ran: its duration and result, the first failure as the last error (or
 * none), the revision as applied when nothing fails any more. Returns the failed results.
 */
export function recordReconciled(
  context: RunRecordContext,
  run: RunStarted,
  outcome: RunOutcome,
): readonly ChangeResult[] {
  const { status, metrics } = context;
  const { at } = outcome;
  const failed = outcome.results.filter((r) => r.outcome === 'failed');
  metrics.observeReconcile(failed.length > 0 ? 'failed' : 'success', durationOf(run));
  status.setRunError(null);
  const first = failed[0];
  if (first === undefined) {
    status.setLastError(null);
    metrics.setLastSuccess(at);
  } else {
    status.setLastError({
      code: first.error?.code ?? 'APPLY_PARTIAL',
      message: `${failed.length} of ${outcome.covered} resources failed; first: ${first.subject}: ${first.error?.message ?? 'failed'}`,
      at: at.toISOString(),
    });
  }
  if (status.failedCount() === 0) status.applied(outcome.revision, at);
  reportRun(context, run, { revision: outcome.revision, result: 'reconciled' });
  return failed;
}

/**
 * A run that threw (the API, the state store, the file system). Shown as the run's error.
 * A run ended by the daemon stopping (`endedBy`) is logged as aborted and not reported: the
 * next leader's run tells the story.
 */
export function recordRunError(
  context: RunRecordContext,
  run: RunStarted,
  error: ReconcileError,
  end: { readonly revision: string | undefined; readonly endedBy: 'lease-lost' | 'shutdown' | undefined },
): void {
  const { status, logger } = context;
  context.metrics.observeReconcile('failed', durationOf(run));
  const shown = { code: error.code, message: error.message, at: new Date().toISOString() };
  status.setLastError(shown);
  status.setRunError(shown);
  const by = end.endedBy;
  if (by !== undefined) {
    logger.warn({ event: 'reconcile.aborted', code: error.code, by }, `reconcile ended by ${by}`);
    return;
  }
  logger.error({ event: 'reconcile.error', code: error.code, error: error.message }, 'reconcile failed');
  reportRun(context, run, {
    revision: end.revision,
    result: 'error',
    error: { code: error.code, message: error.message },
  });
}
