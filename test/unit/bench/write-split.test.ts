/**
 * `splitWrites`, which the apply benchmark shows the writes' pace with: the first fifth of an
 * apply's writes (V8 compiling the request path) apart from the rest.
 */
import { describe, expect, it } from 'vitest';
import { splitRates, splitWrites } from '../../../bench/engine-process.js';

describe('splitWrites', () => {
  it('times the first fifth of the replies apart from the rest', () => {
    // 20 replies: the first 4 every 10 ms (a slow start), then every 2 ms.
    const times = [100, 110, 120, 130];
    for (let i = 1; i <= 16; i += 1) times.push(130 + 2 * i);
    const split = splitWrites(times);
    expect(split).toEqual({ firstWrites: 3, firstMs: 30, restWrites: 16, restMs: 32 });
    // Writes per second: 3 in 30 ms, 16 in 32 ms.
    expect(split === undefined ? undefined : splitRates(split)).toEqual({ first: 100, rest: 500 });
  });

  it('rounds the fifth down and keeps every reply after it in the rest', () => {
    // 12 replies, one a millisecond: the fifth is 2, so the first part is 1 reply after the first.
    const times = Array.from({ length: 12 }, (_, i) => i);
    expect(splitWrites(times)).toEqual({ firstWrites: 1, firstMs: 1, restWrites: 10, restMs: 10 });
  });

  it('gives no split for fewer than 10 writes', () => {
    expect(splitWrites([1, 2, 3, 4, 5, 6, 7, 8, 9])).toBeUndefined();
    expect(splitWrites([])).toBeUndefined();
    // Ten is enough: a fifth of two, so one reply in the first part and eight in the rest.
    expect(splitWrites([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])).toEqual({
      firstWrites: 1,
      firstMs: 1,
      restWrites: 8,
      restMs: 8,
    });
  });
});
