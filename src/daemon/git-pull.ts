/**
 * `--git-pull`: `git pull --ff-only` in the config directory before webhook, schedule and
 * start-up runs. A failed pull is logged, counted and shown in /status; the run goes on with
 * the checkout it has, so the last good revision stays.
 */
import { gitPullFastForward, isGitWorkTree } from '../git.js';
import type { Logger } from '../log.js';
import type { DaemonMetrics } from './metrics.js';
import type { StatusTracker } from './status.js';
import { realpathOrUndefined } from './watcher.js';

/** Pull errors may quote a remote URL; never let credentials in one reach a log or /status. */
export function redactCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, '$1[redacted]@');
}

/** What a puller works with. */
export interface GitPullOptions {
  /** The config path as configured (may be a symlink a git-sync sidecar swaps). */
  readonly configPath: string;
  readonly status: StatusTracker;
  readonly metrics: DaemonMetrics;
  readonly logger: Logger;
}

/** Returns `pull()`: fast-forwards the config directory when it is a git work tree; never throws. */
export function createGitPuller(options: GitPullOptions): () => Promise<void> {
  const { status, metrics, logger } = options;
  // The real directory last found to be a work tree: asking git again costs a process spawn
  // on every webhook. A git-sync swap gives a new real path, which is asked afresh.
  let knownWorkTree: string | undefined;

  return async function pull(): Promise<void> {
    const dir = realpathOrUndefined(options.configPath);
    if (dir === undefined || (dir !== knownWorkTree && !(await isGitWorkTree(dir)))) {
      logger.debug({ event: 'git.pull.skipped' }, 'config directory is not a git work tree; nothing to pull');
      return;
    }
    knownWorkTree = dir;
    const at = new Date().toISOString();
    try {
      await gitPullFastForward(dir);
      status.setPull({ at, ok: true });
      logger.debug({ event: 'git.pull.done' }, 'git pull done');
    } catch (err) {
      const error = redactCredentials((err as Error).message);
      status.setPull({ at, ok: false, error });
      metrics.countGitPullFailure();
      logger.warn({ event: 'git.pull.failed', error }, 'git pull failed; the last good revision stays');
    }
  };
}
