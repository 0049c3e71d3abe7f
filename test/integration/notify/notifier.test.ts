/**
 * The notifier in-process against real `node:http` receivers: flapping damped to one event per
 * `--notify-min-interval` with the latest state winning (and told at shutdown), and Slack
 * messages whose names and API messages are inert code spans.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createNotifier, type Notifier } from '../../../src/daemon/notify/notifier.js';
import { NO_COUNTS, type RunSummary } from '../../../src/daemon/notify/run-summary.js';
import type { NotifySettings } from '../../../src/daemon/notify/settings.js';
import { createLogger } from '../../../src/log.js';
import { until } from '../../helpers/daemon.js';
import { reply, startTestServer, type TestServer } from '../../helpers/http-server.js';

const servers: TestServer[] = [];
const notifiers: Notifier[] = [];
afterEach(async () => {
  for (const notifier of notifiers.splice(0)) await notifier.close(0);
  for (const server of servers.splice(0)) await server.close();
});

async function receiver(): Promise<TestServer> {
  const server = await startTestServer(reply(200, {}));
  servers.push(server);
  return server;
}

function summary(fields: Partial<RunSummary> = {}): RunSummary {
  return {
    revision: 'config:0123456789ab',
    trigger: 'file-change',
    full: true,
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 4,
    result: 'reconciled',
    counts: { ...NO_COUNTS, unchanged: 3 },
    subjects: [],
    failingTotal: 0,
    ...fields,
  };
}

const INVALID = summary({
  result: 'invalid',
  revision: undefined,
  issues: ['dns/zones.yaml:1:7: flow sequence never closed'],
  error: { code: 'CONFIG_INVALID', message: 'the config is invalid' },
});
const VALID = summary();

function notifierFor(webhook: TestServer, slack: TestServer | undefined, minIntervalMs: number) {
  const counts: string[] = [];
  const lines: Record<string, unknown>[] = [];
  const settings: NotifySettings = {
    webhooks: [new URL(`${webhook.url}/hook`)],
    ...(slack === undefined ? {} : { slackUrl: new URL(`${slack.url}/services/T0/B0/secret`) }),
    repeatMs: 3_600_000,
    minIntervalMs,
    warnings: [],
  };
  const notifier = createNotifier({
    settings,
    configPath: '/nonexistent',
    version: 'test',
    logger: createLogger({
      level: 'debug',
      destination: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
    }),
    count: (target, result) => counts.push(`${target} ${result}`),
  });
  if (notifier === undefined) throw new Error('no notifier');
  notifiers.push(notifier);
  return { notifier, counts, lines };
}

const bodies = (server: TestServer) =>
  server.requests.map((r) => r.body as { event: string; result: string; superseded?: number });

describe('flapping', () => {
  it('sends the first transition at once, holds the rest, and sends only the latest when the interval ends', async () => {
    const webhook = await receiver();
    const { notifier, counts, lines } = notifierFor(webhook, undefined, 400);

    // Invalid, valid, invalid, …: 10 transitions in a few milliseconds.
    const firstSent = performance.now();
    for (let i = 0; i < 10; i += 1) notifier.runFinished(i % 2 === 0 ? INVALID : VALID);
    await until(() => webhook.requests.length >= 2, 'the held notification');
    await new Promise((resolve) => setTimeout(resolve, 600));

    expect(bodies(webhook).map((b) => [b.event, b.result, b.superseded])).toEqual([
      ['reconcile.failed', 'invalid', undefined],
      // The state it ended in (valid), standing for the 8 transitions it replaced.
      ['reconcile.recovered', 'reconciled', 8],
    ]);
    // Held for the interval from the first send (not from its arrival, which a loaded host delays).
    expect(webhook.requests[1]?.at ?? 0).toBeGreaterThanOrEqual(firstSent + 390);
    expect(counts.filter((c) => c === 'webhook superseded')).toHaveLength(8);
    expect(lines.filter((l) => l.event === 'notify.held')).toHaveLength(9);
  });

  it('tells the held state at shutdown, without waiting for the interval', async () => {
    const webhook = await receiver();
    const { notifier } = notifierFor(webhook, undefined, 3_600_000);

    notifier.runFinished(INVALID);
    notifier.runFinished(VALID);
    await until(() => webhook.requests.length === 1, 'the first notification');
    await notifier.close(2000);

    expect(bodies(webhook).map((b) => b.event)).toEqual(['reconcile.failed', 'reconcile.recovered']);
  });

  it('lets transitions further apart than the interval through, each on its own', async () => {
    const webhook = await receiver();
    const { notifier } = notifierFor(webhook, undefined, 50);

    notifier.runFinished(INVALID);
    await until(() => webhook.requests.length === 1, 'the first');
    await new Promise((resolve) => setTimeout(resolve, 80));
    notifier.runFinished(VALID);
    await until(() => webhook.requests.length === 2, 'the second');

    expect(bodies(webhook).map((b) => [b.event, b.superseded])).toEqual([
      ['reconcile.failed', undefined],
      ['reconcile.recovered', undefined],
    ]);
  });
});

describe('Slack message escaping', () => {
  it('writes live names, field paths, config issues and API messages as inert code spans', async () => {
    const webhook = await receiver();
    const slack = await receiver();
    const { notifier } = notifierFor(webhook, slack, 1);
    const hostile = 'WafCustomRule/*bold* `code` <!channel> _it_ ~s~\nsecond line';

    notifier.runFinished(
      summary({
        counts: { ...NO_COUNTS, failed: 1 },
        failingTotal: 1,
        subjects: [
          {
            subject: hostile,
            outcome: 'failed',
            error: { code: 'API_REJECTED', message: '*URGENT* <https://evil.example|click here> `x`' },
          },
        ],
      }),
    );
    await until(() => slack.requests.length === 1, 'the Slack message');
    notifier.runFinished(INVALID);
    await new Promise((resolve) => setTimeout(resolve, 20));
    notifier.runFinished(VALID);
    await until(() => slack.requests.length === 3, 'two more Slack messages');

    const [failed, invalid] = slack.requests.map(
      (r) => (r.body as { blocks: { text?: { text: string } }[] }).blocks[1]?.text?.text,
    );
    expect(failed).toBe(
      '• `WafCustomRule/*bold* ˋcodeˋ &lt;!channel&gt; _it_ ~s~↵second line` failed: `API_REJECTED *URGENT* &lt;https://evil.example|click here&gt; ˋxˋ`',
    );
    expect(invalid).toBe('• `dns/zones.yaml:1:7: flow sequence never closed`');
    // Every mrkdwn character of the message is inside a code span: outside them, only our words.
    for (const text of [failed, invalid]) {
      const outside = (text ?? '').split('`').filter((_, i) => i % 2 === 0);
      expect(outside.join('')).toMatch(/^[•\sa-z:]*$/);
    }
    const all = JSON.stringify(slack.requests.map((r) => r.body));
    expect(all).not.toContain('<!channel>');
    expect(all).not.toContain('<https://evil');
  });
});
