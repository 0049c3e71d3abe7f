/**
 * Retry delays after a retryable failure (API unavailable, rate limited, a read that failed):
 * exponential, with full jitter so that many daemons hit by the same outage do not come back
 * in lock-step (AWS architecture blog, "Exponential Backoff And Jitter").
 */

/** Bounds of the retry delay: the first retry waits at least `baseMs`, none waits more than `maxMs`. */
export interface BackoffBounds {
  readonly baseMs: number;
  readonly maxMs: number;
}

/**
 * Delay before retry number `attempt` (1-based): uniform in `[baseMs, ceiling]` where the
 * ceiling is `baseMs · 2^(attempt-1)`, capped at `maxMs`. That is full jitter above a floor:
 * plain full jitter (uniform from 0) could retry at once, which is what backing off avoids.
 */
export function backoffDelay(
  attempt: number,
  bounds: BackoffBounds,
  random: () => number = Math.random,
): number {
  const floor = Math.min(bounds.baseMs, bounds.maxMs);
  const exponent = Math.min(Math.max(attempt - 1, 0), 30);
  const ceiling = Math.min(bounds.maxMs, bounds.baseMs * 2 ** exponent);
  return Math.round(floor + random() * Math.max(0, ceiling - floor));
}
