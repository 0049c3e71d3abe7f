/**
 * What the fault tests share: the faults every request may meet (a fifth of the calls fail,
 * some after the emulator handled them) and an API client that retries fast, so a run under
 * faults takes seconds, not the minutes production back-off would.
 */
import { createApiClient } from '../../src/api/client.js';
import type { ApiClient, RequestEvent } from '../../src/api/types.js';
import type { FaultOptions } from '../../src/emulator/index.js';
import { TEST_KEY } from './emulator.js';
import { prng } from './prng.js';

/**
 * 20 % of calls fail — 429 with Retry-After, 500, 503, dropped before handling, handled and
 * then dropped (a lost reply) — plus 0–15 ms of latency, drawn from `random`.
 */
export function faultRates(random: () => number): FaultOptions {
  return {
    rate429: 0.05,
    retryAfterSeconds: 1,
    rate500: 0.04,
    rate503: 0.04,
    rateDrop: 0.04,
    rateDropAfter: 0.03,
    latencyMs: [0, 15],
    random,
  };
}

/** A client of the emulator at `url` with short retry delays and jitter drawn from `seed`. */
export function faultTestClient(
  url: string,
  seed: number,
  onRequest?: (event: RequestEvent) => void,
): ApiClient {
  return createApiClient({
    baseUrl: url,
    accessKey: TEST_KEY,
    timeoutMs: 5_000,
    retry: { baseDelayMs: 5, maxDelayMs: 100 },
    random: prng(seed),
    ...(onRequest === undefined ? {} : { onRequest }),
  });
}
