/**
 * The cron trigger (node-cron): each tick only requests a full reconcile, which is how drift
 * made outside git (someone editing in the dashboard) is found between pushes.
 */
import { createTask, type ScheduledTask, validate } from 'node-cron';
import { ReconcileError } from '../errors.js';
import type { Logger } from '../log.js';

/** Every five minutes (docs/design.md, The daemon). */
export const DEFAULT_SCHEDULE = '*/5 * * * *';

/** Throws USAGE unless `expression` is a cron expression node-cron accepts (5 fields, or 6 with seconds). */
export function assertSchedule(expression: string): void {
  if (!validate(expression)) throw new ReconcileError('USAGE', scheduleMistake(expression));
}

/** One line: what is wrong and what the syntax looks like. */
function scheduleMistake(expression: string): string {
  return `--schedule ${JSON.stringify(expression)} is not a cron expression: five fields, minute hour day-of-month month day-of-week (a sixth in front for seconds), e.g. --schedule "*/5 * * * *" for every five minutes`;
}

/**
 * Milliseconds between the next two ticks of `expression` (the cap of the retry backoff: a
 * retry never waits longer than the schedule would). At least one second.
 */
export function scheduleIntervalMs(expression: string): number {
  const task = createTask(expression, () => undefined);
  try {
    const [first, second] = task.getNextRuns(2);
    if (first === undefined || second === undefined) return 60_000;
    return Math.max(1000, second.getTime() - first.getTime());
  } finally {
    void task.destroy();
  }
}

/** A running schedule. */
export interface Schedule {
  /** Stops ticking; safe to call twice. */
  stop(): Promise<void>;
}

/** Starts calling `onTick` on every tick of `expression` (validated first). */
export function startSchedule(expression: string, onTick: () => void, logger: Logger): Schedule {
  assertSchedule(expression);
  // node-cron's own warnings (a missed tick after a long GC pause, say) go to our log, not console.
  const cronLogger = {
    info: (message: string) => logger.debug({ source: 'node-cron' }, message),
    warn: (message: string) => logger.debug({ source: 'node-cron' }, message),
    error: (message: string | Error) => logger.warn({ source: 'node-cron', err: message }, 'cron error'),
    debug: (message: string | Error) => logger.trace({ source: 'node-cron', err: message }, 'cron debug'),
  };
  const task: ScheduledTask = createTask(expression, () => onTick(), {
    name: 'edgesync-reconcile',
    logger: cronLogger,
    suppressMissedWarning: true,
  });
  void task.start();
  let stopped = false;
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      await task.destroy();
    },
  };
}
