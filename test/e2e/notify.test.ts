/**
 * Notifications from the built binary (`edgesync run` in a child process) against the
 * emulator, received by real `node:http` servers: a generic webhook (signature checked here
 * with node:crypto), a Slack-shaped receiver, and a GitHub API stand-in that checks the token
 * and records the commit statuses. Runs are triggered by file edits and by signed inbound
 * hooks; the emulator's scripted faults make writes fail.
 */
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect } from 'vitest';
import {
  daemonConfigIn,
  dnsYaml,
  edit,
  genericHook,
  type LogLine,
  request,
  ruleYaml,
  secretFile,
  until,
} from '../helpers/daemon.js';
import { TEST_KEY, test } from '../helpers/emulator.js';
import { git } from '../helpers/git.js';
import {
  type Handler,
  type RecordedRequest,
  reply,
  send,
  startTestServer,
  type TestServer,
} from '../helpers/http-server.js';
import { type Spawned, spawnDaemon, useSpawnedDaemons } from '../helpers/spawn-daemon.js';
import { writeTree } from '../helpers/temp-dir.js';

useSpawnedDaemons();

const NOTIFY_SECRET = 'NS-7c2e-notify-secret-never-print';
const HOOK_SECRET = 'HS-inbound-9d1f';
const SLACK_PATH = '/services/T0EDGE/B0SYNC/SlackPathSecret42never';
const WEBHOOK_QUERY_TOKEN = 'QueryToken-never-print-5e8a';
const GITHUB_TOKEN = 'ghp_NeverPrintThisToken0123456789abcd';
/** These tests count every transition: no damping (test/e2e/notify-flapping.test.ts has it). */
const EVERY_TRANSITION = ['--notify-min-interval', '1ms'];
/** --notify-repeat of the repeat test: long enough for two runs on a loaded machine. */
const REPEAT_MS = 4000;

const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function receiver(handler: Handler = reply(200, {})): Promise<TestServer> {
  const server = await startTestServer(handler);
  servers.push(server);
  return server;
}

/** The generic webhook's signature, computed independently of the daemon's code. */
function signatureOk(request: RecordedRequest, secret: string): boolean {
  const expected = `sha256=${createHmac('sha256', secret).update(request.rawBody).digest('hex')}`;
  return request.headers['x-signature'] === expected;
}

function eventsOf(server: TestServer): unknown[] {
  return server.requests.map((r) => (r.body as { event?: string }).event);
}

/** Slack messages' first line (`text`). */
function slackTexts(server: TestServer): string[] {
  return server.requests.map((r) => (r.body as { text: string }).text);
}

/** Waits for the n-th `event` line of a spawned daemon. */
function waitFor(run: Spawned, event: string, n = 1, filter: (line: LogLine) => boolean = () => true) {
  return until(() => run.events(event).filter(filter)[n - 1], `${event} #${n}`, 20_000);
}

/** Every secret of these tests that appears in `text`. */
function leaks(text: string): string[] {
  return [
    NOTIFY_SECRET,
    HOOK_SECRET,
    SLACK_PATH,
    'SlackPathSecret42never',
    WEBHOOK_QUERY_TOKEN,
    GITHUB_TOKEN,
    TEST_KEY,
  ].filter((secret) => text.includes(secret));
}

/** The daemon's HTTP base URL, once it listens. */
async function urlOf(run: Spawned): Promise<string> {
  return String((await waitFor(run, 'daemon.started')).listen);
}

/** `edgesync_notifications_total` samples: `target result` → value. */
function notificationCounts(metrics: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const match of metrics.matchAll(
    /^edgesync_notifications_total\{target="(\w+)",result="(\w+)"\} (\d+)$/gm,
  ))
    counts[`${match[1]} ${match[2]}`] = Number(match[3]);
  return counts;
}

/** Everything a test checks for secrets: output, /status, /metrics. */
async function everything(run: Spawned, url: string): Promise<string> {
  const status = (await request(`${url}/status`)).text;
  const metrics = (await request(`${url}/metrics`)).text;
  return `${run.output()}\n${status}\n${metrics}`;
}

