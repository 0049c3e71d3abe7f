/**
 * The one backoff of edgesync: the API client's retries (`api/http.ts`), the notifications'
 * retries (`daemon/notify/delivery.ts`) and the daemon's retry of a failed run
 * (`daemon/retry-state.ts`) all wait `backoffDelay`, and the two request loops run through
 * `retrying`.
 *
 * Not `p-retry`: its releases for Node 20 compute the wait themselves (exponential times a
 * random factor of 1–2, from `Math.random`), while every caller here decides each wait from
 * the reply — a `Retry-After` replaces the backoff, a create that may have been applied is
 * never resent (`api/failures.ts`), a rate-limit pace spaces the attempts — and the tests
 * draw the jitter from their own source.
 */
import { setTimeout as delay } from 'node:timers/promises';

/** Bounds of the backoff: retry 1 waits between half of `baseMs` and `baseMs`, none more than `maxMs`. */
export interface BackoffBounds {
  readonly baseMs: number;
  readonly maxMs: number;
}

/**
 * Delay before retry number `retry` (1-based): "equal jitter" (AWS architecture blog,
 * "Exponential Backoff And Jitter") — uniform in `[c/2, c]` where `c = min(maxMs, baseMs · 2^(retry-1))`.
 * Jittered from the first retry, so many clients (or lanes) hit by the same outage do not come
 * back in lock-step, and never at once, which is what backing off avoids.
 */
export function backoffDelay(
  retry: number,
  bounds: BackoffBounds,
  random: () => number = Math.random,
): number {
  const exponent = Math.min(Math.max(retry - 1, 0), 30);
  const ceiling = Math.max(0, Math.min(bounds.maxMs, bounds.baseMs * 2 ** exponent));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Waits `ms`, rejecting with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return delay(ms, undefined, signal === undefined ? {} : { signal }).catch((error: unknown) => {
    throw signal?.aborted ? signal.reason : error;
  });
}

/** What one attempt decided: its result, or the wait before the next attempt. */
export type AttemptOutcome<T> = { readonly done: T } | { readonly retryInMs: number };

export interface RetryingOptions {
  /** Ends a wait between attempts early. */
  readonly signal?: AbortSignal;
  /** What `retrying` throws when `signal` ends the wait after attempt number `attempt`. */
  interrupted(attempt: number): unknown;
}

/**
 * Runs `attempt(1)`, `attempt(2)`, … until one returns `{ done }`, waiting each `retryInMs`
 * in between. The attempt decides everything else — whether to try again, how long to wait,
 * when to give up (by returning `done` or throwing) — because that depends on what it got back.
 */
export async function retrying<T>(
  attempt: (n: number) => Promise<AttemptOutcome<T>>,
  options: RetryingOptions,
): Promise<T> {
  for (let n = 1; ; n += 1) {
    const outcome = await attempt(n);
    if ('done' in outcome) return outcome.done;
    await sleep(outcome.retryInMs, options.signal).catch(() => {
      throw options.interrupted(n);
    });
  }
}
