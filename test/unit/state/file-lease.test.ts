/**
 * The file store's lease on real files and real processes: one holder, refusals naming it, a
 * release that never removes another's lock, take-overs of a holder that is gone or no longer
 * renews (whatever host wrote it, an empty lock), a live holder never taken over, waiting with
 * a timeout, and a holder that finds its lease taken: it knows, and the store refuses its save.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Lease, LeaseHolder } from '../../../src/state/backend.js';
import { fileBackend } from '../../../src/state/file-backend.js';
import { acquireFileLease, fileLeaseTiming, LOCK_FILE } from '../../../src/state/file-lease.js';
import { REPO, requireBuild } from '../../helpers/spawn-daemon.js';
import { tempDir } from '../../helpers/temp-dir.js';

const LEASE = fileLeaseTiming(60_000);
const NOW = { timeoutMs: 0 };

function holderIn(dir: string): LeaseHolder & { term: number } {
  return JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as LeaseHolder & { term: number };
}

/** Writes by hand the lock a holder `pid` on `host` would have written, last renewed `ageMs` ago. */
function writeLock(dir: string, content: string | object, ageMs = 0): void {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, LOCK_FILE);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  const at = new Date(Date.now() - ageMs);
  utimesSync(path, at, at);
}

const foreign = (pid: number, host: string) => ({
  pid,
  host,
  since: '2026-01-01T00:00:00.000Z',
  command: 'run',
  nonce: `${host}:${pid}`,
  term: 7,
});

async function refusal(promise: Promise<Lease>): Promise<unknown> {
  try {
    const lease = await promise;
    await lease.release();
  } catch (err) {
    return err;
  }
  return undefined;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/**
 * A real process that takes the lease of `dir` (lease `leaseMs`) from the built store, says
 * "held", and keeps it (renewing) until killed.
 */
async function holderProcess(dir: string, leaseMs: number): Promise<ChildProcess> {
  const module = pathToFileURL(join(REPO, 'dist/src/state/file-lease.js')).href;
  const script = `
    const { acquireFileLease, fileLeaseTiming } = await import(${JSON.stringify(module)});
    await acquireFileLease(${JSON.stringify(dir)}, 'run', { timeoutMs: 0 }, fileLeaseTiming(${leaseMs}));
    process.stdout.write('held\\n');
    setInterval(() => undefined, 1000);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('held')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the holder exited with ${code}`)));
  });
  return child;
}

