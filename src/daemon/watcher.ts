/**
 * The file trigger (chokidar). Two watches:
 *
 * - the *tree*: the config directory's real path, recursively, minus dot-files and dot-folders
 *   (never desired state) and the state directory (our own writes must not trigger us);
 * - the *link*: the config path's parent directory, filtered to the config path's own name. A
 *   git-sync sidecar publishes each revision by building a new worktree and renaming a fresh
 *   symlink over the old one; that rename is an event on the link's name in the parent, never
 *   in the old tree. On every such event the real path is resolved again and, when it moved,
 *   the tree watch is re-targeted to the new checkout. The same watch notices a config
 *   directory that is created after the daemon started (a sidecar's first sync).
 *
 * Events are debounced: a `git checkout` touching 200 files is one `onChange`, fired once every
 * file the burst touched kept its size, modification time and inode for `debounceMs` (and no
 * new event arrived). That short window keeps a file edit's push-to-applied time low; it is not
 * proof that a writer is done (editors, `cp` and scripts write a file in several steps, with
 * pauses longer than any debounce). So the watcher also tracks how long the files have been
 * quiet (`quietForMs`): the controller refuses to apply a plan that deletes anything until the
 * files have been quiet for `--settle-ms`, because a file read mid-write once deleted a
 * container and created it again 0.6 s later. A file that never stops changing is never read by
 * a file-change run. A symlink swap (git-sync publishes a finished checkout) fires at once.
 * `settled()` lets other runs wait for the same short window.
 * The watcher never reads the files: the loader does, once per run, from one realpath.
 */
import { realpathSync, statSync } from 'node:fs';
import { basename, dirname, relative, sep } from 'node:path';
import { type FSWatcher, watch } from 'chokidar';
import type { Logger } from '../log.js';

/** How to watch the config directory. */
export interface WatchOptions {
  /** The config path as configured (absolute); may be a symlink, may not exist yet. */
  readonly configPath: string;
  /** Absolute path of the state directory; ignored when it lies inside the tree. */
  /** The file store's directory, if any: its saves are not config changes. */
  readonly stateDir?: string;
  /** How long the changed files must stay unchanged (and no event arrive) before `onChange`. */
  readonly debounceMs: number;
  /**
   * Upper bound of the stability window (`--settle-ms`): a debounce set very long so that file
   * events never trigger runs must not hold every other run's read that long too.
   */
  readonly maxStableMs?: number;
  /** Called once per debounced burst, and at once when the symlink moved to a new target. */
  onChange(info: { files: number; swapped: boolean }): void;
  readonly logger: Logger;
}

/** A running watch. */
export interface ConfigWatcher {
  /** Resolves once no changed file is waiting to settle (at once when none is). */
  settled(): Promise<void>;
  /** Milliseconds since a file last changed (an event or a new fingerprint); Infinity if none has. */
  quietForMs(): number;
  close(): Promise<void>;
}

/** Size, modification time and inode of a file; `gone` when it cannot be stat'ed. */
function fingerprint(path: string): string {
  try {
    const s = statSync(path);
    return `${s.size}:${s.mtimeMs}:${s.ino}`;
  } catch {
    return 'gone';
  }
}

/** The real path of `path`, or undefined while it does not resolve (a sidecar's first sync). */
export function realpathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** True for a path under `root` with a segment starting with `.`, or at or under `stateDir`. */
function ignoredUnder(root: string, stateDir: string | undefined): (path: string) => boolean {
  return (path) => {
    if (stateDir !== undefined && (path === stateDir || path.startsWith(`${stateDir}${sep}`))) return true;
    const rel = relative(root, path);
    if (rel === '' || rel.startsWith('..')) return false;
    return rel.split(sep).some((segment) => segment.startsWith('.'));
  };
}

function ready(watcher: FSWatcher): Promise<void> {
  return new Promise((resolve) => watcher.once('ready', () => resolve()));
}

