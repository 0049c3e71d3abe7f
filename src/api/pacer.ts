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
 *   a flaky proxy) answer a share of 429s at any pace, and pacing against them only slows down;
 * - then paces at the rate the API accepted over the last second: once the burst is spent,
 *   that is what the bucket refills at;
 * - on a 429 to a request sent at the current pace (replies to requests sent before a cut say
 *   nothing about the new pace), cuts the pace to CUT_FACTOR of itself, or to what the API
 *   accepted over the last second if that is less, and raises it by GROWTH_PER_REPLY for every
 *   accepted reply while the pace is what holds the requests back. The seconds below the limit
 *   fill the API's bucket, the seconds above spend it, so the average stays at the limit with
 *   a 429 every few seconds;
 * - forgets the pace once cuts take it below FORGET_BELOW_SHARE of the most the API ever
 *   accepted in one second: 429s that a slower pace does not cure are not a rate limit. The
 *   floor is the peak, not the pace first learned: a pace learned again after one was
 *   forgotten starts from the slow second before it, and measured against itself it spiralled
 *   down to MIN_RPS: 1,000 changes through 20 % of random 429s took over 120 s (17–31 s now,
 *   6 s never paced), through 10 % 10 s (6 s now).
 *
 * Requests are spaced `1000 / pace` ms apart in call order (no burst of its own), so concurrent
 * lanes share the pace fairly. The user's cap spaces them the same way.
 *
 * Each constant is kept for a figure of the rate-limited apply bench (`npm run bench --
 * --section rateLimited`: 1,000 changes against R = 100 req/s, target writes ≥ 0.9 R and ≤ 5 %
 * of requests answered 429; 1.06–1.09 R and 1.0–1.2 % with these) or of an apply through
 * random 429s; the figures are beside them and in docs/performance.md. Removed, for moving
 * no figure: a streak rule (8 cuts a second apart forget the pace: 1.00–1.06 R without it,
 * 1.02–1.06 R with), learning 3/4 of the accepted rate rather than all of it (1.00–1.02 R),
 * and the 100 ms buckets of the last second (10 ms buckets measured the same; the window is
 * now exact; 1 s buckets fell to 0.86–0.93 R).
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
/**
 * 429s among the last RECENT replies that make a limit. Learning from the first 429 changed
 * nothing on the bench, but paces an apply through a proxy's random 429s (1 reply in 14: no
 * pace at all with 5; see test/integration/api/pacing.test.ts).
 */
const LEARN_429S = 5;
/** Without the cut (only the last second's accepted rate) the bench's 429s doubled: 2.0 % vs 0.95 %. */
const CUT_FACTOR = 0.85;
/**
 * A pace cut below this share of the most the API accepted in one second is forgotten.
 * Without it, random 429s cut the pace on and on (growth adds only a little per reply).
 */
const FORGET_BELOW_SHARE = 0.25;
/** Per accepted reply while the pace binds. Without it the bench's writes fell to 0.90–0.93 R (1.02–1.06 R with it). */
const GROWTH_PER_REPLY = 0.05;
/** The pace never goes below this (requests per second): a pace of 0 would never send again. */
const MIN_RPS = 0.5;
/** The window of "the last second". */
const WINDOW_MS = 1000;

/** Times of events within the last WINDOW_MS, oldest first. */
function slidingWindow() {
  const times: number[] = [];
  let head = 0;
  return {
    add(at: number): void {
      times.push(at);
    },
    /** Events within WINDOW_MS before `now`. */
    count(now: number): number {
      while (head < times.length && (times[head] as number) <= now - WINDOW_MS) head += 1;
      // Compacted now and then, so the array holds about one window.
      if (head > 1024 && head * 2 > times.length) {
        times.splice(0, head);
        head = 0;
      }
      return times.length - head;
    },
  };
}

export function createPacer(capRps: number | undefined, clock: PaceClock): Pacer {
  const cap = capRps ?? Number.POSITIVE_INFINITY;
  let learned: number | undefined;
  /** The most replies the API accepted within one window so far. */
  let peakAccepted = 0;
  let lastCutAt = Number.NEGATIVE_INFINITY;
  let nextSlot = Number.NEGATIVE_INFINITY;
  let throttled = 0;
  // The last RECENT replies, true for a 429, as a ring.
  const recent: boolean[] = [];
  let recentAt = 0;
  let recent429 = 0;
  const accepted = slidingWindow();
  const replied = slidingWindow();

  function pace(): number {
    return Math.min(learned ?? Number.POSITIVE_INFINITY, cap);
  }

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
      replied.add(now);
      const was429 = status === 429;
      remember(was429);
      if (!was429) {
        accepted.add(now);
        peakAccepted = Math.max(peakAccepted, accepted.count(now));
        // Grows only while the pace binds: a client that sends slower than its pace would
        // otherwise raise it without bound and burst into the limit later.
        if (learned !== undefined && replied.count(now) >= 0.8 * learned) learned += GROWTH_PER_REPLY;
        return;
      }
      throttled += 1;
      const acceptedNow = accepted.count(now);
      const floor = peakAccepted * FORGET_BELOW_SHARE;
      if (learned === undefined) {
        // A pace under the floor would be forgotten at its first cut: not worth learning.
        if (recent429 < LEARN_429S || acceptedNow < floor) return;
        learned = Math.max(MIN_RPS, acceptedNow);
        lastCutAt = now;
        return;
      }
      if (sentAt < lastCutAt) return;
      lastCutAt = now;
      learned = Math.max(MIN_RPS, Math.min(learned * CUT_FACTOR, acceptedNow));
      if (learned < floor) learned = undefined;
    },

    reading() {
      const rps = pace();
      return { rps: rps === Number.POSITIVE_INFINITY ? undefined : rps, throttled };
    },
  };
}
