/**
 * Retryable API failures back off and retry without a trigger (the emulator's scripted 503s),
 * with tiny delays through startDaemon's options (the formula: test/unit/backoff.test.ts).
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Daemon, startDaemon } from '../../src/daemon/daemon.js';
import type { Emulator } from '../../src/emulator/index.js';
import {
  dnsYaml,
  edit,
  inProcessDaemonOptions,
  type LogLine,
  ruleYaml,
  until,
  writeDaemonConfig,
} from '../helpers/daemon.js';
import { TEST_KEY, withEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/temp-dir.js';

let emu: Emulator;
let daemon: Daemon | undefined;
let lines: LogLine[];
let configPath: string;
let stateDir: string;

beforeEach(async () => {
  emu = await withEmulator();
  lines = [];
});

afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
  await emu.close();
});

/** Starts a daemon on a fresh config; `tuning` overrides the backoff bounds and its jitter source. */
async function start(
  tuning: { backoff?: { baseMs: number; maxMs: number }; random?: () => number } = {},
): Promise<Daemon> {
  const root = tempDir();
  configPath = writeDaemonConfig(join(root, 'config'));
  stateDir = join(root, 'state');
  daemon = await startDaemon(
    inProcessDaemonOptions(
      {
        configPath,
        stateDir,
        // One attempt per request: the client's own retries would hide the 503s from the daemon.
        api: { baseUrl: emu.url, accessKey: TEST_KEY, retry: { maxAttempts: 1 } },
        lines,
      },
      {
        backoff: tuning.backoff ?? { baseMs: 20, maxMs: 40 },
        random: tuning.random,
      },
    ),
  );
  return daemon;
}

function events(event: string): LogLine[] {
  return lines.filter((line) => line.event === event);
}

describe('retries', () => {
  it('a 503 while reading schedules a retry of just the failed resources, which runs without a trigger', async () => {
    emu.faults.script({ operation: 'getDnsZone', times: 2, reply: { status: 503 } });
    const d = await start();

    await until(() => events('reconcile.finished').length === 2, 'the retry run');
    await d.idle();
    const status = d.status();

    expect(events('reconcile.started').map((l) => [l.trigger, l.resources])).toEqual([
      ['startup', 3],
      ['retry', 2],
    ]);
    expect(events('reconcile.finished').map((l) => l.result)).toEqual(['failed', 'success']);
    expect(events('retry.scheduled')).toMatchObject([{ attempt: 1, code: 'API_UNAVAILABLE', scope: 2 }]);
    expect(events('trigger.received').map((l) => l.reason)).toEqual(['startup', 'retry']);
    expect(status).toMatchObject({ retry: null, lastError: null, counts: { 'in-sync': 3, failed: 0 } });
    expect(status.lastAppliedRevision).toBe(status.revision);
  });

  it('backs off further while the failure lasts, within the bounds, and resets after a success', async () => {
    // Three runs in a row fail on both zones, the fourth succeeds. The jitter source always
    // draws its top, so each delay is its ceiling: base · 2^(attempt-1).
    emu.faults.script({ operation: 'getDnsZone', times: 6, reply: { status: 503 } });
    const d = await start({ backoff: { baseMs: 20, maxMs: 1000 }, random: () => 1 });

    await until(() => events('reconcile.finished').some((l) => l.result === 'success'), 'a successful run');
    await d.idle();
    const scheduled = events('retry.scheduled');

    expect(scheduled.map((l) => l.attempt)).toEqual([1, 2, 3]);
    expect(scheduled.map((l) => l.delayMs)).toEqual([20, 40, 80]);
    expect(events('reconcile.started').map((l) => l.trigger)).toEqual(['startup', 'retry', 'retry', 'retry']);
    expect(d.status().retry).toBeNull();
    const failed = d.status().runs.filter((run) => run.result === 'failed');
    expect(failed).toHaveLength(3);

    // After the success the backoff starts over: the next failure is attempt 1 again, 20 ms.
    emu.faults.script({ operation: 'getDnsZone', times: 1, reply: { status: 503 } });
    edit(configPath, 'dns/zones.yaml', dnsYaml(true));
    await until(() => events('retry.scheduled').length === 4, 'the next retry');
    expect(events('retry.scheduled')[3]).toMatchObject({ attempt: 1, delayMs: 20 });
  });

  it('a file-change run that fails as a whole (state unreadable) retries the changed resources', async () => {
    const d = await start();
    await until(() => events('reconcile.finished').length === 1, 'the start-up run');
    await d.idle();
    // state.json becomes a directory: the next run fails reading the store again (EISDIR), after
    // the loader has reported the changed rule; were it saving, the atomic rename would fail.
    rmSync(join(stateDir, 'state.json'));
    mkdirSync(join(stateDir, 'state.json'));

    edit(configPath, 'shield/rules.yaml', ruleYaml('Saved on retry'));
    await until(() => events('retry.scheduled').length >= 2, 'two retries');
    rmSync(join(stateDir, 'state.json'), { recursive: true });
    await until(() => d.status().retry === null && d.status().lastError === null, 'a clean retry');
    await d.idle();

    expect(events('reconcile.error')[0]).toMatchObject({ level: 'error' });
    expect(events('retry.scheduled').slice(0, 2)).toMatchObject([
      { attempt: 1, scope: 1 },
      { attempt: 2, scope: 1 },
    ]);
    expect(events('reconcile.error')[0]?.error).toBe(`cannot read ${join(stateDir, 'state.json')}: EISDIR`);
    // The failing runs end before a reconcile starts; the one that does is the retry of the rule.
    expect(
      events('reconcile.started')
        .slice(1)
        .map((l) => [l.trigger, l.resources]),
    ).toEqual([['retry', 1]]);
    expect(emu.state.customRule(1234)?.ruleName).toBe('Saved on retry');
    expect(existsSync(join(stateDir, 'state.json'))).toBe(true);
  });

  it('does not retry a failure that waiting cannot fix', async () => {
    emu.faults.script({
      operation: 'getDnsZone',
      times: 1,
      reply: { status: 404, body: { Message: 'gone' } },
    });
    const d = await start();

    await until(() => events('reconcile.finished').length === 1, 'the start-up run');
    await d.idle();

    expect(events('retry.scheduled')).toEqual([]);
    expect(d.status().lastError?.code).toBe('API_NOT_FOUND');
    expect(d.status().retry).toBeNull();
  });
});
