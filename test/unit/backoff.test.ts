/**
 * edgesync's one backoff (src/backoff.ts): the equal-jitter formula shared by the API client,
 * the notifications and the daemon's retry, the abortable sleep, and the attempt loop.
 */
import { describe, expect, it } from 'vitest';
import { backoffDelay, retrying, sleep } from '../../src/backoff.js';

describe('backoffDelay (equal jitter)', () => {
  it.each([
    [1, 0, 1000],
    [1, 1, 2000],
    [2, 0, 2000],
    [2, 1, 4000],
    [3, 0.5, 6000],
    [8, 1, 256_000],
    [9, 1, 300_000],
    [9, 0, 150_000],
    [40, 1, 300_000],
  ])('retry %i with random %f waits %i ms (base 2 s, cap 300 s)', (retry, random, expected) => {
    expect(backoffDelay(retry, { baseMs: 2000, maxMs: 300_000 }, () => random)).toBe(expected);
  });

  it('never waits more than the cap, even when the base is above it', () => {
    expect(backoffDelay(1, { baseMs: 5000, maxMs: 1000 }, () => 1)).toBe(1000);
  });
});

describe('sleep', () => {
  it('rejects with the reason of an already aborted signal without waiting', async () => {
    const reason = new Error('stop');

    await expect(sleep(10_000, AbortSignal.abort(reason))).rejects.toBe(reason);
  });

  it('rejects as soon as the signal aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 20);

    await expect(sleep(10_000, controller.signal)).rejects.toThrow('stop');
  });
});

describe('retrying', () => {
  it('runs attempts with their numbers until one is done, waiting what each asked', async () => {
    const calls: [number, number][] = [];
    const started = performance.now();

    const result = await retrying(
      async (n) => {
        calls.push([n, Math.round(performance.now() - started)]);
        return n < 3 ? { retryInMs: 30 } : { done: `done after ${n}` };
      },
      { interrupted: () => new Error('not aborted') },
    );

    expect(result).toBe('done after 3');
    expect(calls.map(([n]) => n)).toEqual([1, 2, 3]);
    expect(calls[2]?.[1]).toBeGreaterThanOrEqual(55);
  });

  it('throws what `interrupted` makes when the signal ends a wait, and tries no more', async () => {
    const controller = new AbortController();
    let attempts = 0;
    setTimeout(() => controller.abort(), 20);

    const outcome = retrying(
      async () => {
        attempts += 1;
        return { retryInMs: 60_000 };
      },
      { signal: controller.signal, interrupted: (n) => new Error(`stopped after attempt ${n}`) },
    );

    await expect(outcome).rejects.toThrow('stopped after attempt 1');
    expect(attempts).toBe(1);
  });

  it('passes an attempt that throws straight through', async () => {
    await expect(
      retrying(
        async () => {
          throw new Error('final');
        },
        { interrupted: () => new Error('no') },
      ),
    ).rejects.toThrow('final');
  });
});
