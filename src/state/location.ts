/**
 * Where the file store's directory may be (docs/state.md, Where the state directory is). Never
 * inside the config directory, nor inside the git work tree that holds it: a commit could then
 * write the state (a forged inventory entry makes `--prune` delete what edgesync never owned,
 * a committed state file breaks every `git pull`), and `entriesFile` could read the install
 * key into a request body. The default lies outside both, under `$XDG_STATE_HOME`.
 */
import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { ReconcileError } from '../errors.js';

/** The state directory of earlier builds, beside the config directory: never read any more. */
const LEGACY_STATE_DIR_NAME = '.edgesync-state';

/** `path` with its longest existing prefix resolved through symlinks (the rest may not exist yet). */
function realPathOf(path: string): string {
  const absolute = resolve(path);
  let head = absolute;
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(head), ...rest.reverse());
    } catch {
      const parent = dirname(head);
      if (parent === head) return absolute;
      rest.push(basename(head));
      head = parent;
    }
  }
}

function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep));
}

/** The git work tree holding `dir` (the nearest ancestor with a `.git` entry), if any. */
function gitWorkTreeOf(dir: string): string | undefined {
  let current = realPathOf(dir);
  for (;;) {
    if (existsSync(join(current, '.git'))) return current;
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

/**
 * The default state directory of config directory `configDir`: one per config directory,
 * named after it and a digest of its real path, under `$XDG_STATE_HOME/edgesync` (else
 * `~/.local/state/edgesync`). The container image sets EDGESYNC_STATE_DIR=/var/lib/edgesync.
 */
export function defaultStateDir(
  configDir: string,
  env: Readonly<Record<string, string | undefined>>,
): string {
  const real = realPathOf(configDir);
  const home = env.HOME !== undefined && env.HOME !== '' ? env.HOME : homedir();
  const base =
    env.XDG_STATE_HOME !== undefined && env.XDG_STATE_HOME !== ''
      ? env.XDG_STATE_HOME
      : join(home, '.local', 'state');
  const digest = createHash('sha256').update(real).digest('hex').slice(0, 12);
  return join(resolve(base), 'edgesync', `${basename(real) || 'config'}-${digest}`);
}

/** Refuses (USAGE) a state directory inside the config directory or the git work tree holding it. */
export function assertStateDirOutside(stateDir: string, configDir: string): void {
  const state = realPathOf(stateDir);
  const config = realPathOf(configDir);
  const tree = gitWorkTreeOf(configDir);
  const inside = isInside(state, config)
    ? `the config directory ${config}`
    : tree !== undefined && isInside(state, tree)
      ? `the git work tree ${tree} that holds the config directory`
      : undefined;
  if (inside === undefined) return;
  throw new ReconcileError(
    'USAGE',
    `the state directory ${stateDir} is inside ${inside}: a commit could write it, and a document could read it. Choose a directory outside it (--state-dir or EDGESYNC_STATE_DIR), or leave both unset for the default`,
  );
}

/**
 * A warning when the state directory of an earlier build (`.edgesync-state` beside the config
 * directory) exists but is not the one in use: its inventory is not read any more.
 */
export function legacyStateWarning(configDir: string, inUse: string): string | undefined {
  const legacy = join(dirname(realPathOf(configDir)), LEGACY_STATE_DIR_NAME);
  if (!existsSync(legacy) || realPathOf(inUse) === legacy) return undefined;
  return `${legacy} (the state directory of an earlier edgesync) is not used any more; the state is kept in ${inUse}. If that directory is outside every git work tree, move its files there (or use edgesync state migrate) to keep its inventory`;
}