describe('the file lease', () => {
  beforeAll(requireBuild);

  it('creates the directory and a lock naming this process; a second holder is refused, naming it, until release', async () => {
    const dir = join(tempDir(), 'state');

    const lease = await acquireFileLease(dir, 'apply', NOW, LEASE);
    const holder = holderIn(dir);
    const refused = await refusal(acquireFileLease(dir, 'run', NOW, LEASE));
    await lease.release();
    const again = await acquireFileLease(dir, 'run', NOW, LEASE);
    await again.release();

    expect(holder).toMatchObject({ pid: process.pid, host: hostname(), command: 'apply', term: 1 });
    expect(refused).toMatchObject({
      code: 'STATE_LOCKED',
      message: `the state directory ${dir} is in use by pid ${process.pid} on host ${hostname()} (edgesync apply, since ${holder.since}), renewed 0 s ago; two writers would undo each other's changes. A holder that stops renewing is taken over after 60 s`,
    });
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  it("takes over a lock with this process's pid that this process does not hold (a restarted container)", async () => {
    const dir = tempDir();
    writeLock(dir, foreign(process.pid, hostname()));
    const taken: unknown[] = [];

    const lease = await acquireFileLease(
      dir,
      'run',
      { timeoutMs: 0, onTakeover: (p, why) => taken.push([p, why]) },
      LEASE,
    );

    expect(taken).toEqual([[foreign(process.pid, hostname()), 'its process is gone']]);
    expect(holderIn(dir)).toMatchObject({ pid: process.pid, term: 8 });
    await lease.release();
  });

  it('does not remove, on release, a lock that another writer holds now', async () => {
    const dir = tempDir();
    const lease = await acquireFileLease(dir, 'run', NOW, LEASE);
    writeLock(dir, foreign(1, 'elsewhere'));

    await lease.release();

    expect(holderIn(dir)).toEqual(foreign(1, 'elsewhere'));
  });

  it('refuses a fresh lock of another host, and takes it over once it has not been renewed for the lease', async () => {
    const fresh = tempDir();
    const stale = tempDir();
    writeLock(fresh, foreign(1, 'other-host'), 30_000);
    writeLock(stale, foreign(1, 'other-host'), 61_000);
    const taken: unknown[] = [];

    const refused = await refusal(acquireFileLease(fresh, 'apply', NOW, LEASE));
    const lease = await acquireFileLease(
      stale,
      'apply',
      { timeoutMs: 0, onTakeover: (p, why) => taken.push([p?.host, why]) },
      LEASE,
    );

    expect(refused).toMatchObject({
      code: 'STATE_LOCKED',
      message: `the state directory ${fresh} is in use by pid 1 on host other-host (edgesync run, since 2026-01-01T00:00:00.000Z), renewed 30 s ago; two writers would undo each other's changes. A holder that stops renewing is taken over after 60 s`,
    });
    expect(taken).toEqual([['other-host', 'not renewed for 61 s (lease 60 s)']]);
    expect(holderIn(stale)).toMatchObject({ pid: process.pid, host: hostname() });
    await lease.release();
  });

  it('an empty or unreadable lock is refused while recent, saying when it is taken over, and taken over after', async () => {
    const recent = tempDir();
    const old = tempDir();
    const garbage = tempDir();
    writeLock(recent, '', 10_000);
    writeLock(old, '', 120_000);
    writeLock(garbage, 'not a lock {', 120_000);

    const refused = await refusal(acquireFileLease(recent, 'apply', NOW, LEASE));
    const fromEmpty = await acquireFileLease(old, 'apply', NOW, LEASE);
    const fromGarbage = await acquireFileLease(garbage, 'apply', NOW, LEASE);

    expect(refused).toMatchObject({
      code: 'STATE_LOCKED',
      message: `the state directory ${recent} is locked by ${join(recent, LOCK_FILE)}, whose content cannot be read (empty or not a lock); it is taken over once it has not been renewed for 60 s, in 50 s`,
    });
    expect(holderIn(old).pid).toBe(process.pid);
    expect(holderIn(garbage).pid).toBe(process.pid);
    await fromEmpty.release();
    await fromGarbage.release();
  });

  it("a live unrelated process with the lock's pid (a reused pid) does not keep the lock past the lease", async () => {
    const dir = tempDir();
    const unrelated = spawn('sleep', ['30']);
    children.push(unrelated);
    writeLock(dir, { ...foreign(unrelated.pid as number, hostname()) }, 61_000);

    const lease = await acquireFileLease(dir, 'apply', NOW, LEASE);

    expect(holderIn(dir).pid).toBe(process.pid);
    await lease.release();
  });

  it('a live holder in another process is never taken over, however long; killed, it is taken over at once', async () => {
    const dir = tempDir();
    const short = fileLeaseTiming(1000);
    const child = await holderProcess(dir, 1000);

    // Three lease periods: the holder renews every ~170 ms, so it is never stale.
    const refusals: unknown[] = [];
    for (let i = 0; i < 6; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      refusals.push(await refusal(acquireFileLease(dir, 'apply', NOW, short)));
    }
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    const taken: string[] = [];
    const lease = await acquireFileLease(
      dir,
      'apply',
      { timeoutMs: 0, onTakeover: (_p, why) => taken.push(why) },
      short,
    );

    expect(refusals.map((err) => (err as { code?: string } | undefined)?.code)).toEqual(
      Array(6).fill('STATE_LOCKED'),
    );
    expect(taken).toEqual(['its process is gone']);
    await lease.release();
  }, 20_000);

  it('--lock-timeout waits for the holder to let go', async () => {
    const dir = tempDir();
    const first = await acquireFileLease(dir, 'run', NOW, LEASE);
    setTimeout(() => void first.release(), 400);

    const second = await acquireFileLease(dir, 'apply', { timeoutMs: 5000 }, LEASE);

    expect(holderIn(dir)).toMatchObject({ command: 'apply', pid: process.pid });
    await second.release();
  });

  it('a holder whose lock was taken over learns it at its next renewal; the store refuses its save', async () => {
    const dir = tempDir();
    const timing = fileLeaseTiming(600);
    const lease = await acquireFileLease(dir, 'run', NOW, timing);
    const lost: string[] = [];
    lease.onLost((reason) => lost.push(reason));
    const heldBefore = lease.held();
    writeLock(dir, foreign(1, 'other-host'));

    await new Promise((resolve) => setTimeout(resolve, 400));
    const save = await fileBackend(dir)
      .writeDocument('{}', lease)
      .catch((err: unknown) => err);

    expect(heldBefore).toBe(true);
    expect(lost).toEqual([
      `the lock ${join(dir, LOCK_FILE)} was taken over by pid 1 on host other-host (edgesync run, since 2026-01-01T00:00:00.000Z)`,
    ]);
    expect(lease.held()).toBe(false);
    expect(() => lease.assertHeld()).toThrow(expect.objectContaining({ code: 'LEADER_LOST' }));
    expect(save).toMatchObject({ code: 'LEADER_LOST' });
    expect(existsSync(join(dir, 'state.json'))).toBe(false);
    await lease.release();
    expect(holderIn(dir).host).toBe('other-host');
  });

  it('a process that has exited is taken over at once (same host)', async () => {
    const dir = tempDir();
    const gone = Number(execFileSync(process.execPath, ['-p', 'process.pid'], { encoding: 'utf8' }));
    writeLock(dir, foreign(gone, hostname()));

    const lease = await acquireFileLease(dir, 'apply', NOW, LEASE);

    expect(holderIn(dir).pid).toBe(process.pid);
    await lease.release();
  });
});
