/**
 * The words of a notification, shared by every target: the JSON document the generic webhook
 * sends, and the one-line summary Slack and GitHub show. Subjects are capped so a run that
 * touched 10,000 resources still makes a small message.
 */
import type { RunCounts } from './run-summary.js';
import type { NotifyEvent } from './transitions.js';

/** Subjects listed in a generic webhook's payload; the rest are counted in `subjectsOmitted`. */
export const MAX_PAYLOAD_SUBJECTS = 100;

/** The generic webhook's JSON document (docs/daemon.md shows one). */
export interface NotifyPayload extends NotifyEvent {
  readonly source: 'edgesync';
  /** Subjects left out of `subjects` past MAX_PAYLOAD_SUBJECTS. */
  readonly subjectsOmitted: number;
}

/** The event as the generic webhook sends it. */
export function payloadOf(event: NotifyEvent): NotifyPayload {
  const subjects = event.subjects.slice(0, MAX_PAYLOAD_SUBJECTS);
  const issues = event.issues?.slice(0, MAX_PAYLOAD_SUBJECTS);
  return {
    source: 'edgesync',
    ...event,
    subjects,
    ...(issues === undefined ? {} : { issues }),
    subjectsOmitted: event.subjects.length - subjects.length,
  };
}

/** `3 applied, 1 failed, 12 unchanged, 2 skipped` (zero counts left out, except when all are). */
export function countsText(counts: RunCounts): string {
  const parts = (['applied', 'failed', 'drifted', 'unchanged', 'skipped'] as const)
    .filter((key) => counts[key] > 0)
    .map((key) => `${counts[key]} ${key}`);
  return parts.length === 0 ? 'nothing to do' : parts.join(', ');
}

/** The one line that says what happened, e.g. `edgesync applied changes at 1a2b3c4: 3 applied`. */
export function summaryText(event: NotifyEvent): string {
  const at = event.revision === undefined ? '' : ` at ${shortRevision(event.revision)}`;
  switch (event.event) {
    case 'reconcile.applied':
      return `edgesync applied changes${at}: ${countsText(event.counts)}`;
    case 'reconcile.recovered':
      return `edgesync recovered${at}: nothing is failing now (${countsText(event.counts)})`;
    case 'drift.reported':
      return `edgesync found drift${at} (report only): ${event.counts.drifted} resource(s) differ from the config`;
    case 'reconcile.failed': {
      const again = event.repeated === true ? ' (still)' : '';
      if (event.result === 'invalid')
        return `edgesync config invalid${at}${again}: ${event.issues?.length ?? 0} issue(s); nothing is written until the files change`;
      if (event.result === 'error')
        return `edgesync run failed${at}${again}: ${event.error?.code ?? 'error'}`;
      return `edgesync reconcile failed${at}${again}: ${countsText(event.counts)}`;
    }
  }
}

/** A git SHA shortened to 7 characters; `config:<digest>` as it is. */
export function shortRevision(revision: string): string {
  return isCommitSha(revision) ? revision.slice(0, 7) : revision;
}

/** True for a full git commit SHA (SHA-1 or SHA-256 object format). */
export function isCommitSha(revision: string | undefined): revision is string {
  return revision !== undefined && /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(revision);
}
