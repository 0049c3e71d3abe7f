/**
 * The state directory's lock on real files: one holder, its release, take-overs of a holder
 * that is gone, and a release that never removes a lock another writer holds now.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCK_FILE, type LockHolder, lockStateDir } from '../../../src/engine/state-lock.js';
import { tempDir } from '../../helpers/temp-dir.js';

function holderIn(dir: string): LockHolder {
  return JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as LockHolder;
}

describe('lockStateDir', () => {
  it('creates the directory and a lock naming this process; a second holder is refused until release', () => {
    const dir = join(tempDir(), 'state');

    const lock = lockStateDir(dir, 'apply');
    const holder = holderIn(dir);
    let refused: unknown;
    try {
      lockStateDir(dir, 'run');
    } catch (err) {
      refused = err;
    }
    lock.release();
    const again = lockStateDir(dir, 'run');
    again.release();

    expect(holder).toMatchObject({ pid: process.pid, host: hostname(), command: 'apply' });
    expect(refused).toMatchObject({
      code: 'STATE_IO',
      message: `the state directory ${dir} is in use by pid ${process.pid} on host ${hostname()} (edgesync apply, since ${holder.since}); two writers would undo each other's changes. If that process is gone, delete ${join(dir, LOCK_FILE)}`,
    });
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  it("takes over a lock with this process's pid that this process does not hold (a restarted container)", () => {
    const dir = tempDir();
    const stale = {
      pid: process.pid,
      host: hostname(),
      since: '2026-01-01T00:00:00.000Z',
      command: 'run',
      nonce: 'old',
    };
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify(stale));
    const previous: LockHolder[] = [];

    const lock = lockStateDir(dir, 'run', (holder) => previous.push(holder));

    expect(previous).toEqual([stale]);
    expect(holderIn(dir).nonce).not.toBe('old');
    lock.release();
  });

  it('does not remove, on release, a lock that another writer holds now', () => {
    const dir = tempDir();
    const lock = lockStateDir(dir, 'run');
    const other = {
      pid: 1,
      host: 'elsewhere',
      since: '2026-01-01T00:00:00.000Z',
      command: 'run',
      nonce: 'theirs',
    };
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify(other));

    lock.release();

    expect(holderIn(dir)).toEqual(other);
  });
});
