/**
 * The seeded randomness of the repository generator, kept apart because tests that want a
 * reproducible sequence of their own (fault schedules, crash points) use it too.
 */

/** mulberry32: a tiny seeded PRNG, so the repository is the same on every run (tests reuse it). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One of `items`, chosen by `random`. */
export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}
