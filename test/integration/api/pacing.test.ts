/**
 * The client's pace against a server that limits the key to R requests a second (a token
 * bucket with burst R, 429 + Retry-After beyond it, as the emulator's `--rate-limit` and design
 * docs/design.md, The emulator), over real HTTP: it converges to the limit without a failed request and with few 429s;
 * random 429s that no pace would cure do not make it pace at all; the user's cap applies.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../../src/emulator/index.js';
import { createTestClient, type TestClient } from '../../helpers/api-client.js';
import { TEST_KEY, TEST_SEED } from '../../helpers/emulator.js';
import { type Handler, send, startTestServer, type TestServer } from '../../helpers/http-server.js';
import { RULE_ID, rule, updateRuleBody } from './fixtures.js';

let server: TestServer | undefined;
let test: TestClient | undefined;
let emulator: Emulator | undefined;

afterEach(async () => {
  await test?.dispose();
  await server?.close();
  await emulator?.close();
  [server, test, emulator] = [undefined, undefined, undefined];
});

/** A token bucket of `rate` tokens a second, burst `rate`: a 429 with Retry-After when empty. */
function rateLimited(rate: number): Handler {
  let tokens = rate;
  let refilledAt = performance.now();
  return (_request, res) => {
    const now = performance.now();
    tokens = Math.min(rate, tokens + ((now - refilledAt) / 1000) * rate);
    refilledAt = now;
    if (tokens >= 1) {
      tokens -= 1;
      send(res, 200, rule);
      return;
    }
    const seconds = Math.max(1, Math.ceil((1 - tokens) / rate));
    send(res, 429, { statusCode: 429 }, { 'retry-after': String(seconds) });
  };
}

/** `count` E1 writes by `lanes` workers, as the apply's lanes send them; the failures. */
async function writeAll(api: TestClient['client'], count: number, lanes: number): Promise<unknown[]> {
  let next = 0;
  const failures: unknown[] = [];
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < count) {
        next += 1;
        await api
          .updateCustomWafRule(RULE_ID, updateRuleBody)
          .catch((error: unknown) => failures.push(error));
      }
    }),
  );
  return failures;
}

describe('pacing against a rate-limited API', () => {
  it('converges to the limit: every write applied, at most 5 % of requests answered 429, the pace near the limit', async () => {
    const rate = 50;
    server = await startTestServer(rateLimited(rate));
    test = createTestClient(server.url, { retry: { maxAttempts: 6, maxRetryAfterMs: 5_000 } });

    const failures = await writeAll(test.client, 400, 8);

    expect(failures).toEqual([]);
    const throttled = server.requests.length - 400;
    expect(test.client.pacing().throttled).toBe(throttled);
    expect(throttled / server.requests.length).toBeLessThanOrEqual(0.05);
    // Learned near the limit: neither collapsed nor gone back to unpaced.
    const pace = test.client.pacing().rps;
    expect(pace).toBeGreaterThan(0.7 * rate);
    expect(pace).toBeLessThan(1.5 * rate);
  }, 30_000);

  it("converges to the emulator's --rate-limit too: every write applied, the rule as written", async () => {
    const rate = 50;
    emulator = await startEmulator({ accessKey: TEST_KEY, seed: TEST_SEED, rateLimit: rate });
    test = createTestClient(emulator.url, {
      accessKey: TEST_KEY,
      retry: { maxAttempts: 6, maxRetryAfterMs: 5_000 },
    });

    const failures = await writeAll(test.client, 300, 8);

    expect(failures).toEqual([]);
    const { admitted, limited } = emulator.rateLimiter.counts();
    expect(admitted).toBe(300);
    expect(limited).toBe(test.client.pacing().throttled);
    expect(limited / (admitted + limited)).toBeLessThanOrEqual(0.05);
    expect(await test.client.getCustomWafRule(RULE_ID)).toMatchObject({ ruleName: updateRuleBody.ruleName });
  }, 30_000);

  it('does not pace for 429s that come at any pace (one request in 14)', async () => {
    let count = 0;
    server = await startTestServer((_request, res) => {
      count += 1;
      if (count % 14 === 0) send(res, 429, { statusCode: 429 }, { 'retry-after': '0' });
      else send(res, 200, rule);
    });
    test = createTestClient(server.url);

    const failures = await writeAll(test.client, 300, 8);

    expect(failures).toEqual([]);
    expect(test.client.pacing()).toEqual({ rps: undefined, throttled: server.requests.length - 300 });
  });

  it('keeps to the user cap: requests spaced 1/cap apart, no pace of its own without 429s', async () => {
    server = await startTestServer(rateLimited(1_000));
    test = createTestClient(server.url, { rateLimitPerSecond: 25 });
    // A warm connection first: a TCP connect inside the measured span would shorten it.
    await test.client.updateCustomWafRule(RULE_ID, updateRuleBody);

    await writeAll(test.client, 10, 4);

    expect(test.client.pacing()).toEqual({ rps: 25, throttled: 0 });
    // Nine gaps of 40 ms. Arrivals, not sends, are what the server sees: on a loaded host one
    // arrival can come a slot late, so eight gaps are required (unpaced, the ten arrive within
    // a few ms of each other).
    expect((server.requests[10]?.at ?? 0) - (server.requests[1]?.at ?? 0)).toBeGreaterThanOrEqual(320);
  });
});
