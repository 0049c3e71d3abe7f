/**
 * Faults over real HTTP: 429 with Retry-After, 5xx, timeouts, dropped and refused connections,
 * the idempotency rule for E4 creates, the client-side rate limit and aborts. Timing assertions
 * use the server's arrival timestamps and only lower bounds that the client must honour, plus
 * generous upper bounds that catch hangs.
 */
import { getEventListeners } from 'node:events';
import { Agent } from 'undici';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { writeRequests } from '../../../src/api/operations.js';
import { createTestClient, failure, type TestClient } from '../../helpers/api-client.js';
import { until } from '../../helpers/daemon.js';
import {
  dropConnection,
  hang,
  reply,
  sequence,
  startTestServer,
  type TestServer,
} from '../../helpers/http-server.js';
import {
  APP_ID,
  app,
  patchAppBody,
  patchAppCreatingBody,
  RULE_ID,
  rule,
  updateRuleBody,
  ZONE,
} from './fixtures.js';

let server: TestServer;
const clients: TestClient[] = [];

beforeEach(async () => {
  server = await startTestServer();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.dispose()));
  await server.close();
});

function client(overrides: Parameters<typeof createTestClient>[1] = {}): TestClient {
  const created = createTestClient(server.url, overrides);
  clients.push(created);
  return created;
}

const bots = { categories: [], error: { statusCode: 200, success: true } };
const E6_LINE = `read bot categories (GET /shield/shield-zone/${ZONE}/bot-categorization)`;
const E4_LINE = `update app (PATCH /mc/apps/${APP_ID})`;
const AMBIGUOUS =
  'not retried because it creates containers and may have been applied: re-read the app and plan again';

/**
 * A client whose connections never come up, like a SYN into a black hole: undici starts (and
 * so can abort) a request only once its connection is up, and a custom connector has none of
 * undici's connect timeout (10 s otherwise). Its agent is destroyed when the test ends.
 */
function blackHoleClient(overrides: Parameters<typeof createTestClient>[1] = {}): TestClient {
  const agent = new Agent({ connect: () => undefined });
  onTestFinished(() => agent.destroy());
  return client({ ...overrides, dispatcher: agent });
}

function gap(first: number, second: number): number {
  const a = server.requests[first];
  const b = server.requests[second];
  if (a === undefined || b === undefined) throw new Error('missing request');
  return b.at - a.at;
}

