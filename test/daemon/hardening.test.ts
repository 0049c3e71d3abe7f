/**
 * Issue 23's daemon invariants (docs/design.md, Safety invariants), with the built `edgesync run` in child processes
 * against a real emulator: a file written in two steps is never applied half-written, one
 * writer per state directory, SIGHUP, and a failed state save.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { appendFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { LOCK_FILE } from '../../src/state/file-lease.js';
import { daemonArgs, edit, ruleYaml, until, writeDaemonConfig } from '../helpers/daemon.js';
import { TEST_KEY, TEST_SEED } from '../helpers/emulator.js';
import { APP_HEAD, APP_TAIL, appHead } from '../helpers/half-written-app.js';
import { MAIN, REPO, type Spawned, spawnRun, useSpawnedDaemons } from '../helpers/spawn-daemon.js';
import { tempDir, writeTree } from '../helpers/temp-dir.js';

useSpawnedDaemons();

let emu: Emulator;
let root: string;
beforeEach(async () => {
  emu = await startEmulator({ accessKey: TEST_KEY, seed: TEST_SEED });
  root = tempDir();
});
afterEach(async () => {
  await emu.close();
});

const ENV = { EDGESYNC_ACCESS_KEY: TEST_KEY };

/**
 * Writes by hand the lock an `edgesync run` of `pid` on `host` would hold since 2026-01-01,
 * last renewed `ageMs` ago.
 */
function writeLock(stateDir: string, pid: number, host: string, ageMs = 0): void {
  mkdirSync(stateDir, { recursive: true });
  const lock = {
    pid,
    host,
    since: '2026-01-01T00:00:00.000Z',
    command: 'run',
    nonce: `${host}:${pid}`,
    term: 1,
  };
  const path = join(stateDir, LOCK_FILE);
  writeFileSync(path, JSON.stringify(lock));
  const at = new Date(Date.now() - ageMs);
  utimesSync(path, at, at);
}

describe('a file written in two steps', () => {
  it('is never applied half-written: no container is deleted, one PATCH carries the whole file', async () => {
    const config = writeTree(join(root, 'config'), {
      'apps/storefront.yaml': appHead(3) + APP_TAIL,
    });
    const workerId = emu.state.app('app1')?.containerTemplates.find((c) => c.name === 'worker')?.id;
    // The default --settle-ms (no override), the default-ish debounce of the tests.
    const args = daemonArgs({ config, stateDir: join(root, 'state'), baseUrl: emu.url, settleMs: 'default' });
    const d = spawnRun(args, ENV);
    await until(() => d.events('reconcile.finished')[0], 'the start-up run', 20_000);

    const file = join(config, 'apps/storefront.yaml');
    await writeFile(file, APP_HEAD);
    await new Promise((resolve) => setTimeout(resolve, 600));
    await appendFile(file, APP_TAIL);
    // A run that read the first step planned a deletion: it is deferred (result `deferred`),
    // and the run after the second step applies the whole file.
    const finished = await until(
      () => d.events('reconcile.finished').find((line, index) => index > 0 && line.result !== 'deferred'),
      'the file-change run that applies',
      20_000,
    );
    // Past the default --settle-ms since the last write: a deferred run's follow-up has run too.
    await new Promise((resolve) => setTimeout(resolve, 5500));

    expect(finished).toMatchObject({ trigger: 'file-change', counts: { applied: 1, failed: 0 } });
    expect(emu.journal.writes().map((w) => [w.method, w.path, w.status])).toEqual([
      ['PATCH', '/mc/apps/app1', 200],
    ]);
    const live = emu.state.app('app1');
    expect(live?.containerTemplates.map((c) => [c.name, c.id])).toEqual([
      ['web', 'tpl-web'],
      ['worker', workerId],
    ]);
    expect(live?.autoScaling).toEqual({ min: 1, max: 4 });
  }, 40_000);
});

/**
 * Runs `edgesync <command>` (apply, plan) of `config` with its state in `stateDir`, against the
 * emulator, to its end; returns its exit code and output.
 */