/** Starts both watches; resolves once they are ready (edits after this are seen). */
export async function watchConfig(options: WatchOptions): Promise<ConfigWatcher> {
  const { logger } = options;
  // Longest a burst of events may postpone onChange: 20 × the debounce, at least 2 s.
  const maxWaitMs = Math.max(2000, options.debounceMs * 20);
  const parent = dirname(options.configPath);
  const name = basename(options.configPath);
  let target = realpathOrUndefined(options.configPath);
  let tree: FSWatcher | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let firstEventAt: number | undefined;
  let pendingFiles = 0;
  // The files of the burst being settled, with their last fingerprint; and when one last changed
  // (kept after the burst fires: the controller asks how long the files have been quiet).
  const settling = new Map<string, string>();
  let lastChangeAt: number | undefined;
  let settleTimer: NodeJS.Timeout | undefined;
  let waiters: Array<() => void> = [];
  const stableMs = Math.min(options.debounceMs, options.maxStableMs ?? Number.POSITIVE_INFINITY);
  const pollMs = Math.max(10, Math.min(100, Math.round(stableMs / 5)));

  function release(): void {
    const done = waiters;
    waiters = [];
    for (const resolve of done) resolve();
  }

  function fire(swapped: boolean): void {
    if (timer !== undefined) clearTimeout(timer);
    if (settleTimer !== undefined) clearTimeout(settleTimer);
    timer = undefined;
    settleTimer = undefined;
    firstEventAt = undefined;
    settling.clear();
    const files = pendingFiles;
    pendingFiles = 0;
    if (!closed) options.onChange({ files, swapped });
    release();
  }

  /** True once every file of the burst kept its fingerprint for stableMs (stat'ing them again). */
  function stable(): boolean {
    const now = Date.now();
    for (const [path, seen] of settling) {
      const current = fingerprint(path);
      if (current === seen) continue;
      settling.set(path, current);
      lastChangeAt = now;
    }
    return now - (lastChangeAt ?? 0) >= stableMs;
  }

  /** Fires once the burst is stable. */
  function settle(): void {
    settleTimer = undefined;
    if (stable()) fire(false);
    else settleTimer = setTimeout(settle, pollMs);
  }

  function schedule(path: string): void {
    const now = Date.now();
    firstEventAt ??= now;
    pendingFiles += 1;
    lastChangeAt = now;
    settling.set(path, fingerprint(path));
    if (settleTimer !== undefined) return; // Settling already: the poll sees this file too.
    if (timer !== undefined) clearTimeout(timer);
    const wait = Math.max(0, Math.min(options.debounceMs, firstEventAt + maxWaitMs - now));
    timer = setTimeout(() => {
      timer = undefined;
      settle();
    }, wait);
  }

  async function watchTree(root: string): Promise<FSWatcher> {
    const watcher = watch(root, {
      ignoreInitial: true,
      ignored: ignoredUnder(root, options.stateDir),
      // The loader reads what the watcher saw: follow links inside the tree the same way.
      followSymlinks: true,
    });
    watcher.on('all', (event, path) => {
      logger.trace({ event, path: relative(root, path) }, 'config file event');
      schedule(path);
    });
    watcher.on('error', (err) => logger.warn({ err }, 'config watcher error'));
    await ready(watcher);
    return watcher;
  }

  async function retarget(): Promise<void> {
    const next = realpathOrUndefined(options.configPath);
    if (next === target && (tree !== undefined || next === undefined)) return;
    const previous = tree;
    tree = undefined;
    target = next;
    await previous?.close();
    if (next !== undefined && !closed) tree = await watchTree(next);
    if (closed) {
      await tree?.close();
      return;
    }
    logger.info({ event: 'config.link.changed', target: next ?? null }, 'config directory moved');
    fire(true);
  }

  const link = watch(parent, {
    depth: 0,
    ignoreInitial: true,
    followSymlinks: false,
    ignored: (path) => path !== parent && basename(path) !== name,
  });
  link.on('error', (err) => logger.warn({ err }, 'config link watcher error'));
  const [treeWatcher] = await Promise.all([
    target === undefined ? Promise.resolve(undefined) : watchTree(target),
    ready(link),
  ]);
  tree = treeWatcher;

  // Attached only now: chokidar reports the link itself while scanning, before `ready`.
  // Re-targeting is serialised, so two swaps in quick succession end on the last target.
  let swapping: Promise<void> = Promise.resolve();
  link.on('all', (_event, path) => {
    if (basename(path) !== name || closed) return;
    swapping = swapping.then(retarget).catch((err: unknown) => {
      logger.warn({ err }, 'cannot re-target the config watcher');
    });
  });

  return {
    // Waits only for the files the watcher saw change to keep their fingerprint for the short
    // window; whether a deletion may be applied is the controller's question (quietForMs).
    async settled() {
      while (!closed && settling.size > 0 && !stable()) {
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, pollMs);
        });
      }
    },
    quietForMs() {
      // Files of a burst not yet fired may have changed without a new event: stat them first.
      if (settling.size > 0) stable();
      return lastChangeAt === undefined ? Number.POSITIVE_INFINITY : Date.now() - lastChangeAt;
    },
    async close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      if (settleTimer !== undefined) clearTimeout(settleTimer);
      release();
      await swapping;
      await Promise.all([link.close(), tree?.close()]);
    },
  };
}