describe('notifications (spawned daemon)', () => {
  test('generic webhook and Slack: each transition once, signed; nothing for no-op runs; repeats suppressed; recovery', async ({
    emu,
  }) => {
    const generic = await receiver();
    const slack = await receiver();
    const { root, config } = daemonConfigIn();
    writeTree(root, { 'notify-secret': `${NOTIFY_SECRET}\n`, 'slack-url': `${slack.url}${SLACK_PATH}\n` });
    const run = spawnDaemon(root, config, emu.url, [
      ...EVERY_TRANSITION,
      '--log-level',
      'debug',
      '--webhook-secret-file',
      secretFile(HOOK_SECRET),
      '--notify-webhook',
      `${generic.url}/edgesync?token=${WEBHOOK_QUERY_TOKEN}`,
      '--notify-webhook-secret-file',
      join(root, 'notify-secret'),
      '--notify-slack-webhook-file',
      join(root, 'slack-url'),
      '--notify-repeat',
      `${REPEAT_MS}ms`,
    ]);
    const url = await urlOf(run);
    let finished = 1;
    /** Triggers a full run through the inbound generic hook and waits for its end. */
    const fullRun = async (): Promise<void> => {
      finished += 1;
      expect((await genericHook(url, '{}', HOOK_SECRET)).status).toBe(202);
      await waitFor(run, 'reconcile.finished', finished);
    };
    const fileRun = async (file: string, content: string): Promise<void> => {
      finished += 1;
      edit(config, file, content);
      await waitFor(run, 'reconcile.finished', finished);
    };
    const received = (n: number) =>
      until(() => generic.requests.length >= n && slack.requests.length >= n, `${n} notifications`, 20_000);

    // Start-up and a full run with nothing to do: no notification.
    await waitFor(run, 'reconcile.finished');
    await fullRun();
    // A change applied.
    await fileRun('shield/rules.yaml', ruleYaml('Renamed once'));
    await received(1);
    // A write the API rejects: failed. The same failure twice more within --notify-repeat: nothing.
    emu.faults.script({
      operation: 'updateCustomWafRule',
      times: 4,
      reply: { status: 400, body: { success: false, message: 'rejected for the test', errorKey: 'test' } },
    });
    await fileRun('shield/rules.yaml', ruleYaml('Rejected name'));
    await received(2);
    const failedAt = Date.now();
    await fullRun();
    await fullRun();
    // A precondition, not a performance check: the two runs above must fall within the interval.
    const withinRepeat = Date.now() - failedAt < REPEAT_MS;
    // After --notify-repeat, the same failure once more.
    await new Promise((resolve) => setTimeout(resolve, failedAt + REPEAT_MS + 100 - Date.now()));
    await fullRun();
    await received(3);
    // The write goes through again: recovered (not "applied").
    await fullRun();
    await received(4);
    await fullRun();
    // An invalid config: failed; fixed: recovered.
    edit(config, 'dns/zones.yaml', 'kind: [');
    await waitFor(run, 'config.invalid');
    await received(5);
    edit(config, 'dns/zones.yaml', dnsYaml());
    await waitFor(run, 'config.valid');
    await received(6);
    const all = await everything(run, url);
    process.kill(run.child.pid as number, 'SIGTERM');
    expect((await run.exit).code).toBe(0);

    expect(withinRepeat).toBe(true);
    expect(eventsOf(generic)).toEqual([
      'reconcile.applied',
      'reconcile.failed',
      'reconcile.failed',
      'reconcile.recovered',
      'reconcile.failed',
      'reconcile.recovered',
    ]);
    for (const r of generic.requests) {
      expect(r.method).toBe('POST');
      expect(r.path).toBe(`/edgesync?token=${WEBHOOK_QUERY_TOKEN}`);
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['x-edgesync-event']).toBe((r.body as { event: string }).event);
      expect(signatureOk(r, NOTIFY_SECRET)).toBe(true);
      expect(signatureOk({ ...r, rawBody: `${r.rawBody} ` }, NOTIFY_SECRET)).toBe(false);
    }
    const [applied, failed, repeated, recovered, invalid] = generic.requests.map((r) => r.body);
    expect(applied).toMatchObject({
      source: 'edgesync',
      event: 'reconcile.applied',
      trigger: 'file-change',
      revision: expect.stringMatching(/^config:[0-9a-f]{12}$/),
      result: 'reconciled',
      counts: { applied: 1, failed: 0, unchanged: 0, skipped: 0, drifted: 0 },
      subjects: [{ subject: 'WafCustomRule/block-sqli', outcome: 'applied' }],
      failingTotal: 0,
      durationMs: expect.any(Number),
      subjectsOmitted: 0,
    });
    expect(failed).toMatchObject({
      event: 'reconcile.failed',
      trigger: 'file-change',
      counts: { applied: 0, failed: 1 },
      subjects: [
        {
          subject: 'WafCustomRule/block-sqli',
          outcome: 'failed',
          error: { code: 'API_REJECTED', message: expect.stringContaining('rejected for the test') },
        },
      ],
    });
    expect(failed).not.toHaveProperty('repeated');
    expect(repeated).toMatchObject({ event: 'reconcile.failed', trigger: 'webhook', repeated: true });
    expect(recovered).toMatchObject({
      event: 'reconcile.recovered',
      trigger: 'webhook',
      counts: { applied: 1, failed: 0, unchanged: 2 },
      failingTotal: 0,
    });
    expect(invalid).toMatchObject({
      event: 'reconcile.failed',
      result: 'invalid',
      error: { code: 'CONFIG_INVALID' },
      issues: [expect.stringMatching(/^dns\/zones\.yaml:1:\d+: /)],
    });
    // Slack: the same transitions, one message each, with the resource line.
    expect(slack.requests.map((r) => r.path)).toEqual(Array(6).fill(SLACK_PATH));
    expect(slackTexts(slack)).toEqual([
      expect.stringMatching(/^:white_check_mark: edgesync applied changes at config:\w+: 1 applied$/),
      expect.stringMatching(/^:x: edgesync reconcile failed at config:\w+: 1 failed$/),
      expect.stringMatching(/^:x: edgesync reconcile failed at config:\w+ \(still\): 1 failed, 2 unchanged$/),
      expect.stringMatching(/^:large_green_circle: edgesync recovered at config:\w+: nothing is failing now/),
      ':x: edgesync config invalid: 1 issue(s); nothing is written until the files change',
      expect.stringMatching(/^:large_green_circle: edgesync recovered at config:\w+/),
    ]);
    expect(JSON.stringify(slack.requests[1]?.body)).toContain(
      '• `WafCustomRule/block-sqli` failed: `API_REJECTED',
    );
    expect(notificationCounts(all)).toEqual({ 'webhook success': 6, 'slack success': 6 });
    expect(leaks(all)).toEqual([]);
  });

  test('a receiver answering 500 gets the event again, in order, while reconciles go on; a dead one is given up and logged', async ({
    emu,
  }) => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    // The first delivery is held until the test has seen a second run finish, then answered 500.
    const flaky = await receiver(async (_request, res) => {
      calls += 1;
      if (calls === 1) await held;
      send(res, calls <= 2 ? 500 : 200, {});
    });
    const dead = await receiver(reply(500, { error: 'down' }));
    const { root, config } = daemonConfigIn('Drifted at start');
    writeTree(root, { 'notify-secret': `${NOTIFY_SECRET}\n` });
    const run = spawnDaemon(root, config, emu.url, [
      ...EVERY_TRANSITION,
      '--log-level',
      'debug',
      '--notify-webhook',
      `${flaky.url}/a`,
      '--notify-webhook',
      `${dead.url}/b?token=${WEBHOOK_QUERY_TOKEN}`,
      '--notify-webhook-secret-file',
      join(root, 'notify-secret'),
    ]);
    const url = await urlOf(run);

    await waitFor(run, 'reconcile.finished');
    await until(() => flaky.requests.length === 1, 'the first delivery to arrive', 20_000);
    edit(config, 'shield/rules.yaml', ruleYaml('Changed while the receiver hangs'));
    await waitFor(run, 'reconcile.finished', 2);
    const whileHeld = flaky.requests.length;
    release();
    await until(() => flaky.requests.length === 4, 'the retries and the second event', 30_000);
    await until(() => run.events('notify.failed').length === 2, 'the dead receiver to be given up', 30_000);
    const all = await everything(run, url);
    process.kill(run.child.pid as number, 'SIGTERM');
    expect((await run.exit).code).toBe(0);

    expect(whileHeld).toBe(1);
    const bodies = flaky.requests.map((r) => r.rawBody);
    expect(bodies[1]).toBe(bodies[0]);
    expect(bodies[2]).toBe(bodies[0]);
    expect(flaky.requests.map((r) => JSON.parse(r.rawBody).subjects)).toEqual([
      ...Array(3).fill([{ subject: 'WafCustomRule/block-sqli', outcome: 'applied' }]),
      [{ subject: 'WafCustomRule/block-sqli', outcome: 'applied' }],
    ]);
    expect(flaky.requests.map((r) => JSON.parse(r.rawBody).trigger)).toEqual([
      'startup',
      'startup',
      'startup',
      'file-change',
    ]);
    expect(flaky.requests.every((r) => signatureOk(r, NOTIFY_SECRET))).toBe(true);
    expect(dead.requests).toHaveLength(6);
    expect(run.events('notify.failed')).toEqual([
      expect.objectContaining({ target: 'webhook', destination: dead.url, attempts: 3, error: 'HTTP 500' }),
      expect.objectContaining({ target: 'webhook', destination: dead.url, attempts: 3, error: 'HTTP 500' }),
    ]);
    expect(notificationCounts(all)).toEqual({ 'webhook success': 2, 'webhook failed': 2 });
    expect(run.events('notify.retry').length).toBe(2 + 4);
    expect(leaks(all)).toEqual([]);
  }, 90_000);

  test('SIGTERM lets a delivery in flight finish before the process exits', async ({ emu }) => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const generic = await receiver(async (_request, res) => {
      await held;
      send(res, 200, {});
    });
    const { root, config } = daemonConfigIn('Applied just before shutdown');
    const run = spawnDaemon(root, config, emu.url, [
      ...EVERY_TRANSITION,
      '--log-level',
      'debug',
      '--notify-webhook',
      generic.url,
    ]);

    await until(() => generic.requests.length === 1, 'the delivery to arrive', 20_000);
    process.kill(run.child.pid as number, 'SIGTERM');
    await waitFor(run, 'daemon.stopping');
    release();
    const exit = await run.exit;

    expect(exit).toEqual({ code: 0, signal: null });
    const order = run
      .lines()
      .map((line) => line.event)
      .filter((event) =>
        ['daemon.stopping', 'notify.sent', 'notify.failed', 'daemon.stopped'].includes(event ?? ''),
      );
    expect(order).toEqual(['daemon.stopping', 'notify.sent', 'daemon.stopped']);
    // No --notify-webhook-secret-file: the POST goes out unsigned.
    expect(generic.requests[0]?.headers['x-signature']).toBeUndefined();
  });

  test('report-only drift: reported once, again when it grows or comes back after being resolved', async ({
    emu,
  }) => {
    const generic = await receiver();
    const { root, config } = daemonConfigIn('Not what is live');
    const run = spawnDaemon(root, config, emu.url, [
      ...EVERY_TRANSITION,
      '--drift',
      'report',
      '--webhook-secret-file',
      secretFile(HOOK_SECRET),
      '--notify-webhook',
      generic.url,
      '--notify-webhook-secret-file',
      secretFile(NOTIFY_SECRET),
    ]);
    const url = await urlOf(run);

    await waitFor(run, 'reconcile.finished');
    await until(() => generic.requests.length === 1, 'the drift report', 20_000);
    expect((await genericHook(url, '{}', HOOK_SECRET)).status).toBe(202);
    await waitFor(run, 'reconcile.finished', 2);
    edit(
      config,
      'shield/rules.yaml',
      ruleYaml('Not what is live').replace('ruleDescription: SQL injection', 'ruleDescription: Also drifted'),
    );
    await waitFor(run, 'reconcile.finished', 3);
    await until(() => generic.requests.length === 2, 'the second drift report', 20_000);
    // Back in sync (a file-change run finds it so: nothing to say), then the first drift again: news.
    edit(config, 'shield/rules.yaml', ruleYaml('Block SQLi'));
    await waitFor(run, 'reconcile.finished', 4);
    edit(config, 'shield/rules.yaml', ruleYaml('Not what is live'));
    await waitFor(run, 'reconcile.finished', 5);
    await until(() => generic.requests.length === 3, 'the third drift report', 20_000);
    process.kill(run.child.pid as number, 'SIGTERM');
    expect((await run.exit).code).toBe(0);

    expect(generic.requests.map((r) => signatureOk(r, NOTIFY_SECRET))).toEqual([true, true, true]);
    expect(generic.requests.map((r) => r.body)).toEqual([
      expect.objectContaining({
        event: 'drift.reported',
        trigger: 'startup',
        counts: { applied: 0, failed: 0, unchanged: 2, skipped: 1, drifted: 1 },
        subjects: [{ subject: 'WafCustomRule/block-sqli', outcome: 'drifted', fields: ['ruleName'] }],
      }),
      expect.objectContaining({
        event: 'drift.reported',
        trigger: 'file-change',
        subjects: [
          {
            subject: 'WafCustomRule/block-sqli',
            outcome: 'drifted',
            fields: ['ruleName', 'ruleDescription'],
          },
        ],
      }),
      expect.objectContaining({
        event: 'drift.reported',
        trigger: 'file-change',
        subjects: [{ subject: 'WafCustomRule/block-sqli', outcome: 'drifted', fields: ['ruleName'] }],
      }),
    ]);
    expect(emu.journal.writes()).toEqual([]);
  });

  test('GitHub commit statuses: pending then success or failure per commit, repository from origin, token checked', async ({
    emu,
  }) => {
    // The API stand-in answers only the right token and the statuses route of acme/edge-config.
    const statusRoute = /^\/api\/v3\/repos\/acme\/edge-config\/statuses\/([0-9a-f]{40})$/;
    const github = await receiver((req, res) => {
      if (req.headers.authorization !== `Bearer ${GITHUB_TOKEN}`)
        return send(res, 401, { message: 'Bad credentials' });
      if (req.method !== 'POST' || !statusRoute.test(req.path))
        return send(res, 404, { message: 'Not Found' });
      send(res, 201, { id: req.index + 1, state: (req.body as { state: string }).state });
    });
    const { root, config } = daemonConfigIn('From the first commit');
    git(config, 'init', '--quiet', '-b', 'main');
    git(config, 'remote', 'add', 'origin', 'git@github.com:acme/edge-config.git');
    git(config, 'add', '.');
    git(config, 'commit', '--quiet', '-m', 'first');
    const first = git(config, 'rev-parse', 'HEAD');
    writeTree(root, { 'github-token': `${GITHUB_TOKEN}\n` });
    const run = spawnDaemon(root, config, emu.url, [
      ...EVERY_TRANSITION,
      '--log-level',
      'debug',
      // Long enough for `git commit` to land before the file-change run reads HEAD.
      '--debounce-ms',
      '1000',
      '--webhook-secret-file',
      secretFile(HOOK_SECRET),
      '--github-token-file',
      join(root, 'github-token'),
      '--github-api-url',
      `${github.url}/api/v3`,
    ]);
    const url = await urlOf(run);
    const statuses = (n: number) => until(() => github.requests.length >= n, `${n} statuses`, 20_000);
    const commit = (message: string): string => {
      git(config, 'commit', '--quiet', '-am', message);
      return git(config, 'rev-parse', 'HEAD');
    };

    await statuses(2);
    emu.faults.script({
      operation: 'updateCustomWafRule',
      reply: { status: 400, body: { success: false, message: 'rejected for the test', errorKey: 'test' } },
    });
    edit(config, 'shield/rules.yaml', ruleYaml('From the second commit'));
    const second = commit('second');
    await statuses(4);
    // A full run sends the rejected write again, and it goes through; then one with nothing to do.
    expect((await genericHook(url, '{}', HOOK_SECRET)).status).toBe(202);
    await statuses(6);
    expect((await genericHook(url, '{}', HOOK_SECRET)).status).toBe(202);
    await waitFor(run, 'reconcile.finished', 4);
    // A commit that changes no resource: its first run has nothing to do, and says so once.
    edit(config, 'shield/rules.yaml', `# a comment\n${ruleYaml('From the second commit')}`);
    const third = commit('a comment');
    await statuses(7);
    const all = await everything(run, url);
    process.kill(run.child.pid as number, 'SIGTERM');
    expect((await run.exit).code).toBe(0);

    expect(github.requests.map((r) => [statusRoute.exec(r.path)?.[1], r.body])).toEqual([
      [first, { state: 'pending', context: 'edgesync', description: 'applying 1 change(s) (startup)' }],
      [first, { state: 'success', context: 'edgesync', description: '1 applied, 2 unchanged' }],
      [second, { state: 'pending', context: 'edgesync', description: 'applying 1 change(s) (file-change)' }],
      [second, { state: 'failure', context: 'edgesync', description: '1 failed' }],
      [second, { state: 'pending', context: 'edgesync', description: 'applying 1 change(s) (webhook)' }],
      [second, { state: 'success', context: 'edgesync', description: '1 applied, 2 unchanged' }],
      [third, { state: 'success', context: 'edgesync', description: 'nothing to do' }],
    ]);
    for (const r of github.requests) {
      expect(r.headers.accept).toBe('application/vnd.github+json');
      expect(r.headers['user-agent']).toMatch(/^edgesync\//);
    }
    expect(notificationCounts(all)).toEqual({ 'github success': 7 });
    expect(leaks(all)).toEqual([]);
  });
});
