import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { call, TEST_KEY, test, withEmulator } from '../helpers/emulator.js';

interface UnauthorizedCase {
  op: string;
  method: string;
  path: string;
  body?: unknown;
  shape: 'status-only' | 'problem' | 'empty';
}

/** The 401 each of E1-E9 answers, in its own shape (seed "Errors" table). */
const UNAUTHORIZED_CASES: UnauthorizedCase[] = [
  {
    op: 'E1',
    method: 'PATCH',
    path: '/shield/waf/custom-rule/1234',
    body: { ruleName: 'x' },
    shape: 'status-only',
  },
  {
    op: 'E2',
    method: 'PATCH',
    path: '/shield/shield-zone/42/access-lists/9001',
    body: { content: 'x' },
    shape: 'problem',
  },
  {
    op: 'E3',
    method: 'PATCH',
    path: '/shield/shield-zone/42/access-lists/configurations/19001',
    body: { isEnabled: false },
    shape: 'problem',
  },
  { op: 'E4', method: 'PATCH', path: '/mc/apps/app1', body: { name: 'x' }, shape: 'problem' },
  { op: 'E5', method: 'DELETE', path: '/dnszone/12345/dnssec', shape: 'empty' },
  { op: 'E6', method: 'GET', path: '/shield/shield-zone/42/bot-categorization', shape: 'problem' },
  { op: 'E7', method: 'GET', path: '/mc/regions/optimal', shape: 'problem' },
  { op: 'E8', method: 'GET', path: '/shield/waf/rules/plan-segmentation', shape: 'status-only' },
  { op: 'E9', method: 'GET', path: '/shield/metrics/shield-zone/42/api-guardian', shape: 'status-only' },
];

const KEYS = [
  { label: 'missing', key: null },
  { label: 'wrong', key: 'not-the-key' },
  { label: 'wrong case', key: TEST_KEY.toUpperCase() },
] as const;

describe('authentication', () => {
  const cases = UNAUTHORIZED_CASES.flatMap((c) => KEYS.map((k) => ({ ...c, ...k })));

  test.for(cases)(
    '$op with a $label key is 401 ($shape)',
    async ({ method, path, body, shape, key }, { emu }) => {
      const before = JSON.stringify([
        emu.state.customRule(1234),
        emu.state.accessList(42, 9001),
        emu.state.app('app1'),
      ]);

      const result = await call(emu, method, path, body === undefined ? { key } : { key, body });

      expect(result.status).toBe(401);
      if (shape === 'status-only') expect(result.json).toEqual({ statusCode: 401 });
      if (shape === 'empty') expect(result.text).toBe('');
      if (shape === 'problem') {
        expect(result.json).toMatchObject({
          status: 401,
          title: 'Unauthorized',
          instance: path,
          type: expect.any(String),
        });
      }
      expect(
        JSON.stringify([emu.state.customRule(1234), emu.state.accessList(42, 9001), emu.state.app('app1')]),
      ).toBe(before);
      expect(emu.state.dnsZone(12345)?.DnsSecEnabled).toBe(true);
    },
  );

  it('refuses to start without a key', async () => {
    await expect(startEmulator({ accessKey: '' })).rejects.toThrow(/accessKey/);
  });
});

describe('routing', () => {
  test('an unknown path is 404 with an empty body, journaled as unknown', async ({ emu }) => {
    const result = await call(emu, 'GET', '/shield/nothing-here');

    expect(result.status).toBe(404);
    expect(result.text).toBe('');
    expect(emu.journal.entries()[0]).toMatchObject({ operation: 'unknown', status: 404 });
  });

  test('a known path with another method is 405 with Allow', async ({ emu }) => {
    // An app is read, updated and deleted, never replaced: PUT is the method it lacks.
    const result = await call(emu, 'PUT', '/mc/apps/app1');

    expect(result.status).toBe(405);
    expect(result.headers.get('allow')).toBe('PATCH, GET, DELETE');
  });

  test('literal segments match case-insensitively and a trailing slash is ignored', async ({ emu }) => {
    const result = await call(emu, 'GET', '/MC/Regions/Optimal/');

    expect(result.status).toBe(200);
  });
});