describe('429 Too Many Requests', () => {
  it('waits Retry-After seconds, then succeeds', async () => {
    server.setHandler(sequence(reply(429, undefined, { 'retry-after': '1' }), reply(200, bots)));
    const { client: api, events } = client();

    await expect(api.getBotCategorization(ZONE)).resolves.toEqual(bots);

    expect(server.requests).toHaveLength(2);
    expect(gap(0, 1)).toBeGreaterThanOrEqual(990);
    expect(events.map((e) => [e.status, e.attempt])).toEqual([
      [429, 1],
      [200, 2],
    ]);
  });

  it('waits until a Retry-After HTTP date, then succeeds', async () => {
    // A whole second 1–2 s ahead: HTTP dates have one-second resolution.
    const target = (Math.floor(Date.now() / 1000) + 2) * 1000;
    server.setHandler(
      sequence(reply(429, undefined, { 'retry-after': new Date(target).toUTCString() }), reply(200, bots)),
    );
    const { client: api } = client();

    await expect(api.getBotCategorization(ZONE)).resolves.toEqual(bots);

    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.wallClock).toBeGreaterThanOrEqual(target - 5);
  });

  it('fails fast with API_RATE_LIMITED when Retry-After is beyond the cap', async () => {
    server.setHandler(reply(429, undefined, { 'retry-after': '120' }));
    const { client: api } = client({ retry: { maxAttempts: 3, maxRetryAfterMs: 5_000 } });
    const started = performance.now();

    const error = await failure(api.getBotCategorization(ZONE));

    expect(performance.now() - started).toBeLessThan(1_000);
    expect([error.code, error.status, error.attempts]).toEqual(['API_RATE_LIMITED', 429, 1]);
    expect(error.message).toBe(
      `${E6_LINE} failed: 429 Too Many Requests (empty body); Retry-After asks for 120 s, more than the 5 s cap`,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('gives up with API_RATE_LIMITED after the last attempt', async () => {
    server.setHandler(reply(429, { statusCode: 429 }));
    const { client: api } = client();

    const error = await failure(api.getBotCategorization(ZONE));

    expect([error.code, error.attempts]).toEqual(['API_RATE_LIMITED', 3]);
    expect(error.message).toBe(
      `${E6_LINE} failed: 429 Too Many Requests (status only); gave up after 3 attempts`,
    );
    expect(server.requests).toHaveLength(3);
  });
});

describe('5xx', () => {
  it('retries a 503, then succeeds', async () => {
    server.setHandler(sequence(reply(503), reply(200, bots)));
    const { client: api } = client();

    await expect(api.getBotCategorization(ZONE)).resolves.toEqual(bots);

    expect(server.requests).toHaveLength(2);
  });

  it('retries an idempotent write (E1) after a 500', async () => {
    server.setHandler(sequence(reply(500), reply(200, rule)));
    const { client: api } = client();

    await expect(api.updateCustomWafRule(RULE_ID, updateRuleBody)).resolves.toEqual({ id: RULE_ID });

    expect(server.requests.map((r) => r.method)).toEqual(['PATCH', 'PATCH']);
  });

  it('exhausts its attempts on 500s with API_UNAVAILABLE and the attempt count', async () => {
    server.setHandler(reply(500, { statusCode: 500 }));
    const { client: api, events } = client({ retry: { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 20 } });

    const error = await failure(api.getWafPlanSegmentation());

    expect([error.code, error.status, error.shape, error.attempts]).toEqual([
      'API_UNAVAILABLE',
      500,
      'status-only',
      4,
    ]);
    expect(error.details).toMatchObject({ attempts: 4 });
    expect(error.message).toBe(
      'read WAF rule catalogue (GET /shield/waf/rules/plan-segmentation) failed: 500 Internal Server Error (status only); gave up after 4 attempts',
    );
    expect(server.requests).toHaveLength(4);
    expect(events.map((e) => e.attempt)).toEqual([1, 2, 3, 4]);
  });

  it.each([
    [0, [50, 75]],
    [0.999, [100, 150]],
  ])(
    'backs off with equal jitter: random() = %s waits about %j ms (half to all of min(max, base × 2^n))',
    async (draw, waits) => {
      server.setHandler(sequence(reply(503), reply(503), reply(200, bots)));
      const { client: api } = client({
        retry: { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 150 },
        random: () => draw,
      });

      await api.getBotCategorization(ZONE);

      // The cap applies to the second retry: min(150, 100 × 2).
      for (const [i, wait] of waits.entries()) {
        expect(gap(i, i + 1)).toBeGreaterThanOrEqual(wait - 2);
        expect(gap(i, i + 1)).toBeLessThan(wait + 500);
      }
    },
  );

  it('never retries a 4xx other than 429', async () => {
    server.setHandler(reply(409, { title: 'Conflict', status: 409 }));
    const { client: api } = client();

    const error = await failure(api.getBotCategorization(ZONE));

    expect(error.code).toBe('API_REJECTED');
    expect(server.requests).toHaveLength(1);
  });
});

describe('timeouts', () => {
  it('a server that never answers → API_UNAVAILABLE within about the timeout per attempt, never a hang', async () => {
    server.setHandler(hang());
    const { client: api, events } = client({ timeoutMs: 200, retry: { maxAttempts: 2, baseDelayMs: 5 } });
    const started = performance.now();

    const error = await failure(api.getBotCategorization(ZONE));

    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(400);
    expect(elapsed).toBeLessThan(2_000);
    expect([error.code, error.status, error.shape, error.attempts]).toEqual([
      'API_UNAVAILABLE',
      undefined,
      'no-reply',
      2,
    ]);
    expect(error.message).toBe(
      `${E6_LINE} failed: no reply: timed out after 200 ms; gave up after 2 attempts`,
    );
    expect(server.requests).toHaveLength(2);
    expect(events.map((e) => e.status)).toEqual([0, 0]);
  });

  it('a connect that never completes times out at the deadline too', async () => {
    const { client: api } = blackHoleClient({
      timeoutMs: 200,
      retry: { maxAttempts: 2, baseDelayMs: 5 },
    });
    const started = performance.now();

    const error = await failure(api.getBotCategorization(ZONE));

    // Two whole timeouts, not sooner: each attempt waited out its own deadline.
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(400);
    expect(elapsed).toBeLessThan(2_000);
    expect([error.code, error.attempts]).toEqual(['API_UNAVAILABLE', 2]);
    expect(error.message).toBe(
      `${E6_LINE} failed: no reply: timed out after 200 ms; gave up after 2 attempts`,
    );
  });

  it('a body that stalls halfway also times out', async () => {
    server.setHandler((_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"categories": [');
    });
    const { client: api } = client({ timeoutMs: 200, retry: { maxAttempts: 1 } });

    const error = await failure(api.getBotCategorization(ZONE));

    expect([error.code, error.status]).toEqual(['API_UNAVAILABLE', 200]);
    expect(error.message).toBe(`${E6_LINE} failed: 200 OK: timed out after 200 ms`);
  });

  it('requests in flight together each time out at their own deadline; a reply between them changes nothing', async () => {
    // One timer serves every deadline of a client: it must re-arm for the later ones, at their
    // own deadline (not one whole timeout after the earlier one: that would be 250 ms late here).
    // The first is removed from the deadlines twice (by the sweep, then as it settles): the
    // second must stay there.
    server.setHandler((request, res) => {
      if (request.path.startsWith('/mc/apps/')) reply(200, app)(request, res);
    });
    const { client: api } = client({ timeoutMs: 400, retry: { maxAttempts: 1 } });
    const started = performance.now();
    const now = () => performance.now() - started;
    const settledAt = (promise: Promise<unknown>) =>
      promise.then(
        () => ['answered', now()] as const,
        (err: Error) => [err.message, now()] as const,
      );

    const first = settledAt(api.getBotCategorization(ZONE));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const answered = settledAt(api.getApp(APP_ID));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const secondStarted = now();
    const second = settledAt(api.getBotCategorization(ZONE + 1));

    const [[firstMessage, firstMs], [answer], [secondMessage, secondMs]] = await Promise.all([
      first,
      answered,
      second,
    ]);
    expect(answer).toBe('answered');
    expect(firstMessage).toBe(`${E6_LINE} failed: no reply: timed out after 400 ms`);
    expect(secondMessage).toBe(
      `read bot categories (GET /shield/shield-zone/${ZONE + 1}/bot-categorization) failed: no reply: timed out after 400 ms`,
    );
    // Each one after its own 400 ms, and well before a deadline pushed out by another request.
    expect(firstMs).toBeGreaterThanOrEqual(400);
    expect(firstMs).toBeLessThan(550);
    expect(secondMs - secondStarted).toBeGreaterThanOrEqual(400);
    expect(secondMs - secondStarted).toBeLessThan(550);
    expect(secondMs - firstMs).toBeGreaterThanOrEqual(100);
  });

  it('a request aborted while the deadlines are being swept leaves the later deadlines intact', async () => {
    // The first timeout's report aborts the second request from inside the sweep, which then
    // must still reach the third (the second is no longer in flight to lead it there).
    server.setHandler(hang());
    const controller = new AbortController();
    const { client: api } = client({
      timeoutMs: 300,
      retry: { maxAttempts: 1 },
      onRequest: () => controller.abort(),
    });
    const started = performance.now();
    const settled = (promise: Promise<unknown>) => promise.then(String, (err: Error) => err.message);

    const all = Promise.all([
      settled(api.getBotCategorization(ZONE)),
      settled(api.getBotCategorization(ZONE + 1, { signal: controller.signal })),
      settled(api.getBotCategorization(ZONE + 2)),
    ]);
    await until(() => server.requests.length >= 3, 'the three requests');
    // Blocks the timer past all three deadlines, so that one sweep ends them all.
    while (performance.now() - started < 330);

    expect(await all).toEqual([
      `${E6_LINE} failed: no reply: timed out after 300 ms`,
      `read bot categories (GET /shield/shield-zone/${ZONE + 1}/bot-categorization) failed: no reply: aborted by the caller`,
      `read bot categories (GET /shield/shield-zone/${ZONE + 2}/bot-categorization) failed: no reply: timed out after 300 ms`,
    ]);
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it('an E4 create whose connect times out is retried: it was never sent, so not ambiguous', async () => {
    const { client: api } = blackHoleClient({
      timeoutMs: 100,
      retry: { maxAttempts: 2, baseDelayMs: 5 },
    });

    const error = await failure(api.patchApp(APP_ID, patchAppCreatingBody));

    expect([error.code, error.attempts]).toEqual(['API_UNAVAILABLE', 2]);
    expect(error.message).toBe(
      `${E4_LINE} failed: no reply: timed out after 100 ms; gave up after 2 attempts`,
    );
  });

  it('an E4 create that times out → API_AMBIGUOUS, sent once', async () => {
    server.setHandler(hang());
    const { client: api } = client({ timeoutMs: 200 });

    const error = await failure(api.patchApp(APP_ID, patchAppCreatingBody));

    expect(error.code).toBe('API_AMBIGUOUS');
    expect(error.message).toBe(`${E4_LINE} failed: no reply: timed out after 200 ms; ${AMBIGUOUS}`);
    expect(server.requests).toHaveLength(1);
  });
});

describe('dropped and refused connections', () => {
  it('retries a GET after the server drops the connection', async () => {
    server.setHandler(sequence(dropConnection(), reply(200, app)));
    const { client: api } = client();

    await expect(api.getApp(APP_ID)).resolves.toEqual(app);

    expect(server.requests).toHaveLength(2);
  });

  it('an E4 body that creates a container → API_AMBIGUOUS after a dropped connection, sent exactly once', async () => {
    server.setHandler(sequence(dropConnection(), reply(200, { id: APP_ID })));
    const { client: api } = client();

    const error = await failure(api.patchApp(APP_ID, patchAppCreatingBody));

    expect([error.code, error.status, error.shape, error.attempts]).toEqual([
      'API_AMBIGUOUS',
      undefined,
      'no-reply',
      1,
    ]);
    expect(error.message).toBe(
      `${E4_LINE} failed: no reply: connection closed by the server (UND_ERR_SOCKET); ${AMBIGUOUS}`,
    );
    expect(error.retryable).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it('retries an E4 body without creates after a dropped connection', async () => {
    server.setHandler(sequence(dropConnection(), reply(200, { id: APP_ID })));
    const { client: api } = client();

    await expect(api.patchApp(APP_ID, patchAppBody)).resolves.toEqual({ id: APP_ID });

    expect(server.requests.map((r) => r.body)).toEqual([patchAppBody, patchAppBody]);
  });

  it('an E4 create answered 503 → API_AMBIGUOUS, not retried', async () => {
    server.setHandler(sequence(reply(503), reply(200, { id: APP_ID })));
    const { client: api } = client();

    const error = await failure(api.patchApp(APP_ID, patchAppCreatingBody));

    expect([error.code, error.status, error.shape]).toEqual(['API_AMBIGUOUS', 503, 'empty']);
    expect(error.message).toBe(`${E4_LINE} failed: 503 Service Unavailable (empty body); ${AMBIGUOUS}`);
    expect(server.requests).toHaveLength(1);
  });

  it('a rule create answered 503 → API_AMBIGUOUS, not retried, in the words of a rule create', async () => {
    server.setHandler(sequence(reply(503), reply(200, { id: 1 })));
    const { client: api } = client();
    const body = {
      shieldZoneId: ZONE,
      ruleName: 'Block x',
      ruleDescription: '',
      ruleConfiguration: { actionType: 1, operatorType: 0, variableTypes: { REQUEST_URI: '' }, value: '/x' },
    };

    const error = await failure(api.execute(writeRequests.createCustomWafRule(body as never)));

    expect([error.code, error.status]).toEqual(['API_AMBIGUOUS', 503]);
    expect(error.message).toMatch(
      /; not retried because it creates an object and may have been applied: the zone is listed again and the object matched by its name$/,
    );
    expect(error.message).not.toContain('containers');
    expect(server.requests).toHaveLength(1);
  });

  it('an E4 create answered 429 is retried: the server refused it before doing anything', async () => {
    server.setHandler(sequence(reply(429, undefined, { 'retry-after': '0' }), reply(200, { id: APP_ID })));
    const { client: api } = client();

    await expect(api.patchApp(APP_ID, patchAppCreatingBody)).resolves.toEqual({ id: APP_ID });

    expect(server.requests).toHaveLength(2);
  });

  it('a refused connection is retried even for an E4 create (nothing was sent), then API_UNAVAILABLE', async () => {
    const closed = await startTestServer();
    await closed.close();
    const refused = createTestClient(closed.url);
    clients.push(refused);

    const error = await failure(refused.client.patchApp(APP_ID, patchAppCreatingBody));

    expect([error.code, error.status, error.attempts]).toEqual(['API_UNAVAILABLE', undefined, 3]);
    expect(error.message).toBe(
      `${E4_LINE} failed: no reply: connection refused (ECONNREFUSED); gave up after 3 attempts`,
    );
    expect(refused.events.map((e) => e.status)).toEqual([0, 0, 0]);
  });
});

describe('client-side rate limit', () => {
  it('spaces 10 requests at 20 per second over at least ~450 ms', async () => {
    server.setHandler(reply(200, bots));
    const { client: api } = client({ rateLimitPerSecond: 20 });
    // Warm the connection first: a TCP connect inside the first measured request would shorten
    // the measured span by its own duration and make the bound flaky on a loaded machine.
    await api.getBotCategorization(ZONE);

    await Promise.all(Array.from({ length: 10 }, () => api.getBotCategorization(ZONE)));

    expect(server.requests).toHaveLength(11);
    // Nine gaps of 50 ms (450 ms); unpaced, the ten arrive within a few ms. The bound leaves
    // room for the first request's own delay on a loaded host (438 ms was measured there).
    expect(gap(1, 10)).toBeGreaterThanOrEqual(400);
  });
});

describe('abort', () => {
  it('an abort during the backoff sleep stops the retries at once', async () => {
    const controller = new AbortController();
    server.setHandler((request, res) => {
      reply(503)(request, res);
      setTimeout(() => controller.abort(new Error('shutting down')), 50);
    });
    const { client: api } = client({
      retry: { maxAttempts: 5, baseDelayMs: 5_000, maxDelayMs: 5_000 },
      random: () => 0.999,
    });
    const started = performance.now();

    const error = await failure(api.getBotCategorization(ZONE, { signal: controller.signal }));

    expect(performance.now() - started).toBeLessThan(1_000);
    expect([error.code, error.attempts]).toEqual(['API_UNAVAILABLE', 1]);
    expect(error.message).toBe(`${E6_LINE} failed: no reply: aborted by the caller`);
    expect(error.cause).toEqual(new Error('shutting down'));
    expect(server.requests).toHaveLength(1);
  });

  it('an abort while the request is in flight ends it at once', async () => {
    const controller = new AbortController();
    server.setHandler((_request, _res) => {
      setTimeout(() => controller.abort(), 20);
    });
    const { client: api } = client({ timeoutMs: 10_000 });
    const started = performance.now();

    const error = await failure(api.getBotCategorization(ZONE, { signal: controller.signal }));

    expect(performance.now() - started).toBeLessThan(1_000);
    expect([error.code, error.attempts]).toEqual(['API_UNAVAILABLE', 1]);
    expect(server.requests).toHaveLength(1);
  });

  it('an abort while the connection is still being opened ends the request at once', async () => {
    const { client: api } = blackHoleClient({ timeoutMs: 10_000 });
    const started = performance.now();

    const error = await failure(api.getBotCategorization(ZONE, { signal: AbortSignal.timeout(50) }));

    expect(performance.now() - started).toBeLessThan(1_000);
    expect([error.code, error.attempts]).toEqual(['API_UNAVAILABLE', 1]);
    expect(error.message).toBe(`${E6_LINE} failed: no reply: aborted by the caller`);
  });

  it('an abort of an E4 create whose connection is still being opened → API_UNAVAILABLE: nothing was sent', async () => {
    const { client: api } = blackHoleClient({ timeoutMs: 10_000 });

    const error = await failure(
      api.patchApp(APP_ID, patchAppCreatingBody, { signal: AbortSignal.timeout(50) }),
    );

    expect([error.code, error.attempts]).toEqual(['API_UNAVAILABLE', 1]);
    expect(error.message).toBe(`${E4_LINE} failed: no reply: aborted by the caller`);
  });

  it('an abort while an E4 create is in flight → API_AMBIGUOUS', async () => {
    const controller = new AbortController();
    server.setHandler(() => {
      setTimeout(() => controller.abort(), 20);
    });
    const { client: api } = client({ timeoutMs: 10_000 });

    const error = await failure(api.patchApp(APP_ID, patchAppCreatingBody, { signal: controller.signal }));

    expect(error.code).toBe('API_AMBIGUOUS');
    expect(error.message).toBe(`${E4_LINE} failed: no reply: aborted by the caller`);
  });

  it('an already aborted signal sends nothing', async () => {
    const { client: api } = client();

    const error = await failure(api.getBotCategorization(ZONE, { signal: AbortSignal.abort() }));

    expect([error.code, error.attempts]).toEqual(['API_UNAVAILABLE', 0]);
    expect(error.message).toBe(`${E6_LINE} failed: no reply: aborted by the caller`);
    expect(server.requests).toHaveLength(0);
  });

  // An abort queued as a microtask just after the call: whether send() awaits a rate-limit slot
  // decides if it lands before the exchange (0 attempts) or during it (1). Nothing is sent either way.
  it.each([
    [
      'a signal aborted while a free rate-limit slot is taken sends nothing',
      // The abort runs before send() resumes after taking its (free) slot, so the exchange would
      // otherwise start with a signal already aborted: send() checks it again after the wait.
      { rateLimitPerSecond: 1000 },
      0,
    ],
    [
      'without a rate limit the exchange starts at once, so an abort just after the call ends it',
      // The abort finds the connection still being opened: the request never reaches the server.
      {},
      1,
    ],
  ])('%s', async (_name, options, attempts) => {
    server.setHandler(reply(200, bots));
    const { client: api } = client(options);
    const controller = new AbortController();
    queueMicrotask(() => controller.abort());

    const error = await failure(api.getBotCategorization(ZONE, { signal: controller.signal }));

    expect([error.code, error.attempts]).toEqual(['API_UNAVAILABLE', attempts]);
    expect(error.message).toBe(`${E6_LINE} failed: no reply: aborted by the caller`);
    expect(server.requests).toHaveLength(0);
  });

  it('one signal shared by many requests in flight: no warning, no listener left behind', async () => {
    server.setHandler((request, res) => {
      setTimeout(() => reply(200, bots)(request, res), 20);
    });
    const { client: api } = client();
    const controller = new AbortController();
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    onTestFinished(() => {
      process.off('warning', onWarning);
    });

    await Promise.all(
      Array.from({ length: 30 }, () => api.getBotCategorization(ZONE, { signal: controller.signal })),
    );
    await new Promise((resolve) => setImmediate(resolve));

    expect(server.requests).toHaveLength(30);
    expect(getEventListeners(controller.signal, 'abort')).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('an abort while waiting for a rate-limit slot stops at once', async () => {
    server.setHandler(reply(200, bots));
    const { client: api } = client({ rateLimitPerSecond: 1 });
    await api.getBotCategorization(ZONE);
    const started = performance.now();

    const error = await failure(api.getBotCategorization(ZONE, { signal: AbortSignal.timeout(50) }));

    expect(performance.now() - started).toBeLessThan(500);
    expect([error.code, error.attempts]).toEqual(['API_UNAVAILABLE', 0]);
    expect(server.requests).toHaveLength(1);
  });
});
