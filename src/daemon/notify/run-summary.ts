/**
 * What the run loop tells the notifier: a plain summary of one finished run, built without
 * holding a plan. `createRunTally` reduces each reconcile stage to counts and the affected
 * subjects as it ends, so a two-stage run never keeps two plans alive.
 *
 * Only field paths and error codes/messages leave the engine here — never a live or desired
 * value: a container's environment is one field away from a secret.
 */
import type { ApplyResult, Plan } from '../../engine/types.js';

/** How a resource figured in a run. `drifted`: report-only drift, seen and not written. */
type SubjectOutcome = 'applied' | 'failed' | 'drifted';

/** One resource a run changed, failed on, or found drifted in report-only mode. */
export interface AffectedSubject {
  /** `Kind/name`. */
  readonly subject: string;
  readonly outcome: SubjectOutcome;
  /** Failed: the error code and message (the same text the audit log and /status carry). */
  readonly error?: { readonly code: string; readonly message: string };
  /** Drifted: the paths of the fields that differ (never their values). */
  readonly fields?: readonly string[];
}

/** Counts of one run, over every stage. */
export interface RunCounts {
  readonly applied: number;
  readonly failed: number;
  readonly unchanged: number;
  readonly skipped: number;
  /** Resources with report-only drift (a subset of `skipped`). */
  readonly drifted: number;
}

/** One finished run, as the notifier sees it. */
export interface RunSummary {
  /** The git SHA or `config:<digest>`; undefined when an invalid load left it unknown. */
  readonly revision: string | undefined;
  /** The run's reasons, comma-joined (`startup`, `schedule`, `file-change`, `webhook`, `retry`). */
  readonly trigger: string;
  /** The run covered every resource (start-up, schedule, webhook), not only changed ones. */
  readonly full: boolean;
  readonly startedAt: string;
  readonly durationMs: number;
  /** `reconciled`: the engine ran (or had nothing to read); `invalid`: the config did not load; `error`: the run itself failed. */
  readonly result: 'reconciled' | 'invalid' | 'error';
  readonly counts: RunCounts;
  readonly subjects: readonly AffectedSubject[];
  /**
   * A scoped run (not `full`): the subjects it found in sync, so drift it no longer sees is
   * forgotten. A full run leaves this out: whatever it does not list as drifted is in sync.
   */
  readonly settled?: readonly string[];
  /** Resources failed across the whole desired state after this run (a scoped run sees only some). */
  readonly failingTotal: number;
  /** Invalid config or the run's own failure. */
  readonly error?: { readonly code: string; readonly message: string };
  /** Invalid config: every issue as `file:line:col: message`. */
  readonly issues?: readonly string[];
}

/** What the run loop calls; every method returns at once and never throws. */
export interface RunObserver {
  /** A run's plan has writes and it is about to send them (GitHub: `pending`). */
  applyStarting(run: { readonly revision: string; readonly trigger: string; readonly writes: number }): void;
  runFinished(summary: RunSummary): void;
}

/** Counts and affected subjects of the stages of one run. */
export interface RunTally {
  /** Adds one reconcile stage's plan and apply results. */
  add(plan: Plan, apply: ApplyResult | undefined): void;
  /** What the stages added up to, for the run's summary. */
  totals(): Pick<RunSummary, 'counts' | 'subjects' | 'settled'>;
}

export const NO_COUNTS: RunCounts = { applied: 0, failed: 0, unchanged: 0, skipped: 0, drifted: 0 };

/** An empty tally for one run; `full`: the run covers every resource. */
export function createRunTally(full: boolean): RunTally {
  const counts = { ...NO_COUNTS };
  const subjects: AffectedSubject[] = [];
  const settled: string[] = [];
  return {
    add(plan, apply) {
      for (const [index, change] of plan.changes.entries()) {
        // One result per change, in the plan's order (ApplyResult).
        const result = apply?.results[index];
        if (result === undefined) continue;
        counts[result.outcome] += 1;
        if (result.outcome === 'unchanged' && !full) settled.push(change.subject);
        if (result.outcome === 'applied') subjects.push({ subject: change.subject, outcome: 'applied' });
        else if (result.outcome === 'failed') {
          const error = result.error ?? change.error;
          subjects.push({
            subject: change.subject,
            outcome: 'failed',
            error: { code: error?.code ?? 'APPLY_PARTIAL', message: error?.message ?? 'failed' },
          });
        } else if (change.skip === 'report-only' && change.diffs.length > 0) {
          counts.drifted += 1;
          subjects.push({
            subject: change.subject,
            outcome: 'drifted',
            fields: change.diffs.map((d) => d.path),
          });
        }
      }
    },
    totals: () => ({ counts, subjects, ...(full ? {} : { settled }) }),
  };
}
