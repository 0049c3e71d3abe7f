/**
 * Which runs are worth telling anyone about (docs/design.md, Notifications: "on transitions only"). Pure: a run
 * summary and the time in, at most one event out; the tracker remembers only what it needs to
 * tell a transition from a repetition.
 *
 * - A run with its own failures (failed resources, an invalid config, the run itself failing)
 *   → `reconcile.failed`; the same failure (same subjects and codes, same issues) again only
 *   after `repeatMs`.
 * - The first run without failures after one, once nothing is failing anywhere in the desired
 *   state → `reconcile.recovered` (a file-change run that fixes one resource while another is
 *   still failing has not recovered the daemon).
 * - A run that changed something → `reconcile.applied`.
 * - Report-only drift not reported before (a subject, or its set of drifted fields, is new)
 *   → `drift.reported`.
 * - Anything else (nothing to do, the same drift again) → nothing.
 *
 * What the tracker remembers is plain data (`TransitionState`), so the notifier can keep it in
 * the state directory: a restarted (or crash-looping) daemon then neither tells the same
 * failure again nor misses the recovery from one it told before the restart. It holds digests
 * of the failure and of each drifted subject's fields, never their text.
 */
import { z } from 'zod';
import { sha256Hex } from '../../domain/checksum.js';
import type { RunSummary } from './run-summary.js';

export type NotifyEventName =
  | 'reconcile.applied'
  | 'reconcile.failed'
  | 'reconcile.recovered'
  | 'drift.reported';

/** One notification: the run summary under an event name. */
export interface NotifyEvent extends Omit<RunSummary, 'full' | 'settled'> {
  readonly event: NotifyEventName;
  /** `reconcile.failed` sent again for an unchanged failure after `--notify-repeat`. */
  readonly repeated?: true;
  /** Events this one replaced while it was held back by `--notify-min-interval` (damper.ts). */
  readonly superseded?: number;
}

/** What a tracker remembers between runs (and, through the notifier, across restarts). */
export const TransitionState = z.object({
  failing: z.boolean(),
  /** Digest of the last failure told, and when (ms since the epoch). */
  lastFailure: z.object({ key: z.string(), sentAt: z.number() }).optional(),
  /** Report-only drift already reported: subject → digest of its drifted field paths. */
  reportedDrift: z.record(z.string(), z.string()),
});
export type TransitionState = z.infer<typeof TransitionState>;

/** Remembers the last failure and the drift reported; decides each run's event. */
export interface TransitionTracker {
  next(summary: RunSummary, nowMs: number): NotifyEvent | undefined;
  /** What it remembers now, to start another tracker from. */
  state(): TransitionState;
}

/** What identifies a failure: equal keys are "the same failure" for repeat suppression. */
export function failureKey(summary: RunSummary): string | undefined {
  if (summary.result === 'invalid') return `invalid\n${(summary.issues ?? []).join('\n')}`;
  if (summary.result === 'error') return `error ${summary.error?.code ?? ''}`;
  const failed = summary.subjects
    .filter((s) => s.outcome === 'failed')
    .map((s) => `${s.subject} ${s.error?.code ?? ''}`)
    .sort();
  return failed.length === 0 ? undefined : `failed\n${failed.join('\n')}`;
}

/**
 * A tracker that starts from `initial`, or healthy, with no failure and no drift reported.
 */
export function createTransitionTracker(options: {
  readonly repeatMs: number;
  readonly initial?: TransitionState;
}): TransitionTracker {
  let failing = options.initial?.failing ?? false;
  let lastFailure = options.initial?.lastFailure;
  let reportedDrift = new Map(Object.entries(options.initial?.reportedDrift ?? {}));

  function newDrift(summary: RunSummary): boolean {
    const drifted = summary.subjects.filter((s) => s.outcome === 'drifted');
    const seen = new Map(drifted.map((s) => [s.subject, sha256Hex((s.fields ?? []).join('\n'))]));
    const fresh = [...seen].some(([subject, fields]) => reportedDrift.get(subject) !== fields);
    // Drift a run no longer sees is gone, and would be news again: a full run saw every
    // resource; a scoped one says which it found in sync, and which it changed or failed on.
    if (summary.full) reportedDrift = seen;
    else {
      for (const subject of summary.settled ?? []) reportedDrift.delete(subject);
      for (const s of summary.subjects) if (s.outcome !== 'drifted') reportedDrift.delete(s.subject);
      for (const [subject, fields] of seen) reportedDrift.set(subject, fields);
    }
    return fresh;
  }

  function eventOf(summary: RunSummary, event: NotifyEventName, repeated = false): NotifyEvent {
    const { full: _full, settled: _settled, ...rest } = summary;
    return { event, ...rest, ...(repeated ? { repeated: true as const } : {}) };
  }

  return {
    next(summary, nowMs) {
      const failure = failureKey(summary);
      if (failure !== undefined) {
        const key = sha256Hex(failure);
        failing = true;
        if (summary.result === 'reconciled') newDrift(summary);
        const same = lastFailure?.key === key;
        if (same && nowMs - (lastFailure?.sentAt ?? 0) < options.repeatMs) return undefined;
        lastFailure = { key, sentAt: nowMs };
        return eventOf(summary, 'reconcile.failed', same);
      }
      const drift = newDrift(summary);
      if (failing && summary.failingTotal === 0) {
        failing = false;
        lastFailure = undefined;
        return eventOf(summary, 'reconcile.recovered');
      }
      if (summary.counts.applied > 0) return eventOf(summary, 'reconcile.applied');
      if (drift) return eventOf(summary, 'drift.reported');
      return undefined;
    },
    state: () => ({
      failing,
      ...(lastFailure === undefined ? {} : { lastFailure: { ...lastFailure } }),
      reportedDrift: Object.fromEntries(reportedDrift),
    }),
  };
}
