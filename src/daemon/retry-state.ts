/**
 * The daemon's own retry after a run with retryable failures (API unavailable, rate limited,
 * a read that failed, the state directory): one pending timer, and what it covers (`full`, or
 * the failed subjects, merged when a second failure comes before it fires).
 *
 * The delay is edgesync's one backoff (`src/backoff.ts`), but never shorter than the
 * longest `Retry-After` the API sent in the meantime: a 429 that asks for an hour is not
 * answered by a retry three seconds later. That floor is capped (`MAX_RETRY_AFTER_MS`), so a
 * confused or hostile `Retry-After` cannot park the daemon for a day; scheduled, webhook and
 * file-change runs are not held back by it (they are what the operator asked for).
 */

import { type BackoffBounds, backoffDelay } from '../backoff.js';
import { ERROR_CODES, type ErrorCode } from '../errors.js';
import type { Logger } from '../log.js';
import type { StatusTracker } from './status.js';

/** The longest a retry waits for a `Retry-After`: 15 minutes. */
export const MAX_RETRY_AFTER_MS = 15 * 60_000;

/** Whether waiting can fix a failure with this code (an outage, a rate limit, the state directory). */
export function isRetryable(code: string): boolean {
  return Object.hasOwn(ERROR_CODES, code) && ERROR_CODES[code as ErrorCode].retryable;
}

/** What a retry covers: every resource, or these subjects. */
type RetryScope = 'full' | ReadonlySet<string>;

/** The pending retry of one daemon. */
export interface RetryState {
  /** The API asked to wait `ms` before the next request (a reply's Retry-After). */
  noteRetryAfter(ms: number): void;
  /** Schedules (or re-schedules, widening its scope) the retry after a failure with `code`. */
  schedule(scope: 'full' | readonly string[], code: string): void;
  /** Drops the pending timer (a full run covers it); the attempt count stays. */
  cancel(): void;
  /** A run without retryable failures: the backoff starts again from the first attempt. */
  reset(): void;
  readonly pending: boolean;
}

/** What the retry state needs from the daemon. */
export interface RetryStateOptions {
  readonly backoff: BackoffBounds;
  readonly random?: () => number;
  readonly status: StatusTracker;
  readonly logger: Logger;
  /** Called when the timer fires, with the attempt number and the scope. */
  fire(attempt: number, scope: RetryScope): void;
  /** False once the daemon stops: nothing is scheduled any more. */
  active(): boolean;
  readonly now?: () => number;
}

/** Creates the retry state; nothing is pending. */
export function createRetryState(options: RetryStateOptions): RetryState {
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  let pending: { timer: NodeJS.Timeout; scope: RetryScope } | undefined;
  let attempt = 0;
  // Epoch ms before which the API asked us not to come back, and the wait it asked (capped).
  let notBefore = 0;
  let asked = 0;

  function cancel(): void {
    if (pending !== undefined) clearTimeout(pending.timer);
    pending = undefined;
  }

  return {
    noteRetryAfter(ms) {
      const capped = Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
      if (now() + capped <= notBefore) return;
      notBefore = now() + capped;
      asked = capped;
    },
    schedule(scope, code) {
      if (!options.active()) return;
      const before = pending?.scope;
      const covered: RetryScope =
        scope === 'full' || before === 'full' ? 'full' : new Set([...(before ?? []), ...scope]);
      cancel();
      attempt += 1;
      const backoffMs = backoffDelay(attempt, options.backoff, random);
      const remainingMs = Math.max(0, notBefore - now());
      const delayMs = Math.max(backoffMs, remainingMs);
      const reason = remainingMs > backoffMs ? 'retry-after' : 'backoff';
      // What the API asked for, while its wait is still running.
      const retryAfterMs = remainingMs > 0 ? asked : 0;
      const at = new Date(now() + delayMs);
      options.status.setRetry({ attempt, at, code, reason, ...(retryAfterMs > 0 ? { retryAfterMs } : {}) });
      options.logger.info(
        {
          event: 'retry.scheduled',
          attempt,
          delayMs,
          code,
          reason,
          ...(retryAfterMs > 0 ? { retryAfterMs } : {}),
          scope: covered === 'full' ? 'full' : covered.size,
        },
        'retry scheduled',
      );
      const fired = attempt;
      // stop() cancels the timer before anything else, so a timer that fires is never late.
      const timer = setTimeout(() => {
        pending = undefined;
        options.fire(fired, covered);
      }, delayMs);
      pending = { timer, scope: covered };
    },
    cancel,
    reset() {
      if (attempt === 0 && pending === undefined) return;
      cancel();
      attempt = 0;
      options.status.setRetry(null);
    },
    get pending() {
      return pending !== undefined;
    },
  };
}
