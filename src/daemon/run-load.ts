/**
 * The load step of a daemon run: the desired state, loaded incrementally, and its revision
 * (the git SHA, or a digest of the files). A load that does not validate is reported as
 * `Stalled` (stalled.ts) and handed back as `invalid`: nothing touches the API until a load
 * succeeds again.
 */
import type { DesiredStateLoader, LoadResult } from '../config/loader.js';
import { type ReconcileError, toReconcileError } from '../errors.js';
import { resolveRevision, startGitHead } from '../git.js';
import type { Logger } from '../log.js';
import type { DaemonMetrics } from './metrics.js';
import type { StalledReporter } from './stalled.js';
import type { StatusTracker } from './status.js';
import { realpathOrUndefined } from './watcher.js';

/** A load that validated, or the CONFIG_INVALID error with the revision git gave (if any). */
export type RunLoad =
  | { readonly loaded: LoadResult; readonly revision: string }
  | { readonly invalid: ReconcileError; readonly revision: string | undefined };

/** When the run that loads started: a stalled report names its trigger and duration. */
export interface RunStart {
  readonly trigger: string;
  readonly startedAt: Date;
  /** `performance.now()` at the start. */
  readonly started: number;
}

export interface RunLoaderOptions {
  /** The config path as configured (absolute; may be a symlink a git-sync sidecar swaps). */
  readonly configPath: string;
  readonly loader: DesiredStateLoader;
  readonly stalled: StalledReporter;
  readonly status: StatusTracker;
  readonly metrics: DaemonMetrics;
  readonly logger: Logger;
}

/** The load step of the controller's runs; errors other than CONFIG_INVALID are thrown. */
export function createRunLoader(options: RunLoaderOptions): (run: RunStart) => Promise<RunLoad> {
  const { loader, stalled, status, metrics, logger } = options;
  return async (run) => {
    // The revision's git process runs beside the load, on the directory the load resolves to.
    const realDir = realpathOrUndefined(options.configPath);
    const pendingHead = realDir === undefined ? undefined : startGitHead(realDir);
    try {
      const loadStarted = performance.now();
      const loaded = await loader.load(options.configPath);
      const durationMs = Math.round(performance.now() - loadStarted);
      logger.debug({ event: 'config.loaded', ...loaded.stats, durationMs }, 'config loaded');
      const revision = await resolveRevision(loaded.state.configDir, loaded.state.digest, pendingHead);
      stalled.resolved(revision);
      status.loaded(revision);
      status.syncResources(loaded.state.resources);
      metrics.setConfigValid(true);
      return { loaded, revision };
    } catch (err) {
      const error = toReconcileError(err);
      if (error.code !== 'CONFIG_INVALID') throw error;
      await stalled.report(error, run.trigger, run.startedAt, run.started, pendingHead);
      return { invalid: error, revision: await pendingHead?.head };
    }
  };
}