describe('scripted faults', () => {
  test('429 with Retry-After, once, then normal service', async ({ emu }) => {
    emu.faults.script({
      operation: 'getApp',
      reply: { status: 429, body: { statusCode: 429 }, headers: { 'Retry-After': '7' } },
    });

    const limited = await call(emu, 'GET', '/mc/apps/app1');
    const next = await call(emu, 'GET', '/mc/apps/app1');

    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(limited.json).toEqual({ statusCode: 429 });
    expect(next.status).toBe(200);
    expect(emu.faults.pending()).toBe(0);
  });

  test('503 for a number of times, matched by method and path prefix', async ({ emu }) => {
    emu.faults.script({ method: 'PATCH', pathPrefix: '/shield/', times: 2, reply: { status: 503 } });

    const statuses = [];
    for (let i = 0; i < 3; i += 1) {
      statuses.push(
        (await call(emu, 'PATCH', '/shield/shield-zone/42/access-lists/9001', { body: { content: `v${i}` } }))
          .status,
      );
    }
    const other = await call(emu, 'GET', '/shield/shield-zone/42/access-lists/9001');

    expect(statuses).toEqual([503, 503, 200]);
    expect(other.status).toBe(200);
    expect(emu.state.accessList(42, 9001)?.content).toBe('v2');
  });

  test('a Shield 202 envelope with success:false bypasses the handler and changes nothing', async ({
    emu,
  }) => {
    const refusal = {
      data: null,
      error: {
        statusCode: 202,
        success: false,
        message: 'Custom Access List limit exceeded.',
        errorKey: 'limit.access_list',
      },
    };
    emu.faults.script({ operation: 'updateCustomAccessList', reply: { status: 202, body: refusal } });

    const result = await call(emu, 'PATCH', '/shield/shield-zone/42/access-lists/9001', {
      body: { content: 'new' },
    });

    expect(result.status).toBe(202);
    expect(result.json).toEqual(refusal);
    expect(emu.state.accessList(42, 9001)?.content).toBe('203.0.113.0/24\n198.51.100.7');
  });

  test('a string body is sent verbatim (garbage JSON, wrong checksum)', async ({ emu }) => {
    emu.faults.script({
      operation: 'getCustomAccessList',
      reply: { status: 200, body: '{"data": {"id": 9001, "check' },
    });

    const result = await call(emu, 'GET', '/shield/shield-zone/42/access-lists/9001');

    expect(result.status).toBe(200);
    expect(result.text).toBe('{"data": {"id": 9001, "check');
    expect(result.json).toBeUndefined();
  });

  test('a dropped connection reaches the client as a socket error', async ({ emu }) => {
    emu.faults.script({ operation: 'patchApp', reply: 'drop' });

    await expect(call(emu, 'PATCH', '/mc/apps/app1', { body: { name: 'dropped' } })).rejects.toThrow();
    const after = await call(emu, 'GET', '/mc/apps/app1');

    expect(after.status).toBe(200);
    expect(emu.state.app('app1')?.name).toBe('storefront');
    expect(emu.journal.entries({ operation: 'patchApp' })).toEqual([
      expect.objectContaining({ status: 0, requestBody: { name: 'dropped' }, replyBody: undefined }),
    ]);
  });

  test('a scripted delay then normal handling', async ({ emu }) => {
    emu.faults.script({ operation: 'getOptimalRegion', reply: { delayMs: 150 } });

    const started = performance.now();
    const result = await call(emu, 'GET', '/mc/regions/optimal');
    const elapsed = performance.now() - started;

    expect(result.status).toBe(200);
    expect(elapsed).toBeGreaterThanOrEqual(140);
  });

  test('clear() removes scripted rules and random faults', async ({ emu }) => {
    emu.faults.script({ reply: { status: 500 } });
    emu.faults.set({ rate503: 1 });
    emu.faults.clear();

    const result = await call(emu, 'GET', '/mc/regions/optimal');

    expect(result.status).toBe(200);
  });
});

describe('random faults', () => {
  /** A deterministic RNG (LCG) so the test gives the same split on every run. */
  function lcg(seed: number): () => number {
    let state = seed;
    return () => {
      state = (state * 1664525 + 1013904223) % 2 ** 32;
      return state / 2 ** 32;
    };
  }

  it('honours the configured rates, roughly, with an injected RNG', async () => {
    const emu = await withEmulator();
    emu.faults.set({ rate429: 0.2, rate500: 0.1, rate503: 0.1, retryAfterSeconds: 3, random: lcg(7) });
    try {
      const counts = new Map<number, number>();
      const retryAfter = new Set<string | null>();
      for (let i = 0; i < 400; i += 1) {
        const result = await call(emu, 'GET', '/shield/waf/rules/plan-segmentation');
        counts.set(result.status, (counts.get(result.status) ?? 0) + 1);
        if (result.status === 429) retryAfter.add(result.headers.get('retry-after'));
      }

      expect(counts.get(429) ?? 0).toBeGreaterThan(50);
      expect(counts.get(429) ?? 0).toBeLessThan(110);
      expect(counts.get(500) ?? 0).toBeGreaterThan(20);
      expect(counts.get(500) ?? 0).toBeLessThan(60);
      expect(counts.get(503) ?? 0).toBeGreaterThan(20);
      expect(counts.get(503) ?? 0).toBeLessThan(60);
      expect(counts.get(200) ?? 0).toBeGreaterThan(180);
      expect([...retryAfter]).toEqual(['3']);
    } finally {
      await emu.close();
    }
  });

  it('drops the configured share of connections and adds latency', async () => {
    const emu = await startEmulator({
      accessKey: TEST_KEY,
      faults: { rateDrop: 0.5, latencyMs: [20, 40], random: lcg(11) },
    });
    try {
      let dropped = 0;
      let slowest = 0;
      for (let i = 0; i < 40; i += 1) {
        const started = performance.now();
        try {
          await call(emu, 'GET', '/mc/regions/optimal');
          slowest = Math.max(slowest, performance.now() - started);
        } catch {
          dropped += 1;
        }
      }

      expect(dropped).toBeGreaterThan(10);
      expect(dropped).toBeLessThan(30);
      expect(slowest).toBeGreaterThanOrEqual(19);
    } finally {
      await emu.close();
    }
  });

  it('refuses rates outside [0, 1] or adding up to more than 1', async () => {
    const emu = await withEmulator();
    try {
      expect(() => emu.faults.set({ rate429: 1.5 })).toThrow(RangeError);
      expect(() => emu.faults.set({ rate429: 0.6, rate503: 0.6 })).toThrow(RangeError);
    } finally {
      await emu.close();
    }
  });
});

