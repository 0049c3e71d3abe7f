/**
 * `Stalled`: the desired state does not validate (CONFIG_INVALID). Nothing touches the API
 * until a load succeeds again; the issues go to /status and to the log, once per distinct set
 * (a stalled daemon does not repeat itself on every tick), with one `invalid` run recorded in
 * the state store per distinct set.
 */
import { formatIssue } from '../config/issues.js';
import type { ConfigIssue } from '../config/types.js';
import type { StateStore } from '../engine/state.js';
import { type ReconcileError, toReconcileError } from '../errors.js';
import type { PendingHead } from '../git.js';
import type { Logger } from '../log.js';
import type { DaemonMetrics } from './metrics.js';
import type { StatusTracker } from './status.js';

/** Reports invalid loads, and the first valid one after them. */
export interface StalledReporter {
  /** Records an invalid load: /status, metrics, the state store's runs, the log. */
  report(
    error: ReconcileError,
    trigger: string,
    startedAt: Date,
    started: number,
    pendingHead: PendingHead | undefined,
  ): Promise<void>;
  /** A load validated: logs `config.valid` when the daemon was stalled. */
  resolved(revision: string): void;
}

export function createStalledReporter(options: {
  readonly status: StatusTracker;
  readonly metrics: DaemonMetrics;
  readonly logger: Logger;
  readonly state: StateStore;
}): StalledReporter {
  const { status, metrics, logger, state } = options;
  // The last issue set reported, so a stalled daemon does not repeat itself every tick.
  let reportedIssues: string | undefined;

  return {
    resolved(revision) {
      if (reportedIssues === undefined) return;
      logger.info({ event: 'config.valid', revision }, 'config valid again');
      reportedIssues = undefined;
    },
    async report(error, trigger, startedAt, started, pendingHead) {
      const issues = (error.details?.issues ?? []) as ConfigIssue[];
      const revision = await pendingHead?.head;
      const at = new Date();
      if (revision !== undefined) status.attempted(revision);
      status.stalled(issues, { code: error.code, message: error.message, at: at.toISOString() });
      metrics.setConfigValid(false);
      const durationMs = Math.round(performance.now() - started);
      metrics.observeReconcile('invalid', durationMs);
      const key = JSON.stringify(issues);
      if (key === reportedIssues) {
        logger.debug(
          { event: 'config.still-invalid', trigger },
          'config still invalid; waiting for the files to change',
        );
        return;
      }
      reportedIssues = key;
      state.addRun({
        revision: revision ?? 'unknown',
        trigger,
        startedAt: startedAt.toISOString(),
        durationMs,
        result: 'invalid',
        counts: { issues: issues.length },
        error: error.message,
      });
      try {
        await state.save();
      } catch (err) {
        logger.warn(
          { event: 'state.save.failed', error: toReconcileError(err).message },
          'cannot save the state',
        );
      }
      // Logged last: by the time anyone reads it, the run is over and /status says Stalled.
      logger.error(
        {
          event: 'config.invalid',
          trigger,
          ...(revision === undefined ? {} : { revision }),
          issues: issues.map((issue) => formatIssue(issue)),
        },
        'config invalid; nothing is written until the files change',
      );
    },
  };
}
