/**
 * The API's rate limit (docs/design.md, The emulator): a token bucket of N requests/s per access key, burst N.
 * A request that finds its bucket empty is answered 429 with an integer `Retry-After`
 * (seconds, at least 1) before faults, authentication or the handler: a rate limiter sits in
 * front of the application, as a gateway does. Rejected requests take no token, so a client
 * that keeps knocking is not punished beyond the limit itself.
 *
 * Buckets are keyed by the `AccessKey` header as sent (absent = its own bucket), so a wrong
 * key cannot drain the right key's budget. The key is only a map key: never printed or
 * recorded.
 */

/** Counts since the emulator started (or since `resetCounts`). */
export interface RateLimitCounts {
  /** Requests let through by the limiter (all of them when no limit is set). */
  admitted: number;
  /** Requests answered 429 by the limiter (random or scripted 429 faults are not counted). */
  limited: number;
}

/** What the limiter decided for one request. */
export type RateDecision = { limited: false } | { limited: true; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  /** `now()` at the last refill, in milliseconds. */
  at: number;
}

/** Past this many distinct keys, buckets that have refilled completely are forgotten. */
const MAX_BUCKETS = 10_000;

const ADMIT: RateDecision = { limited: false };

/** Checks that a limit is a positive, finite number of requests per second. */
export function checkRateLimit(limit: number): number {
  if (!(Number.isFinite(limit) && limit > 0)) {
    throw new RangeError(`rate limit must be a positive number of requests per second, got ${limit}`);
  }
  return limit;
}

/** Per-key token buckets; no limit (the default) admits everything. */
export class RateLimiter {
  #limit: number | undefined;
  readonly #buckets = new Map<string, Bucket>();
  readonly #now: () => number;
  #admitted = 0;
  #limited = 0;

  /** `now` is a clock in milliseconds (default `performance.now`); tests inject one. */
  constructor(limit?: number, now: () => number = () => performance.now()) {
    this.#now = now;
    this.set(limit);
  }

  /** Requests per second per key (and the burst); undefined when unlimited. */
  get limit(): number | undefined {
    return this.#limit;
  }

  /** Sets or removes the limit; every bucket starts full again. Throws RangeError on a bad limit. */
  set(limit: number | undefined): void {
    this.#limit = limit === undefined ? undefined : checkRateLimit(limit);
    this.#buckets.clear();
  }

  /** Admitted and limited requests so far. */
  counts(): RateLimitCounts {
    return { admitted: this.#admitted, limited: this.#limited };
  }

  /** Sets both counts back to zero (the buckets are left as they are). */
  resetCounts(): void {
    this.#admitted = 0;
    this.#limited = 0;
  }

  /** Takes a token from `key`'s bucket, or says how long until one is there. */
  take(key: string): RateDecision {
    const limit = this.#limit;
    if (limit === undefined) {
      this.#admitted += 1;
      return ADMIT;
    }
    // Burst N, but never below one request: a limit under 1/s still lets a request through.
    const capacity = Math.max(1, limit);
    const now = this.#now();
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      if (this.#buckets.size >= MAX_BUCKETS) this.#forgetFullBuckets(limit, capacity, now);
      bucket = { tokens: capacity, at: now };
      this.#buckets.set(key, bucket);
    } else {
      bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.at) / 1000) * limit);
      bucket.at = now;
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      this.#admitted += 1;
      return ADMIT;
    }
    this.#limited += 1;
    // Retry-After is whole seconds on the wire; round up so a client that obeys it finds a token.
    const retryAfterSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / limit));
    return { limited: true, retryAfterSeconds };
  }

  /** Bounds the map against a client that sends a new key every time. */
  #forgetFullBuckets(limit: number, capacity: number, now: number): void {
    for (const [key, bucket] of this.#buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1000) * limit >= capacity) this.#buckets.delete(key);
    }
    // Every bucket is busy: forget the oldest one (it starts full if it comes back).
    if (this.#buckets.size >= MAX_BUCKETS) {
      const oldest = this.#buckets.keys().next().value;
      if (oldest !== undefined) this.#buckets.delete(oldest);
    }
  }
}