function runCommand(
  command: string,
  config: string,
  stateDir: string,
  extra: readonly string[] = [],
): Promise<{ code: number | null; output: string }> {
  const args =
    command === 'forget'
      ? [command, '--config', config, '--state-dir', stateDir, ...extra]
      : [command, '--config', config, '--state-dir', stateDir, '--base-url', emu.url, ...extra];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], {
      cwd: REPO,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => resolve({ code, output }));
  });
}

/** `edgesync run` of `config` with its state in `stateDir`, once its start-up run has finished. */
async function startDaemon(config: string, stateDir: string, what: string): Promise<Spawned> {
  const d = spawnRun(daemonArgs({ config, stateDir, baseUrl: emu.url }), ENV);
  await until(() => d.events('reconcile.finished')[0], what, 20_000);
  return d;
}

describe('one writer per state directory', () => {
  it('a second daemon stands by; an apply and a forget refuse, naming the holder; a plan reads beside it; after it stops, apply runs', async () => {
    const config = writeDaemonConfig(join(root, 'config'));
    const stateDir = join(root, 'state');
    const first = await startDaemon(config, stateDir, 'the first daemon');

    const second = spawnRun(daemonArgs({ config, stateDir, baseUrl: emu.url }), ENV);
    const standby = await until(() => second.events('daemon.started')[0], 'the second daemon', 20_000);
    const apply = await runCommand('apply', config, stateDir);
    const forget = await runCommand('forget', config, stateDir, ['WafCustomRule/anything']);
    const plan = await runCommand('plan', config, stateDir);
    second.child.kill('SIGTERM');
    const secondExit = await second.exit;
    first.child.kill('SIGTERM');
    const firstExit = await first.exit;
    const after = await runCommand('apply', config, stateDir);

    const holder = `pid ${first.child.pid} on host ${hostname()} (edgesync run, since `;
    expect(standby.role).toBe('standby');
    expect(second.events('leader.standby')).toMatchObject([
      { leader: { pid: first.child.pid, host: hostname(), term: 1 } },
    ]);
    expect(second.events('reconcile.started')).toEqual([]);
    expect(secondExit.code).toBe(0);
    expect(apply.code).toBe(1);
    expect(apply.output).toContain(`is in use by ${holder}`);
    expect(apply.output).toContain('A holder that stops renewing is taken over after 60 s');
    expect(forget.code).toBe(1);
    expect(forget.output).toContain(`is in use by ${holder}`);
    // `plan` only reads: it works beside the daemon, from one consistent snapshot.
    expect(plan.code).toBe(0);
    expect(plan.output).not.toContain('in use');
    expect(firstExit.code).toBe(0);
    expect(existsSync(join(stateDir, LOCK_FILE))).toBe(false);
    expect(after.code).toBe(0);
    expect(emu.journal.writes()).toEqual([]);
  }, 60_000);

  it('a lock left by a killed process is taken over', async () => {
    const config = writeDaemonConfig(join(root, 'config'));
    const stateDir = join(root, 'state');
    const killed = await startDaemon(config, stateDir, 'the first daemon');
    killed.child.kill('SIGKILL');
    await killed.exit;
    const left = existsSync(join(stateDir, LOCK_FILE));

    const next = await startDaemon(config, stateDir, 'the second daemon');

    expect(left).toBe(true);
    expect(next.events('state.lock.takenOver')).toMatchObject([
      { level: 'warn', pid: killed.child.pid, host: hostname(), why: 'its process is gone' },
    ]);
  }, 60_000);

  it('a lock of a pid that no longer exists, written by hand, is taken over by apply', async () => {
    const config = writeDaemonConfig(join(root, 'config'));
    const stateDir = join(root, 'state');
    // A process that has exited: its pid is free (pids are not reused this quickly).
    const gone = Number(execFileSync(process.execPath, ['-p', 'process.pid'], { encoding: 'utf8' }));
    writeLock(stateDir, gone, hostname());

    const apply = await runCommand('apply', config, stateDir);

    expect(apply.code).toBe(0);
    expect(apply.output).toContain(
      `edgesync: warning: took over the state lease of pid ${gone} on ${hostname()}: its process is gone`,
    );
    expect(existsSync(join(stateDir, LOCK_FILE))).toBe(false);
  }, 30_000);

  it('a lock of another host is refused while it is renewed, and taken over once it is not (--lease-seconds)', async () => {
    const config = writeDaemonConfig(join(root, 'config'));
    const fresh = join(root, 'fresh');
    const stale = join(root, 'stale');
    writeLock(fresh, 1, 'other-host', 5_000);
    writeLock(stale, 1, 'other-host', 11_000);

    const refused = await runCommand('apply', config, fresh, ['--lease-seconds', '10']);
    const taken = await runCommand('apply', config, stale, ['--lease-seconds', '10']);

    expect(refused.code).toBe(1);
    // "renewed N s ago": N is 5 s and the time the command took to start.
    expect(refused.output.replace(/renewed \d+ s ago/, 'renewed N s ago')).toBe(
      `edgesync: STATE_LOCKED: the state directory ${fresh} is in use by pid 1 on host other-host (edgesync run, since 2026-01-01T00:00:00.000Z), renewed N s ago; two writers would undo each other's changes. A holder that stops renewing is taken over after 10 s\n`,
    );
    expect(taken.code).toBe(0);
    // "not renewed for N s": 11 s and the time the command took to start (long on a loaded host).
    const takenOver =
      /edgesync: warning: took over the state lease of pid 1 on other-host: not renewed for (\d+) s \(lease 10 s\)/.exec(
        taken.output,
      );
    expect(Number(takenOver?.[1])).toBeGreaterThanOrEqual(11);
  }, 30_000);

  it('an empty lock (a crash between create and write) is taken over once it is a lease old', async () => {
    const config = writeDaemonConfig(join(root, 'config'));
    const stateDir = join(root, 'state');
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(join(stateDir, LOCK_FILE), '');
    const old = new Date(Date.now() - 61_000);
    utimesSync(join(stateDir, LOCK_FILE), old, old);

    const apply = await runCommand('apply', config, stateDir);

    expect(apply.code).toBe(0);
    const takenOver =
      /edgesync: warning: took over the state lease: not renewed for (\d+) s \(lease 60 s\)/.exec(
        apply.output,
      );
    expect(Number(takenOver?.[1])).toBeGreaterThanOrEqual(61);
    expect(existsSync(join(stateDir, LOCK_FILE))).toBe(false);
  }, 30_000);
});

