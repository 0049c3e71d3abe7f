/**
 * What the run loop tells its observers after every run: a plain summary, so that whoever
 * reports runs elsewhere (notifications, a commit status) needs nothing of the loop itself.
 */
import type { ChangeOutcome, ChangeResult } from '../engine/types.js';

/**
 * One finished run, as observers see it. `success`: nothing failed; `failed`: a resource or
 * the run itself failed (`error`); `invalid`: the desired state does not validate (`issues`);
 * `skipped`: the load changed no resource, nothing was read or written.
 */
export interface RunSummary {
  readonly trigger: string;
  readonly revision: string | undefined;
  readonly result: 'success' | 'failed' | 'invalid' | 'skipped';
  readonly startedAt: Date;
  readonly durationMs: number;
  readonly counts: Readonly<Record<ChangeOutcome, number>>;
  /** The results that are not `unchanged`: applied, skipped (drift not written) and failed. */
  readonly changes: readonly ChangeResult[];
  /** The run's own failure, or the config's, when there is one. */
  readonly error?: { readonly code: string; readonly message: string };
  /** While invalid: every issue as `file:line:col: message`. */
  readonly issues?: readonly string[];
}

/** Told about every finished run (not about runs cut short by a shutdown). Must not throw. */
export type RunObserver = (summary: RunSummary) => void;
