import { describe, expect, it } from 'vitest';
import { parseRemoteUrl, parseRepoSlug } from '../../../../src/daemon/notify/github-repo.js';
import { finalDescription, finalState } from '../../../../src/daemon/notify/github-status.js';
import { MAX_PAYLOAD_SUBJECTS, payloadOf, summaryText } from '../../../../src/daemon/notify/payload.js';
import { NO_COUNTS, type RunSummary } from '../../../../src/daemon/notify/run-summary.js';
import { MAX_SLACK_LINES, slackCode, slackMessage } from '../../../../src/daemon/notify/slack-message.js';
import type { NotifyEvent } from '../../../../src/daemon/notify/transitions.js';

const SHA = '0123456789abcdef0123456789abcdef01234567';

function event(fields: Partial<NotifyEvent> = {}): NotifyEvent {
  return {
    event: 'reconcile.applied',
    revision: SHA,
    trigger: 'webhook',
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 12,
    result: 'reconciled',
    counts: { ...NO_COUNTS, applied: 1, unchanged: 2 },
    subjects: [{ subject: 'WafCustomRule/block-sqli', outcome: 'applied' }],
    failingTotal: 0,
    ...fields,
  };
}

describe('GitHub repository of a remote', () => {
  it.each([
    ['https://github.com/acme/edge-config.git', 'acme/edge-config'],
    ['https://github.com/acme/edge-config', 'acme/edge-config'],
    ['https://x-access-token:ghp_secret@github.com/acme/edge-config.git', 'acme/edge-config'],
    ['https://ghe.example.com/acme/edge.config/', 'acme/edge.config'],
    ['git@github.com:acme/edge-config.git', 'acme/edge-config'],
    ['ssh://git@github.com:22/acme/edge-config.git', 'acme/edge-config'],
    ['github.com:acme/edge_config', 'acme/edge_config'],
  ])('%s → %s', (remote, slug) => {
    const repo = parseRemoteUrl(remote);

    expect(repo === undefined ? undefined : `${repo.owner}/${repo.name}`).toBe(slug);
  });

  it.each([
    '/srv/git/edge-config.git',
    'file:///srv/git/acme/edge-config.git',
    'https://gitlab.com/group/sub/edge-config.git',
    'git@github.com:acme/../x',
    'https://github.com/acme',
    '',
  ])('%s is not a repository statuses can go to', (remote) => {
    expect(parseRemoteUrl(remote)).toBeUndefined();
  });

  it.each(['acme', 'acme/x/y', '-acme/x', 'acme/ x', 'acme/..'])('--github-repo %s is refused', (slug) => {
    expect(parseRepoSlug(slug)).toBeUndefined();
  });
});

describe('commit status of a finished run', () => {
  const summary = (fields: Partial<RunSummary>): RunSummary => ({ ...event(), full: true, ...fields });

  it.each<[string, Partial<RunSummary>, string, string]>([
    ['applied', {}, 'success', '1 applied, 2 unchanged'],
    [
      'a failed resource',
      {
        counts: { ...NO_COUNTS, failed: 1 },
        subjects: [{ subject: 'A/a', outcome: 'failed', error: { code: 'API_REJECTED', message: 'no' } }],
        failingTotal: 3,
      },
      'failure',
      '1 failed; 3 failing in all',
    ],
    [
      'another resource still failing',
      { counts: NO_COUNTS, subjects: [], failingTotal: 2 },
      'failure',
      'nothing to do; 2 failing in all',
    ],
    [
      'an invalid config',
      { result: 'invalid', issues: ['a:1:1: x', 'b:2:2: y'] },
      'failure',
      'config invalid: 2 issue(s)',
    ],
    [
      'a run that failed',
      { result: 'error', error: { code: 'STATE_IO', message: 'disk' } },
      'failure',
      'run failed: STATE_IO',
    ],
  ])('%s → %s "%s"', (_name, fields, state, description) => {
    expect(finalState(summary(fields))).toBe(state);
    expect(finalDescription(summary(fields))).toBe(description);
  });
});

