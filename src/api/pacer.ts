/**
 * The pace of one client's requests, shared by all of them: learned from the API's 429s, and
 * optionally capped by the user (`--max-rps`).
 *
 * The API limits each key with a token bucket whose numbers are not published (docs/design.md, Targets).
 * Without a pace, a big apply spends its time in 429s and Retry-After waits: every lane that
 * drew a 429 sleeps a whole second while the bucket refills unused. So the pacer:
 *
 * - lets requests go unpaced until the 429s say a limit is near: at least LEARN_429S of the
 *   last RECENT replies were 429. A lone 429 is not enough: the emulator's fault injection (and
 *   a flaky proxy) answer a share of 429s at any pace, and pacing against them only slows down.
 * - then paces at LEARN_SHARE of the rate the API accepted over the last second. Once the burst
 *   is spent, that rate is what the bucket refills at, but the second may still hold part of
 *   the burst (a client slower than the burst is long), so it starts below it and grows;
 * - on a 429 to a request sent at the current pace (replies to requests sent before a cut say
 *   nothing about the new pace), cuts the pace to CUT_FACTOR of itself, or to what the API
 *   accepted over the last second if that is less (a pace learned from a burst that took a
 *   while to spend overshoots); and raises it by GROWTH_PER_REPLY for every accepted reply while
 *   the pace is what holds the requests back. The seconds below the limit fill the API's
 *   bucket, the seconds above spend it, so the average stays at the limit with a 429 every few
 *   seconds;
 * - forgets the pace after STREAK_CUTS cuts each within a second of the last, or once cuts take
 *   it below FORGET_BELOW_SHARE of the pace first learned: 429s that a slower pace does not cure
 *   are not a rate limit (or the limit changed: the next burst learns anew).
 *
 * Requests are spaced `1000 / pace` ms apart in call order (no burst of its own), so concurrent
 * lanes share the pace fairly. The user's cap spaces them the same way.
 */

/** Time as the pacer sees it; tests pass their own. */
export interface PaceClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** What the pacer knows, for metrics and the benchmark. */
export interface PaceReading {
  /** Requests per second it allows now; undefined while requests go unpaced. */
  readonly rps: number | undefined;
  /** Replies answered 429 since the client was made. */
  readonly throttled: number;
}

export interface Pacer {
  /**
   * The wait before the next request may be sent: undefined when it may go at once (no pace,
   * no cap: no promise, no turn), else a promise that rejects if `signal` aborts first.
   */
  slot(signal?: AbortSignal): Promise<void> | undefined;
  /** Every reply's status, with the clock's time when its request was sent. */
  observe(status: number, sentAt: number): void;
  reading(): PaceReading;
}

/** Replies looked at to decide that the 429s mean a limit. */
const RECENT = 16;
const LEARN_429S = 5;
const LEARN_SHARE = 0.75;
const CUT_FACTOR = 0.85;
/** A pace learned from a second that held the whole burst is up to twice the limit: 5 cuts. */
const STREAK_CUTS = 8;
const STREAK_MS = 1000;
/**
 * A pace cut below this share of the pace first learned is forgotten. A real limit keeps the
 * pace near what was learned; 429s that come at any pace (a flaky proxy, fault injection) cut
 * it on and on while growth adds only a little per reply, and without this floor the client
 * settled at a few requests a second and crawled through a big apply.
 */
const FORGET_BELOW_SHARE = 0.25;
/** Per accepted reply: the pace grows by 5 % a second while it is what holds requests back. */
const GROWTH_PER_REPLY = 0.05;
/** The pace never goes below this (requests per second). */
const MIN_RPS = 0.5;
/** The accepted-replies count covers one second in buckets of this many ms. */
const BUCKET_MS = 100;
const BUCKETS = 1000 / BUCKET_MS;

export function createPacer(capRps: number | undefined, clock: PaceClock): Pacer {
  const cap = capRps ?? Number.POSITIVE_INFINITY;
  let learned: number | undefined;
  let learnedFirst = 0;
  let streak = 0;
  let lastCutAt = Number.NEGATIVE_INFINITY;
  let nextSlot = Number.NEGATIVE_INFINITY;
  let throttled = 0;
  // The last RECENT replies, true for a 429, as a ring.
  const recent: boolean[] = [];
  let recentAt = 0;
  let recent429 = 0;
  // Replies per BUCKET_MS over the last second, as a ring: accepted, and all of them.
  const accepted = new Array<number>(BUCKETS).fill(0);
  const replied = new Array<number>(BUCKETS).fill(0);
  let bucketStart = 0;
  let bucketIndex = 0;

  function pace(): number {
    return Math.min(learned ?? Number.POSITIVE_INFINITY, cap);
  }

  /** Moves the per-second ring to `now`, clearing the buckets it passes. */
  function advance(now: number): void {
    const steps = Math.floor((now - bucketStart) / BUCKET_MS);
    if (steps <= 0) return;
    for (let i = 0; i < Math.min(steps, BUCKETS); i += 1) {
      bucketIndex = (bucketIndex + 1) % BUCKETS;
      accepted[bucketIndex] = 0;
      replied[bucketIndex] = 0;
    }
    bucketStart += steps * BUCKET_MS;
  }

  const sum = (ring: number[]) => ring.reduce((a, b) => a + b, 0);

  function remember(was429: boolean): void {
    if (recent.length < RECENT) recent.push(was429);
    else {
      if (recent[recentAt]) recent429 -= 1;
      recent[recentAt] = was429;
      recentAt = (recentAt + 1) % RECENT;
    }
    if (was429) recent429 += 1;
  }

  return {
    slot(signal) {
      const rps = pace();
      if (rps === Number.POSITIVE_INFINITY) return undefined;
      const now = clock.now();
      const at = Math.max(now, nextSlot);
      nextSlot = at + 1000 / rps;
      return clock.sleep(at - now, signal);
    },

    observe(status, sentAt) {
      const now = clock.now();
      advance(now);
      replied[bucketIndex] = (replied[bucketIndex] as number) + 1;
      const was429 = status === 429;
      remember(was429);
      if (!was429) {
        accepted[bucketIndex] = (accepted[bucketIndex] as number) + 1;
        // Grows only while the pace binds: a client that sends slower than its pace would
        // otherwise raise it without bound and burst into the limit later.
        if (learned !== undefined && sum(replied) >= 0.8 * learned) learned += GROWTH_PER_REPLY;
        return;
      }
      throttled += 1;
      if (learned === undefined) {
        if (recent429 < LEARN_429S) return;
        learned = Math.max(MIN_RPS, LEARN_SHARE * sum(accepted));
        learnedFirst = learned;
        lastCutAt = now;
        streak = 0;
        return;
      }
      if (sentAt < lastCutAt) return;
      streak = now - lastCutAt < STREAK_MS ? streak + 1 : 1;
      lastCutAt = now;
      learned = Math.max(MIN_RPS, Math.min(learned * CUT_FACTOR, sum(accepted)));
      if (streak >= STREAK_CUTS || learned < learnedFirst * FORGET_BELOW_SHARE) learned = undefined;
    },

    reading() {
      const rps = pace();
      return { rps: rps === Number.POSITIVE_INFINITY ? undefined : rps, throttled };
    },
  };
}
