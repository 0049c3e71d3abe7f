/**
 * The writer's lease of a state directory: `<dir>/edgesync.lock` (docs/state.md, The file
 * store's lease). Two writers on one directory would undo each other's saves every run, each
 * sure its copy is the truth.
 *
 * The lock file is created whole and at once (a complete temporary file hard-linked to the
 * lock's name; a link fails when the name exists). Its holder renews it by touching its mtime
 * every `renewMs`; a lock not renewed for `leaseMs` is taken over whatever host wrote it, and so
 * is an empty or unreadable one (a crash of an older build between create and write, a foreign
 * file). A holder on this host whose process is gone is taken over at once. A take-over renames
 * the lock aside first: the rename moves one file, so of two writers taking over at once only
 * the one that moved the stale file goes on.
 *
 * The holder counts its lease lost when the file is no longer its own, and stops trusting it
 * `renewMs` before others may take it (`held()`), so a stalled holder stops writing first.
 *
 * Not covered: a network file system may not make link and rename atomic, and its clocks may
 * differ from ours; two state directories pointed at one bunny.net account are not seen at all.
 */
import { randomBytes } from 'node:crypto';
import {
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  type Stats,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ReconcileError } from '../errors.js';
import type { AcquireOptions, Lease, LeaseHolder } from './backend.js';
import { describeHolder, leaseLost, stateLocked } from './lease.js';

export const LOCK_FILE = 'edgesync.lock';

/** Lease timing of the file store; see docs/state.md for what each value costs. */
export interface FileLeaseTiming {
  /** A lock not renewed for this long is taken over (default 60 s; `--lease-seconds`). */
  readonly leaseMs: number;
  /** How often the holder renews (default: a sixth of the lease, 10 s). */
  readonly renewMs: number;
}

export const DEFAULT_LEASE_MS = 60_000;

export function fileLeaseTiming(leaseMs = DEFAULT_LEASE_MS): FileLeaseTiming {
  return { leaseMs, renewMs: Math.max(50, Math.floor(leaseMs / 6)) };
}

/** The lock file's content. */
interface LockContent extends LeaseHolder {
  readonly term: number;
}

/** Lock paths this process holds: a second holder in one process (tests) is refused too. */
const held = new Set<string>();

/** Polling interval while waiting for a lock (`--lock-timeout`). */
const WAIT_STEP_MS = 200;

function readLock(path: string): LockContent | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockContent>;
    if (typeof parsed.pid !== 'number' || typeof parsed.host !== 'string') return undefined;
    return {
      pid: parsed.pid,
      host: parsed.host,
      since: String(parsed.since ?? 'unknown'),
      command: String(parsed.command ?? 'unknown'),
      nonce: String(parsed.nonce ?? ''),
      term: typeof parsed.term === 'number' ? parsed.term : 0,
    };
  } catch {
    return undefined;
  }
}

function statOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function stateIo(message: string, cause: unknown): ReconcileError {
  const code = (cause as NodeJS.ErrnoException).code ?? (cause as Error).message;
  return new ReconcileError('STATE_IO', `${message}: ${code}`, { cause });
}

/** Links a complete lock file to `path`; false when `path` exists. */
function tryCreate(path: string, content: LockContent): boolean {
  const temporary = `${path}.tmp-${process.pid}-${content.nonce}`;
  try {
    writeFileSync(temporary, `${JSON.stringify(content)}\n`, { mode: 0o644 });
  } catch (err) {
    throw stateIo(`cannot create the lock ${path}`, err);
  }
  try {
    linkSync(temporary, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw stateIo(`cannot create the lock ${path}`, err);
  } finally {
    try {
      unlinkSync(temporary);
    } catch {
      // Already gone: nothing to clean.
    }
  }
}

/** Moves the stale lock judged from `judged` aside; false when the file moved was another (put back). */
function takeOver(path: string, judged: Stats): boolean {
  const aside = `${path}.stale-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch {
    return false; // Someone else moved it first.
  }
  const moved = statOf(aside);
  const same = moved !== undefined && moved.ino === judged.ino && moved.mtimeMs === judged.mtimeMs;
  if (!same) {
    // A writer took or renewed the lock between our look and our rename: give it back.
    try {
      linkSync(aside, path);
    } catch {
      // Taken again meanwhile: that writer holds it now.
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    // Nothing to clean.
  }
  return same;
}

/** Why the lock at `path` may be taken over now, or undefined when its holder may be alive. */
function staleness(
  path: string,
  current: LockContent | undefined,
  age: number,
  timing: FileLeaseTiming,
): string | undefined {
  if (age > timing.leaseMs) {
    return `not renewed for ${Math.round(age / 1000)} s (lease ${Math.round(timing.leaseMs / 1000)} s)`;
  }
  if (current === undefined || current.host !== hostname()) return undefined;
  if (current.pid === process.pid) return held.has(path) ? undefined : 'its process is gone';
  return processAlive(current.pid) ? undefined : 'its process is gone';
}

function refusal(
  dir: string,
  path: string,
  current: LockContent | undefined,
  age: number,
  timing: FileLeaseTiming,
) {
  const wait = Math.max(1, Math.ceil((timing.leaseMs - age) / 1000));
  if (current === undefined) {
    return stateLocked(
      `the state directory ${dir} is locked by ${path}, whose content cannot be read (empty or not a lock); it is taken over once it has not been renewed for ${Math.round(timing.leaseMs / 1000)} s, in ${wait} s`,
      undefined,
    );
  }
  return stateLocked(
    `the state directory ${dir} is in use by ${describeHolder(current)}, renewed ${Math.round(age / 1000)} s ago; two writers would undo each other's changes. A holder that stops renewing is taken over after ${Math.round(timing.leaseMs / 1000)} s`,
    current,
  );
}