describe('notification texts', () => {
  it('caps the subjects of a generic payload and says how many were left out', () => {
    const subjects = Array.from({ length: MAX_PAYLOAD_SUBJECTS + 7 }, (_, i) => ({
      subject: `A/r${i}`,
      outcome: 'applied' as const,
    }));

    const payload = payloadOf(event({ subjects }));

    expect(payload.subjects).toHaveLength(MAX_PAYLOAD_SUBJECTS);
    expect(payload.subjectsOmitted).toBe(7);
    expect(payload.source).toBe('edgesync');
  });

  it.each<[Partial<NotifyEvent>, string]>([
    [{}, 'edgesync applied changes at 0123456: 1 applied, 2 unchanged'],
    [
      { event: 'reconcile.recovered' },
      'edgesync recovered at 0123456: nothing is failing now (1 applied, 2 unchanged)',
    ],
    [
      {
        event: 'drift.reported',
        revision: 'config:abcdef012345',
        counts: { ...NO_COUNTS, drifted: 2, skipped: 2 },
      },
      'edgesync found drift at config:abcdef012345 (report only): 2 resource(s) differ from the config',
    ],
    [
      { event: 'reconcile.failed', result: 'invalid', revision: undefined, issues: ['x'], repeated: true },
      'edgesync config invalid (still): 1 issue(s); nothing is written until the files change',
    ],
    [
      { event: 'reconcile.failed', counts: { ...NO_COUNTS, failed: 2 } },
      'edgesync reconcile failed at 0123456: 2 failed',
    ],
  ])('%o → %s', (fields, text) => {
    expect(summaryText(event(fields))).toBe(text);
  });

  it('escapes what the config repository names, so a resource cannot ping a channel', () => {
    const message = slackMessage(
      event({
        event: 'reconcile.failed',
        subjects: [
          {
            subject: 'WafCustomRule/<!channel>',
            outcome: 'failed',
            error: { code: 'API_REJECTED', message: 'a & b <https://evil|click>' },
          },
        ],
      }),
    );

    const text = JSON.stringify(message);
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<https://evil');
    expect(text).toContain(
      `${slackCode('WafCustomRule/<!channel>')} failed: \`API_REJECTED a &amp; b &lt;https://evil|click&gt;\``,
    );
  });

  it.each([
    ['plain', 'AccessList/office', '`AccessList/office`'],
    ['mrkdwn', '*b* _i_ ~s~', '`*b* _i_ ~s~`'],
    ['a backtick cannot end the span', 'a`b``c', '`aˋbˋˋc`'],
    ['a line break cannot end the line', 'a\nb\r\nc', '`a↵b↵c`'],
    [
      'mentions and links',
      '<!here> <@U1> <http://x|y> &',
      '`&lt;!here&gt; &lt;@U1&gt; &lt;http://x|y&gt; &amp;`',
    ],
    ['empty', '', '` `'],
  ])('slackCode: %s', (_name, text, expected) => {
    expect(slackCode(text)).toBe(expected);
  });

  it('says how many held notifications one replaced', () => {
    const message = slackMessage(event({ superseded: 28 }));

    expect(JSON.stringify(message.blocks.at(-1))).toContain(
      '28 earlier notification(s) held back by --notify-min-interval and replaced by this one',
    );
  });

  it('lists at most a few resources, then how many more', () => {
    const subjects = Array.from({ length: 25 }, (_, i) => ({
      subject: `A/r${i}`,
      outcome: 'applied' as const,
    }));

    const message = slackMessage(event({ subjects }));

    const lines = (message.blocks[1] as { text: { text: string } }).text.text.split('\n');
    expect(lines).toHaveLength(MAX_SLACK_LINES + 1);
    expect(lines[0]).toBe('• `A/r0` applied');
    expect(lines.at(-1)).toBe(`…and ${25 - MAX_SLACK_LINES} more`);
    expect(message.text).toBe(
      ':white_check_mark: edgesync applied changes at 0123456: 1 applied, 2 unchanged',
    );
  });
});
