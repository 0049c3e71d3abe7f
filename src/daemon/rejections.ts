/**
 * Rejected hook requests in the log, in aggregate. A scanner hammering `/hooks/*` with bad
 * signatures must not write one warn line per request (a flood test wrote 3,613): the first
 * rejection of a quiet period is logged at once, the rest are counted and logged as one
 * `webhook.rejected` line per hook and reason with their `count` at the end of the window.
 * The metric `edgesync_webhook_requests_total` still counts every one.
 */
import type { Logger } from '../log.js';

/** Default window over which rejections are summed: one minute. */
const REJECTION_WINDOW_MS = 60_000;

export interface RejectionLog {
  /** One rejected request. */
  record(hook: string, reason: string): void;
  /** Logs what is counted and closes the window (the server is closing). */
  flush(): void;
}

export function createRejectionLog(logger: Logger, windowMs = REJECTION_WINDOW_MS): RejectionLog {
  let timer: NodeJS.Timeout | undefined;
  const counted = new Map<string, { hook: string; reason: string; count: number }>();

  function flush(): void {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    for (const { hook, reason, count } of counted.values()) {
      logger.warn({ event: 'webhook.rejected', hook, reason, count, windowMs }, 'webhook requests rejected');
    }
    counted.clear();
  }

  return {
    record(hook, reason) {
      if (timer === undefined) {
        logger.warn({ event: 'webhook.rejected', hook, reason, count: 1 }, 'webhook rejected');
        timer = setTimeout(flush, windowMs);
        timer.unref();
        return;
      }
      const key = `${hook}\u0000${reason}`;
      const entry = counted.get(key);
      if (entry === undefined) counted.set(key, { hook, reason, count: 1 });
      else entry.count += 1;
    },
    flush,
  };
}
