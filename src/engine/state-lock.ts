/**
 * One writer per state directory: `plan`, `apply` and `run` hold `<state-dir>/edgesync.lock`
 * while they work. Two daemons (or a daemon and an `apply`) on one state directory would
 * otherwise undo each other's writes every run, each sure its state file is the truth.
 *
 * The lock file is created whole and at once: the holder's JSON (pid, host, start time, a
 * nonce) is written to a temporary file that is then hard-linked to the lock's name, and a
 * link fails when the name exists. A second writer reads the holder and refuses, naming it.
 * A lock whose holder is gone (same host, and no process with that pid, or our own pid in a
 * process that does not hold it: a restarted container reuses pids) is taken over by renaming
 * it aside first; the rename moves one file, so of two writers taking over at once only the
 * one that moved the dead holder's file goes on.
 *
 * Not covered: a lock on another host cannot be checked for life (it is refused, with the file
 * to delete); a network file system may not make link and rename atomic; two clusters or two
 * state directories pointed at one bunny.net account are not seen at all.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ReconcileError } from '../errors.js';

export const LOCK_FILE = 'edgesync.lock';

/** Who holds a lock (the lock file's content). */
export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  /** ISO time the holder took the lock. */
  readonly since: string;
  /** `plan`, `apply` or `run`. */
  readonly command: string;
  readonly nonce: string;
}

/** A lock this process holds. */
export interface StateLock {
  readonly path: string;
  /** Removes the lock file when it is still ours; idempotent. */
  release(): void;
}

/** Lock paths this process holds: a second holder in one process (tests) is refused too. */
const held = new Set<string>();

function readHolder(path: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockHolder>;
    if (typeof parsed.pid !== 'number' || typeof parsed.host !== 'string') return undefined;
    return {
      pid: parsed.pid,
      host: parsed.host,
      since: String(parsed.since ?? 'unknown'),
      command: String(parsed.command ?? 'unknown'),
      nonce: String(parsed.nonce ?? ''),
    };
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

/** True when the holder is certainly gone: only a holder on this host can be checked. */
function holderIsGone(holder: LockHolder, path: string): boolean {
  if (holder.host !== hostname()) return false;
  if (holder.pid === process.pid) return !held.has(path);
  return !processAlive(holder.pid);
}

function describe(holder: LockHolder): string {
  return `pid ${holder.pid} on host ${holder.host} (edgesync ${holder.command}, since ${holder.since})`;
}

function stateIo(message: string, cause: unknown): ReconcileError {
  const code = (cause as NodeJS.ErrnoException).code ?? (cause as Error).message;
  return new ReconcileError('STATE_IO', `${message}: ${code}`, { cause });
}

/** Links a complete lock file to `path`; false when `path` exists. */
function tryCreate(path: string, holder: LockHolder): boolean {
  const temporary = `${path}.tmp-${process.pid}-${holder.nonce}`;
  try {
    writeFileSync(temporary, `${JSON.stringify(holder)}\n`, { mode: 0o644 });
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

/** Moves a dead holder's lock aside; false when what was moved was not that lock (put back). */
function takeOver(path: string, dead: LockHolder): boolean {
  const aside = `${path}.stale-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch {
    return false; // Someone else moved it first.
  }
  const moved = readHolder(aside);
  if (moved !== undefined && moved.nonce !== dead.nonce) {
    // A writer took the lock between our read and our rename: give it back.
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
  return moved === undefined || moved.nonce === dead.nonce;
}

/**
 * Takes the lock of `stateDir` (created if missing) for `command`, or throws STATE_IO naming
 * the holder. A lock left by a dead process on this host is taken over; `onTakeover` says whose.
 */
export function lockStateDir(
  stateDir: string,
  command: string,
  onTakeover?: (previous: LockHolder) => void,
): StateLock {
  try {
    mkdirSync(stateDir, { recursive: true });
  } catch (err) {
    throw stateIo(`cannot create the state directory ${stateDir}`, err);
  }
  const path = join(stateDir, LOCK_FILE);
  const holder: LockHolder = {
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
    command,
    nonce: randomBytes(8).toString('hex'),
  };
  for (let attempt = 0; attempt < 3; attempt += 1) {
    if (!held.has(path) && tryCreate(path, holder)) return holdLock(path, holder);
    const current = readHolder(path);
    if (current === undefined) {
      // Never torn (it is linked whole): unreadable means foreign content, or gone just now.
      if (attempt < 2) continue;
      throw new ReconcileError(
        'STATE_IO',
        `the state directory ${stateDir} is locked by ${path}, whose holder cannot be read; delete it if no edgesync uses this state directory`,
      );
    }
    if (!holderIsGone(current, path)) {
      throw new ReconcileError(
        'STATE_IO',
        `the state directory ${stateDir} is in use by ${describe(current)}; two writers would undo each other's changes. If that process is gone, delete ${path}`,
        { details: { holder: { pid: current.pid, host: current.host, since: current.since } } },
      );
    }
    if (takeOver(path, current)) onTakeover?.(current);
  }
  throw new ReconcileError('STATE_IO', `cannot take the lock ${path}: other writers keep taking it`);
}

function holdLock(path: string, holder: LockHolder): StateLock {
  held.add(path);
  const release = (): void => {
    if (!held.delete(path)) return;
    process.off('exit', release);
    // Only our own file: a lock taken over after we were presumed dead is not ours to remove.
    if (readHolder(path)?.nonce !== holder.nonce) return;
    try {
      unlinkSync(path);
    } catch {
      // Gone already.
    }
  };
  // A process that ends without releasing (an uncaught error) still leaves no lock behind.
  process.on('exit', release);
  return { path, release };
}
