/**
 * What the daemon says and waits after API failures, in-process against the emulator over
 * real HTTP: a retry waits at least the API's Retry-After (capped), `/status`, `/readyz` and
 * the metrics tell `Degraded` from `Ready`, and the audit log has a line before each write.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Daemon, startDaemon } from '../../src/daemon/daemon.js';
import { MAX_RETRY_AFTER_MS } from '../../src/daemon/retry-state.js';
import type { Emulator } from '../../src/emulator/index.js';
import {
  inProcessDaemonOptions,
  type LogLine,
  request,
  ruleYaml,
  until,
  writeDaemonConfig,
} from '../helpers/daemon.js';
import { TEST_KEY, withEmulator } from '../helpers/emulator.js';
import { tempDir, writeTree } from '../helpers/temp-dir.js';

let emu: Emulator;
let daemon: Daemon | undefined;
let lines: LogLine[];

beforeEach(async () => {
  emu = await withEmulator();
  lines = [];
});

afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
  await emu.close();
});

async function start(config?: (dir: string) => string): Promise<Daemon> {
  const root = tempDir();
  const configPath = (config ?? writeDaemonConfig)(join(root, 'config'));
  daemon = await startDaemon(
    inProcessDaemonOptions(
      {
        configPath,
        stateDir: join(root, 'state'),
        // One attempt per request: the client's own retries would hide the 429s from the daemon.
        api: { baseUrl: emu.url, accessKey: TEST_KEY, retry: { maxAttempts: 1 } },
        lines,
      },
      // Backoff alone would retry within 40 ms.
      { backoff: { baseMs: 20, maxMs: 40 } },
    ),
  );
  return daemon;
}

function events(event: string): LogLine[] {
  return lines.filter((line) => line.event === event);
}

/** One metric's value in the Prometheus text, by its full name with labels. */
function metric(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

describe('after a 429 with Retry-After: 3600', () => {
  it('the retry waits the capped Retry-After, and /status, /readyz and /metrics say Degraded', async () => {
    emu.faults.script({
      operation: 'getDnsZone',
      times: 2,
      reply: { status: 429, headers: { 'retry-after': '3600' } },
    });
    const before = Date.now();
    const d = await start();

    const scheduled = await until(() => events('retry.scheduled')[0], 'retry.scheduled');
    await d.idle();
    const status = await request(`${d.url}/status`);
    const ready = await request(`${d.url}/readyz`);
    const metrics = (await request(`${d.url}/metrics`)).text;

    expect(scheduled).toMatchObject({
      code: 'API_RATE_LIMITED',
      reason: 'retry-after',
      retryAfterMs: MAX_RETRY_AFTER_MS,
      scope: 2,
    });
    expect(scheduled.delayMs).toBeGreaterThan(MAX_RETRY_AFTER_MS - 60_000);
    expect(scheduled.delayMs).toBeLessThanOrEqual(MAX_RETRY_AFTER_MS);
    const doc = status.json as {
      status: string;
      degraded: boolean;
      retry: { at: string; code: string; reason: string; retryAfterMs: number };
    };
    expect(doc).toMatchObject({
      status: 'Degraded',
      degraded: true,
      retry: {
        attempt: 1,
        code: 'API_RATE_LIMITED',
        reason: 'retry-after',
        retryAfterMs: MAX_RETRY_AFTER_MS,
      },
    });
    expect(Date.parse(doc.retry.at)).toBeGreaterThanOrEqual(before + MAX_RETRY_AFTER_MS - 60_000);
    expect([ready.status, ready.json]).toEqual([200, { status: 'degraded' }]);
    expect(metric(metrics, 'edgesync_degraded')).toBe(1);
    expect(metric(metrics, 'edgesync_ready')).toBe(1);
    expect(events('reconcile.finished')).toHaveLength(1);
  });

  it('a plain backoff when the API gave no Retry-After; Ready again once nothing fails', async () => {
    emu.faults.script({ operation: 'getDnsZone', times: 2, reply: { status: 429 } });
    const d = await start();

    const scheduled = await until(() => events('retry.scheduled')[0], 'retry.scheduled');
    await until(() => events('reconcile.finished').length === 2, 'the retry run');
    await d.idle();
    const ready = await request(`${d.url}/readyz`);
    const metrics = (await request(`${d.url}/metrics`)).text;

    expect(scheduled).toMatchObject({ reason: 'backoff' });
    expect(scheduled.retryAfterMs).toBeUndefined();
    expect(scheduled.delayMs).toBeLessThanOrEqual(40);
    expect(d.status()).toMatchObject({ status: 'Ready', degraded: false, retry: null });
    expect([ready.status, ready.json]).toEqual([200, { status: 'ready' }]);
    expect(metric(metrics, 'edgesync_degraded')).toBe(0);
  });
});

describe('the audit log around a write', () => {
  it('says change.started before the write is sent, and change.failed lists the request sent', async () => {
    emu.faults.script({
      operation: 'updateCustomWafRule',
      reply: { status: 400, body: { title: 'Bad Request', status: 400, detail: 'no' } },
    });
    await start((dir) => writeTree(dir, { 'shield/rules.yaml': ruleYaml('Block SQLi (changed)') }));

    await until(() => events('reconcile.finished')[0], 'the start-up run');
    const audit = lines.filter((l) => l.component === 'audit').map((l) => l.event);

    expect(audit).toEqual([
      'reconcile.started',
      'drift.detected',
      'change.started',
      'change.failed',
      'reconcile.finished',
    ]);
    expect(events('change.started')).toMatchObject([
      {
        subject: 'WafCustomRule/block-sqli',
        operation: 'updateCustomWafRule',
        method: 'PATCH',
        path: '/shield/waf/custom-rule/1234',
      },
    ]);
    expect(events('change.failed')[0]?.requests).toEqual([
      { operation: 'updateCustomWafRule', method: 'PATCH', path: '/shield/waf/custom-rule/1234' },
    ]);
    expect(emu.journal.writes().map((w) => [w.method, w.path, w.status])).toEqual([
      ['PATCH', '/shield/waf/custom-rule/1234', 400],
    ]);
  });
});