/**
 * Takes the lease of state directory `dir` (created if missing) for `command`, waiting up to
 * `options.timeoutMs`; throws STATE_LOCKED naming the holder.
 */
export async function acquireFileLease(
  dir: string,
  command: string,
  options: AcquireOptions,
  timing: FileLeaseTiming,
): Promise<Lease> {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw stateIo(`cannot create the state directory ${dir}`, err);
  }
  const path = join(dir, LOCK_FILE);
  const deadline = Date.now() + options.timeoutMs;
  // The term follows the lock taken over (a lock removed on release starts again at 1: the file
  // store fences by the lock's nonce, the term only tells holders apart in messages).
  let lastTerm = 0;
  for (;;) {
    lastTerm = Math.max(lastTerm, readLock(path)?.term ?? 0);
    const content: LockContent = {
      pid: process.pid,
      host: hostname(),
      since: new Date().toISOString(),
      command,
      nonce: randomBytes(8).toString('hex'),
      term: lastTerm + 1,
    };
    if (!held.has(path) && tryCreate(path, content)) return holdFileLease(path, content, timing);
    const stats = statOf(path);
    if (stats !== undefined) {
      const current = readLock(path);
      const age = Date.now() - stats.mtimeMs;
      const why = staleness(path, current, age, timing);
      if (why !== undefined) {
        if (takeOver(path, stats)) options.onTakeover?.(current, why);
        continue;
      }
      if (Date.now() >= deadline) throw refusal(dir, path, current, age, timing);
    }
    // Gone just now (stats undefined) or held: look again shortly.
    if (options.signal?.aborted === true) throw refusal(dir, path, readLock(path), 0, timing);
    await sleep(stats === undefined ? 0 : WAIT_STEP_MS);
  }
}

function holdFileLease(path: string, content: LockContent, timing: FileLeaseTiming): Lease {
  held.add(path);
  let renewedAt = Date.now();
  let lost: string | undefined;
  const listeners: ((reason: string) => void)[] = [];
  const markLost = (reason: string): void => {
    if (lost !== undefined) return;
    lost = reason;
    clearInterval(timer);
    clearTimeout(expiry);
    // Not ours any more: this process may take it again like any other writer.
    held.delete(path);
    process.off('exit', releaseNow);
    for (const listener of listeners) listener(reason);
  };
  const renew = (): void => {
    if (lost !== undefined || !held.has(path)) return;
    const now = readLock(path);
    if (now?.nonce !== content.nonce) {
      markLost(`the lock ${path} was taken over${now === undefined ? '' : ` by ${describeHolder(now)}`}`);
      return;
    }
    try {
      const at = new Date();
      utimesSync(path, at, at);
      renewedAt = at.getTime();
      armExpiry();
    } catch {
      // Tried again next tick; the lease expires (and is lost) before anyone may take it over.
    }
  };
  const timer = setInterval(renew, timing.renewMs);
  timer.unref();
  // Trusted until one renewal before others may take it: a stalled holder stops first.
  const trustMs = timing.leaseMs - timing.renewMs;
  let expiry: NodeJS.Timeout | undefined;
  /** Counts the lease lost when it was not renewed in time: `onLost` fires, not just `held()`. */
  function armExpiry(): void {
    clearTimeout(expiry);
    expiry = setTimeout(
      () => {
        if (!isHeld()) markLost(`the lock ${path} was not renewed for ${Math.round(trustMs / 1000)} s`);
        else armExpiry();
      },
      trustMs - (Date.now() - renewedAt) + 1,
    );
    expiry.unref();
  }
  const isHeld = (): boolean => lost === undefined && held.has(path) && Date.now() - renewedAt < trustMs;
  armExpiry();
  const release = async (): Promise<void> => {
    clearInterval(timer);
    clearTimeout(expiry);
    if (!held.delete(path)) return;
    process.off('exit', releaseNow);
    // Only our own file: a lock taken over after we were presumed dead is not ours to remove.
    if (readLock(path)?.nonce !== content.nonce) return;
    try {
      unlinkSync(path);
    } catch {
      // Gone already.
    }
  };
  const releaseNow = (): void => {
    void release();
  };
  // A process that ends without releasing (an uncaught error) still leaves no lock behind.
  process.on('exit', releaseNow);
  return {
    holder: content,
    term: content.term,
    held: isHeld,
    assertHeld() {
      if (!isHeld()) throw leaseLost(lost ?? `the lease of ${path} was not renewed in time`);
    },
    onLost(listener) {
      listeners.push(listener);
    },
    release,
  };
}

/** The current holder of the lock in `dir`, if readable (a standby's view of the leader). */
export function fileLeaseHolder(dir: string): { holder: LeaseHolder; term: number } | undefined {
  const current = readLock(join(dir, LOCK_FILE));
  if (current === undefined) return undefined;
  const { term, ...holder } = current;
  return { holder, term };
}

/** True when `lease`'s lock file is still its own: the file store's check before a save. */
export function fileLeaseIsCurrent(dir: string, lease: Lease): boolean {
  return readLock(join(dir, LOCK_FILE))?.nonce === lease.holder.nonce;
}