describe('signals', () => {
  it('SIGHUP stops the daemon gracefully: a log line, exit 0, the lock released', async () => {
    const config = writeDaemonConfig(join(root, 'config'));
    const stateDir = join(root, 'state');
    const d = await startDaemon(config, stateDir, 'the start-up run');

    d.child.kill('SIGHUP');
    const exit = await d.exit;

    expect(exit).toEqual({ code: 0, signal: null });
    expect(d.events('daemon.stopping')).toMatchObject([{ signal: 'SIGHUP' }]);
    expect(d.events('daemon.stopped')).toMatchObject([{ aborted: false }]);
    expect(existsSync(join(stateDir, LOCK_FILE))).toBe(false);
  }, 30_000);
});

describe('a failed state save', () => {
  it('is STATE_IO, retried, and leaves no temporary file', async () => {
    const config = writeDaemonConfig(join(root, 'config'));
    const stateDir = join(root, 'state');
    const d = await startDaemon(config, stateDir, 'the start-up run');

    // A directory where the state file goes: the rename over it fails.
    rmSync(join(stateDir, 'state.json'));
    mkdirSync(join(stateDir, 'state.json'));
    edit(config, 'shield/rules.yaml', ruleYaml('Block SQLi (saved?)'));
    const error = await until(() => d.events('reconcile.error')[0], 'reconcile.error', 20_000);
    const retry = await until(() => d.events('retry.scheduled')[0], 'retry.scheduled', 20_000);

    expect(error).toMatchObject({ code: 'STATE_IO' });
    expect(String(error.error)).toMatch(
      /^cannot (save|read) .*state\.json: (EISDIR|ENOTEMPTY|EEXIST|EPERM)$/,
    );
    expect(retry).toMatchObject({ code: 'STATE_IO' });
    expect(readdirSync(stateDir).sort()).toEqual([LOCK_FILE, 'state.json']);
  }, 30_000);
});