describe('journal', () => {
  test('records method, path, query, operation, status and both bodies', async ({ emu }) => {
    await call(emu, 'GET', '/shield/waf/custom-rules/42?page=1&perPage=2');
    await call(emu, 'PATCH', '/shield/shield-zone/42/access-lists/configurations/19001', {
      body: { isEnabled: false },
    });
    await call(emu, 'PATCH', '/shield/shield-zone/42/access-lists/9001', {
      rawBody: 'not json',
      headers: { 'content-type': 'application/json' },
    });

    const [list, config, broken] = emu.journal.entries();

    expect(list).toMatchObject({
      seq: 1,
      method: 'GET',
      path: '/shield/waf/custom-rules/42',
      query: { page: '1', perPage: '2' },
      operation: 'listCustomWafRules',
      status: 200,
      requestBody: undefined,
    });
    expect(list?.durationMs).toBeGreaterThanOrEqual(0);
    expect(config).toMatchObject({
      seq: 2,
      operation: 'updateAccessListConfiguration',
      status: 200,
      requestBody: { isEnabled: false },
      replyBody: { data: { isEnabled: false, action: 2 } },
    });
    expect(broken).toMatchObject({
      operation: 'updateCustomAccessList',
      status: 400,
      requestBody: 'not json',
    });
    expect(emu.journal.writes().map((e) => e.seq)).toEqual([2, 3]);
    expect(emu.journal.count({ method: 'PATCH', status: 200 })).toBe(1);
    expect(emu.journal.count((e) => e.path.startsWith('/shield/'))).toBe(3);
  });

  test('never records the AccessKey, not even a wrong one', async ({ emu }) => {
    await call(emu, 'GET', '/mc/apps/app1');
    await call(emu, 'GET', '/mc/apps/app1', { key: 'leaked-wrong-key' });

    const dump = JSON.stringify(emu.journal.entries());

    expect(emu.journal.count()).toBe(2);
    expect(dump).not.toContain(TEST_KEY);
    expect(dump).not.toContain('leaked-wrong-key');
  });

  test('keeps the reply as sent, whatever happens to the state afterwards', async ({ emu }) => {
    await call(emu, 'GET', '/mc/apps/app1');
    await call(emu, 'PATCH', '/mc/apps/app1', { body: { name: 'renamed' } });
    emu.state.updateCustomRule(1234, { ruleName: 'edited out of band' });

    const [read] = emu.journal.entries({ operation: 'getApp' });

    expect(read?.replyBody).toMatchObject({ name: 'storefront' });
    expect(emu.state.app('app1')?.name).toBe('renamed');
  });

  test('clear() empties it; seq keeps counting', async ({ emu }) => {
    await call(emu, 'GET', '/mc/regions/optimal');
    emu.journal.clear();
    await call(emu, 'GET', '/mc/regions/optimal');

    expect(emu.journal.entries().map((e) => e.seq)).toEqual([2]);
  });

  it('records nothing when turned off', async () => {
    const emu = await startEmulator({ accessKey: TEST_KEY, journal: false });
    try {
      await call(emu, 'GET', '/mc/regions/optimal');

      expect(emu.journal.count()).toBe(0);
    } finally {
      await emu.close();
    }
  });
});

describe('close()', () => {
  it('closes promptly even with an idle keep-alive connection and a delayed reply pending', async () => {
    const emu = await withEmulator();
    await call(emu, 'GET', '/mc/regions/optimal');
    emu.faults.script({ reply: { delayMs: 10_000 } });
    const pending = new Promise<string>((resolve) => {
      const req = request(`${emu.url}/mc/regions/optimal`, { headers: { AccessKey: TEST_KEY } }, () =>
        resolve('reply'),
      );
      req.on('error', () => resolve('error'));
      req.end();
    });
    await new Promise((r) => setTimeout(r, 50));

    const started = performance.now();
    await emu.close();

    expect(performance.now() - started).toBeLessThan(1000);
    expect(await pending).toBe('error');
  });
});
