/**
 * A Slack incoming-webhook message for an event: `text` (the notification's fallback) and
 * Block Kit blocks — the summary, up to MAX_SLACK_LINES resource lines, and a context line
 * with the revision, trigger and duration.
 *
 * Subject names, field paths, config issues and error messages come from the config repository,
 * the live state and the API, so each is written as a code span (`slackCode`), where Slack's
 * mrkdwn — `*bold*`, `_italic_`, `~strike~`, links, mentions — is inert, and `&`, `<`, `>` are
 * escaped besides: a resource named `<!channel>` pings no channel, an API message
 * `*URGENT* <https://evil|click>` renders as plain text, like the plan comment (render-markdown.ts).
 */
import { countsText, shortRevision, summaryText } from './payload.js';
import type { AffectedSubject } from './run-summary.js';
import type { NotifyEvent } from './transitions.js';

/** Resource lines in one message; the rest are counted. */
export const MAX_SLACK_LINES = 10;

/** Slack's mrkdwn control characters (`&`, `<`, `>`), as Slack asks them to be escaped. */
function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * `text` as one Slack code span. Slack has no longer fence and no escape for a backtick, so a
 * backtick becomes `ˋ` (U+02CB, which looks like one) and a line break `↵`: neither can end
 * the span early and let what follows be read as mrkdwn.
 */
export function slackCode(text: string): string {
  const inert = escapeSlack(text)
    .replace(/`/g, '\u02cb')
    .replace(/\r\n|[\r\n\u2028\u2029]/g, '↵');
  return `\`${inert === '' ? ' ' : inert}\``;
}

const ICONS: Record<NotifyEvent['event'], string> = {
  'reconcile.applied': ':white_check_mark:',
  'reconcile.failed': ':x:',
  'reconcile.recovered': ':large_green_circle:',
  'drift.reported': ':warning:',
};

/** Longest text of one line: ten of them stay well under a section's 3,000 characters. */
const MAX_LINE = 240;

function clip(text: string): string {
  return text.length > MAX_LINE ? `${text.slice(0, MAX_LINE - 1)}…` : text;
}

function subjectLine(subject: AffectedSubject): string {
  const name = slackCode(clip(subject.subject));
  if (subject.outcome === 'failed') {
    const error = `${subject.error?.code ?? ''} ${subject.error?.message ?? ''}`.trim();
    return `• ${name} failed: ${slackCode(clip(error))}`;
  }
  if (subject.outcome === 'drifted')
    return `• ${name} drifted: ${slackCode(clip((subject.fields ?? []).join(', ')))}`;
  return `• ${name} applied`;
}

/** The lines under the summary: config issues, or the affected resources. */
function detailLines(event: NotifyEvent): string[] {
  const lines =
    event.issues !== undefined
      ? event.issues.map((issue) => `• ${slackCode(clip(issue))}`)
      : event.subjects.map(subjectLine);
  const total = event.issues?.length ?? event.subjects.length;
  const shown = lines.slice(0, MAX_SLACK_LINES);
  if (total > shown.length) shown.push(`…and ${total - shown.length} more`);
  if (shown.length === 0 && event.error !== undefined)
    shown.push(slackCode(clip(`${event.error.code}: ${event.error.message}`)));
  return shown;
}

/** The Slack message of one event. */
export function slackMessage(event: NotifyEvent): { text: string; blocks: unknown[] } {
  const summary = `${ICONS[event.event]} ${escapeSlack(summaryText(event))}`;
  const lines = detailLines(event);
  const context = [
    event.revision === undefined ? undefined : `revision ${slackCode(shortRevision(event.revision))}`,
    `trigger ${escapeSlack(event.trigger)}`,
    `${event.durationMs} ms`,
    escapeSlack(countsText(event.counts)),
    event.superseded === undefined
      ? undefined
      : `${event.superseded} earlier notification(s) held back by --notify-min-interval and replaced by this one`,
  ].filter((part) => part !== undefined);
  return {
    text: summary,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: summary } },
      ...(lines.length === 0 ? [] : [{ type: 'section', text: { type: 'mrkdwn', text: lines.join('\n') } }]),
      { type: 'context', elements: [{ type: 'mrkdwn', text: context.join(' · ') }] },
    ],
  };
}
