import { describe, expect, it } from 'vitest';
import { createPacer, type Pacer } from '../../../src/api/pacer.js';

/** A pacer on a clock the test moves; `waits` are the sleeps it asked for. */
function pacerAt(cap?: number): { pacer: Pacer; waits: number[]; advance(ms: number): void; now(): number } {
  let clock = 10_000;
  const waits: number[] = [];
  const pacer = createPacer(cap, {
    now: () => clock,
    sleep: async (ms) => {
      waits.push(ms);
    },
  });
  return {
    pacer,
    waits,
    advance: (ms) => {
      clock += ms;
    },
    now: () => clock,
  };
}

/** `n` replies with `status`, one every `gapMs`, each sent just before it came back. */
function replies(test: ReturnType<typeof pacerAt>, n: number, status: number, gapMs: number): void {
  for (let i = 0; i < n; i += 1) {
    test.advance(gapMs);
    test.pacer.observe(status, test.now() - 1);
  }
}

describe('pacer', () => {
  it('lets requests go unpaced (no promise) until the 429s say a limit is near', () => {
    const test = pacerAt();

    replies(test, 30, 200, 2);
    replies(test, 4, 429, 1);

    expect(test.pacer.slot()).toBeUndefined();
    expect(test.pacer.reading()).toEqual({ rps: undefined, throttled: 4 });
  });

  it('learns the rate the API accepted over the last second from a burst of 429s, then spaces requests by it', async () => {
    const test = pacerAt();
    replies(test, 40, 200, 5);

    replies(test, 5, 429, 1);
    await Promise.all([test.pacer.slot(), test.pacer.slot(), test.pacer.slot()]);

    expect(test.pacer.reading()).toEqual({ rps: 40, throttled: 5 });
    expect(test.waits.map(Math.round)).toEqual([0, 25, 50]);
  });

  it('cuts the pace on a 429 to a request sent at the current pace, not for one sent before', () => {
    const test = pacerAt();
    replies(test, 40, 200, 5);
    replies(test, 5, 429, 1);
    const learnedAt = test.now();
    test.advance(2_000);
    replies(test, 60, 200, 16);
    const before = test.pacer.reading().rps as number;

    test.pacer.observe(429, learnedAt - 1);
    const uncut = test.pacer.reading().rps;
    test.pacer.observe(429, test.now());

    expect(before).toBeGreaterThan(40); // grown while it held the requests back
    expect(uncut).toBe(before);
    expect(test.pacer.reading().rps).toBeCloseTo(before * 0.85, 5);
  });

  it('forgets the pace once 429s that keep coming cut it below a quarter of the most the API accepted in a second', () => {
    const test = pacerAt();
    replies(test, 40, 200, 5);
    replies(test, 5, 429, 1);

    // 40 · 0.85⁸ = 10.9, still above 40 / 4; the ninth cut takes it under.
    replies(test, 8, 429, 100);
    const stillPaced = test.pacer.reading().rps;
    replies(test, 1, 429, 100);

    expect(stillPaced).toBeDefined();
    expect(test.pacer.reading().rps).toBeUndefined();
    expect(test.pacer.slot()).toBeUndefined();
  });

  it('never crawls under 429s that come at any pace: cut below a quarter of the peak, it is forgotten', () => {
    const test = pacerAt();
    replies(test, 40, 200, 5);
    replies(test, 5, 429, 1);
    const learned = test.pacer.reading().rps as number;
    const paces: (number | undefined)[] = [];

    // One reply in 14 is a 429 whatever the pace (a flaky proxy), for 30 seconds of requests.
    for (let i = 1; test.now() < 40_000; i += 1) {
      const rps = test.pacer.reading().rps;
      test.advance(rps === undefined ? 10 : 1000 / rps);
      test.pacer.observe(i % 14 === 0 ? 429 : 200, test.now());
      paces.push(test.pacer.reading().rps);
    }

    expect(learned).toBe(40);
    expect(paces.filter((rps) => rps !== undefined && rps < learned * 0.25)).toEqual([]);
    expect(paces.at(-1)).toBeUndefined();
  });

  it('keeps to the cap from the first request, below a learned pace too', async () => {
    const test = pacerAt(20);

    await Promise.all([test.pacer.slot(), test.pacer.slot(), test.pacer.slot()]);
    test.advance(500);
    await test.pacer.slot();
    replies(test, 100, 200, 5);
    replies(test, 5, 429, 1);

    expect(test.waits).toEqual([0, 50, 100, 0]);
    expect(test.pacer.reading().rps).toBe(20);
  });

  it('a pace learned again after one was forgotten does not spiral down: the floor is the peak, not the last pace', () => {
    const test = pacerAt();
    replies(test, 40, 200, 5);
    replies(test, 5, 429, 1);
    const paces: number[] = [];
    let sent = 0;

    // One reply in four is a 429 whatever the pace, for 30 seconds: the pace is learned,
    // forgotten and learned again, each time from the slower second before it.
    for (let i = 1; test.now() < 40_000; i += 1) {
      const rps = test.pacer.reading().rps;
      test.advance(rps === undefined ? 10 : 1000 / rps);
      test.pacer.observe(i % 4 === 0 || i % 16 < 3 ? 429 : 200, test.now());
      sent += 1;
      if (rps !== undefined) paces.push(rps);
    }

    expect(paces.length).toBeGreaterThan(0);
    expect(Math.min(...paces)).toBeGreaterThanOrEqual(10);
    // 30 s at no less than a quarter of the 40 a second it once saw accepted.
    expect(sent).toBeGreaterThan(300);
  });
});
