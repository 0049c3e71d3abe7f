/**
 * The little git edgesync needs: the commit SHA of a work tree (the revision in logs and
 * status), `git pull --ff-only`, and the `origin` URL (where commit statuses go). Runs git
 * with execFile (no shell) and a timeout.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const GIT_TIMEOUT_MS = 60_000;

/** HEAD's SHA when `dir` is inside a git work tree; undefined otherwise. */
export async function gitHead(dir: string): Promise<string | undefined> {
  try {
    const { stdout } = await run('git', ['-C', dir, 'rev-parse', 'HEAD'], { timeout: GIT_TIMEOUT_MS });
    const sha = stdout.trim();
    return /^[0-9a-f]{40,64}$/.test(sha) ? sha : undefined;
  } catch {
    return undefined;
  }
}

/** True when `dir` is inside a git work tree. */
export async function isGitWorkTree(dir: string): Promise<boolean> {
  try {
    const { stdout } = await run('git', ['-C', dir, 'rev-parse', '--is-inside-work-tree'], {
      timeout: GIT_TIMEOUT_MS,
    });
    return stdout.trim() === 'true';
  } catch {
    return false;
  }
}

/** `git pull --ff-only`; rejects with git's own message (first line of stderr) on failure. */
export async function gitPullFastForward(dir: string): Promise<void> {
  try {
    // Never wait on a credentials prompt: a daemon has no one to answer it.
    await run('git', ['-C', dir, 'pull', '--ff-only', '--quiet'], {
      timeout: GIT_TIMEOUT_MS,
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
    });
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr?.trim().split('\n')[0];
    throw new Error(stderr || (err as Error).message);
  }
}

/** A `git rev-parse HEAD` started before a load, and the real directory it asks about. */
export interface PendingHead {
  readonly dir: string;
  readonly head: Promise<string | undefined>;
}

/**
 * Starts asking HEAD of `dir` (a real path), so that the git process (15-30 ms in the daemon,
 * most of a file-change run's time outside the reconcile) runs while the caller loads it.
 */
export function startGitHead(dir: string): PendingHead {
  return { dir, head: gitHead(dir) };
}

/**
 * The revision shown everywhere: the git SHA when there is one, else `config:<digest prefix>`.
 * `pending` answers only if it asked the directory the load read: a git-sync swap of the
 * link in between makes it the old checkout's, and then HEAD is asked again.
 */
export async function resolveRevision(
  configDir: string,
  configDigest: string,
  pending?: PendingHead,
): Promise<string> {
  const head =
    pending !== undefined && pending.dir === configDir ? await pending.head : await gitHead(configDir);
  return head ?? `config:${configDigest.slice(0, 12)}`;
}

/** The URL of remote `name` (`origin`) of the work tree at `dir`; undefined when there is none. */
export async function gitRemoteUrl(dir: string, name: string): Promise<string | undefined> {
  try {
    const { stdout } = await run('git', ['-C', dir, 'remote', 'get-url', name], { timeout: GIT_TIMEOUT_MS });
    const url = stdout.trim();
    return url === '' ? undefined : url;
  } catch {
    return undefined;
  }
}
