import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/emulator/rate-limit.js';
import { call, TEST_KEY, test } from '../helpers/emulator.js';

describe('the token bucket', () => {
  it('allows a burst of N, then one request per 1/N s, per key', () => {
    let now = 0;
    const limiter = new RateLimiter(4, () => now);

    const burst = Array.from({ length: 6 }, () => limiter.take('a').limited);
    const other = limiter.take('b').limited;
    now += 250; // one token back at 4/s
    const afterQuarter = [limiter.take('a').limited, limiter.take('a').limited];
    now += 10_000; // refills to the burst, never beyond
    const afterLong = Array.from({ length: 5 }, () => limiter.take('a').limited);

    expect(burst).toEqual([false, false, false, false, true, true]);
    expect(other).toBe(false);
    expect(afterQuarter).toEqual([false, true]);
    expect(afterLong).toEqual([false, false, false, false, true]);
    expect(limiter.counts()).toEqual({ admitted: 10, limited: 4 });
  });

  it('answers Retry-After in whole seconds, at least 1, long enough to find a token', () => {
    let now = 0;
    const slow = new RateLimiter(0.25, () => now);

    expect(slow.take('k')).toEqual({ limited: false });
    expect(slow.take('k')).toEqual({ limited: true, retryAfterSeconds: 4 });
    now += 1000;
    expect(slow.take('k')).toEqual({ limited: true, retryAfterSeconds: 3 });
    now += 3000;
    expect(slow.take('k')).toEqual({ limited: false });

    const fast = new RateLimiter(1000, () => now);
    for (let i = 0; i < 1000; i += 1) fast.take('k');
    expect(fast.take('k')).toEqual({ limited: true, retryAfterSeconds: 1 });
  });

  it('refuses limits that are not positive numbers, and admits everything without one', () => {
    expect(() => new RateLimiter(0)).toThrow(RangeError);
    expect(() => new RateLimiter(-1)).toThrow(RangeError);
    expect(() => new RateLimiter(Number.NaN)).toThrow(RangeError);
    const open = new RateLimiter();
    for (let i = 0; i < 100; i += 1) expect(open.take('k').limited).toBe(false);
    expect(open.counts()).toEqual({ admitted: 100, limited: 0 });
  });
});

/**
 * How many tokens a bucket of `limit`/s can have refilled while `run` took: the slack a test
 * over real HTTP must allow on a loaded machine (every request of a burst is in flight at once).
 */
async function timed<T>(run: () => Promise<T>): Promise<{ value: T; refilled: number }> {
  const started = performance.now();
  const value = await run();
  return { value, refilled: (performance.now() - started) / 1000 };
}

/** Fires `n` requests at once and returns their statuses and Retry-After headers. */
async function burst(
  url: string,
  n: number,
  path: string,
  key: string | null = TEST_KEY,
): Promise<{ status: number; retryAfter: string | null; text: string }[]> {
  return Promise.all(
    Array.from({ length: n }, async () => {
      const response = await fetch(`${url}${path}`, { headers: key === null ? {} : { AccessKey: key } });
      return {
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        text: await response.text(),
      };
    }),
  );
}

describe('--rate-limit over HTTP', () => {
  test('past the burst, 429 with an integer Retry-After ≥ 1, counted by the limiter and the journal', async ({
    emu,
  }) => {
    emu.rateLimiter.set(5);

    const { value: replies, refilled: seconds } = await timed(() =>
      burst(emu.url, 20, '/shield/waf/custom-rules/42'),
    );
    const ok = replies.filter((r) => r.status === 200).length;
    const limited = replies.filter((r) => r.status === 429);

    // Five tokens at once, plus what refilled at 5/s while the 20 requests were served.
    expect(ok).toBeGreaterThanOrEqual(5);
    expect(ok).toBeLessThanOrEqual(5 + Math.floor(seconds * 5));
    expect(limited.length).toBeGreaterThan(0);
    expect(ok + limited.length).toBe(20);
    for (const r of limited) {
      expect(r.retryAfter).toMatch(/^[1-9]\d*$/);
      expect(JSON.parse(r.text)).toEqual({ statusCode: 429 });
    }
    expect(emu.rateLimiter.counts()).toEqual({ admitted: ok, limited: limited.length });
    expect(emu.journal.count({ status: 429 })).toBe(limited.length);
    // A limited request never reaches the handler: nothing but 200s and 429s in the journal.
    expect(emu.journal.count()).toBe(20);
  });

  test('each area answers its 429 in its own error shape', async ({ emu }) => {
    emu.rateLimiter.set(1);
    await call(emu, 'GET', '/dnszone/12345');

    const shieldProblem = await call(emu, 'GET', '/shield/shield-zone/42/access-lists');
    const mc = await call(emu, 'GET', '/mc/apps/app1');
    const core = await call(emu, 'GET', '/dnszone/12345');

    expect(shieldProblem.status).toBe(429);
    expect(shieldProblem.json).toMatchObject({
      status: 429,
      title: 'Too Many Requests',
      instance: '/shield/shield-zone/42/access-lists',
    });
    expect(mc.status).toBe(429);
    expect(mc.json).toMatchObject({ status: 429, errors: [], id: 'app1' });
    expect(core.status).toBe(429);
    expect(core.text).toBe('');
    for (const r of [shieldProblem, mc, core]) expect(r.headers.get('retry-after')).toBe('1');
  });

  test('the bucket refills at N per second', async ({ emu }) => {
    emu.rateLimiter.set(2);
    const { value: first, refilled } = await timed(() => burst(emu.url, 6, '/mc/regions/optimal'));
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const second = await burst(emu.url, 2, '/mc/regions/optimal');

    const firstOk = first.filter((r) => r.status === 200).length;
    expect(firstOk).toBeGreaterThanOrEqual(2);
    expect(firstOk).toBeLessThanOrEqual(2 + Math.floor(refilled * 2));
    expect(second.map((r) => r.status)).toEqual([200, 200]);
  });

  test('buckets are per access key: a wrong key neither drains nor uses the right one', async ({ emu }) => {
    emu.rateLimiter.set(1);

    const wrong = await burst(emu.url, 3, '/dnszone/12345', 'not-the-key');
    const right = await burst(emu.url, 1, '/dnszone/12345');

    expect(wrong.map((r) => r.status)).toContain(429);
    expect(wrong.map((r) => r.status)).toContain(401);
    expect(right.map((r) => r.status)).toEqual([200]);
  });

  test('writes past the limit change nothing', async ({ emu }) => {
    emu.rateLimiter.set(1);
    await call(emu, 'GET', '/shield/waf/custom-rule/1234');

    const patch = await call(emu, 'PATCH', '/shield/waf/custom-rule/1234', { body: { ruleName: 'changed' } });

    expect(patch.status).toBe(429);
    expect(emu.state.customRule(1234)?.ruleName).toBe('Block SQLi');
  });

  test('set(undefined) lifts the limit', async ({ emu }) => {
    emu.rateLimiter.set(1);
    emu.rateLimiter.set(undefined);

    const replies = await burst(emu.url, 10, '/dnszone/12345');

    expect(replies.every((r) => r.status === 200)).toBe(true);
    expect(emu.rateLimiter.limit).toBeUndefined();
  });
});
