import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiClient, MAX_PAGES } from '../../../src/api/client.js';
import { ApiError } from '../../../src/api/errors.js';
import { type ApiRequest, readRequests, writeRequests } from '../../../src/api/operations.js';
import type { ApiClient } from '../../../src/api/types.js';
import { createTestClient, failure, TEST_ACCESS_KEY, type TestClient } from '../../helpers/api-client.js';
import {
  type Handler,
  reply,
  sequence,
  startTestServer,
  type TestServer,
} from '../../helpers/http-server.js';
import {
  APP_ID,
  accessList,
  app,
  CONFIGURATION_ID,
  DNS_ZONE_ID,
  dnssecStatus,
  LIST_ID,
  okGeneric,
  patchAppBody,
  RULE_ID,
  rule,
  ruleReply,
  updateRuleBody,
  ZONE,
} from './fixtures.js';

let server: TestServer;
let test: TestClient;

beforeEach(async () => {
  server = await startTestServer();
  test = createTestClient(server.url);
});

afterEach(async () => {
  await test.dispose();
  await server.close();
});

interface MethodCase {
  name: string;
  call: (client: ApiClient) => Promise<unknown>;
  method: string;
  path: string;
  body?: unknown;
  reply: unknown;
  expected: unknown;
}

const botReply = {
  categories: [
    {
      category: 1,
      categoryAction: 0,
      bots: [{ botId: 3, userAgentMatch: 'Googlebot', isVerifiable: true, category: 1, action: 0 }],
    },
  ],
  error: okGeneric,
};
const regionReply = {
  region: { id: 'DE', name: 'Frankfurt', group: 'EU', hasAnycastSupport: true, hasCapacity: true },
};
const planReply = {
  data: [
    {
      planValue: 1,
      planName: 'Advanced',
      rules: [
        {
          name: 'OWASP',
          ruleset: 'crs',
          ruleGroups: [
            {
              id: 913,
              name: 'Scanner detection',
              code: 'SCANNER',
              fileName: 'REQUEST-913.conf',
              mainGroup: 'protocol',
              ruleset: 'crs',
              description: 'Scanners',
              rules: [{ ruleId: '913100', description: 'Found User-Agent of a security scanner' }],
            },
          ],
        },
      ],
    },
  ],
  error: okGeneric,
};
const metricsReply = {
  data: {
    totalBlockedRequests: 5,
    totalLoggedRequests: 6,
    totalRateLimited: 1,
    totalRequestsInspected: 900,
    totalFailedRequestValidation: 2,
    totalFailedAuthenticationEnforcement: 0,
    overviewPastTwentyEightDays: { '2026-11-01': { blockedRequests: 5 } },
  },
  error: okGeneric,
};
const listsReply = {
  managedLists: [
    {
      listId: 1,
      configurationId: 101,
      name: 'VPN Providers',
      isEnabled: false,
      type: 1,
      category: 1,
      action: 3,
      requiredPlan: 1,
      entryCount: 4000,
      updateFrequency: '1.00:00:00',
      lastUpdated: '2026-11-01T00:00:00Z',
    },
  ],
  customLists: [
    {
      listId: LIST_ID,
      configurationId: CONFIGURATION_ID,
      name: 'blocked-ips',
      isEnabled: true,
      type: 0,
      action: 2,
      entryCount: 2,
      lastUpdated: '2026-11-01T10:00:00Z',
    },
  ],
  customEntryCount: 2,
  customEntryLimit: 1000,
  customListCount: 1,
  customListLimit: 5,
  error: okGeneric,
};
const zoneReply = { Id: DNS_ZONE_ID, Domain: 'example.com', DnsSecEnabled: true };

const methodCases: MethodCase[] = [
  {
    name: 'E1 updateCustomWafRule',
    call: (c) => c.updateCustomWafRule(RULE_ID, updateRuleBody),
    method: 'PATCH',
    path: `/shield/waf/custom-rule/${RULE_ID}`,
    body: updateRuleBody,
    reply: ruleReply,
    // Only the rule's id is checked and kept: the rest of the reply is not used.
    expected: { id: RULE_ID },
  },
  {
    name: 'E2 updateCustomAccessList',
    call: (c) =>
      c.updateCustomAccessList(ZONE, LIST_ID, { name: 'blocked-ips', content: accessList.content }),
    method: 'PATCH',
    path: `/shield/shield-zone/${ZONE}/access-lists/${LIST_ID}`,
    body: { name: 'blocked-ips', content: accessList.content },
    reply: { data: { ...accessList, extra: 'ignored' }, error: okGeneric },
    expected: accessList,
  },
  {
    name: 'E3 updateAccessListConfiguration',
    call: (c) => c.updateAccessListConfiguration(ZONE, CONFIGURATION_ID, { isEnabled: true, action: 2 }),
    method: 'PATCH',
    path: `/shield/shield-zone/${ZONE}/access-lists/configurations/${CONFIGURATION_ID}`,
    body: { isEnabled: true, action: 2 },
    reply: { data: { isEnabled: true, action: 2 }, error: okGeneric },
    expected: { isEnabled: true, action: 2 },
  },
  {
    name: 'E3 updateAccessListConfiguration, seed reply without action',
    call: (c) => c.updateAccessListConfiguration(ZONE, CONFIGURATION_ID, { isEnabled: false }),
    method: 'PATCH',
    path: `/shield/shield-zone/${ZONE}/access-lists/configurations/${CONFIGURATION_ID}`,
    body: { isEnabled: false },
    reply: { data: { isEnabled: false }, error: okGeneric },
    expected: { isEnabled: false, action: null },
  },
  {
    name: 'E4 patchApp',
    call: (c) => c.patchApp(APP_ID, patchAppBody),
    method: 'PATCH',
    path: `/mc/apps/${APP_ID}`,
    body: patchAppBody,
    reply: { id: APP_ID },
    expected: { id: APP_ID },
  },
  {
    name: 'E5 disableDnssec',
    call: (c) => c.disableDnssec(DNS_ZONE_ID),
    method: 'DELETE',
    path: `/dnszone/${DNS_ZONE_ID}/dnssec`,
    reply: { ...dnssecStatus, Enabled: false },
    expected: { ...dnssecStatus, Enabled: false },
  },
  {
    name: 'E6 getBotCategorization',
    call: (c) => c.getBotCategorization(ZONE),
    method: 'GET',
    path: `/shield/shield-zone/${ZONE}/bot-categorization`,
    reply: botReply,
    expected: botReply,
  },
  {
    name: 'E7 getOptimalRegion',
    call: (c) => c.getOptimalRegion(),
    method: 'GET',
    path: '/mc/regions/optimal',
    reply: regionReply,
    expected: regionReply,
  },
  {
    name: 'E8 getWafPlanSegmentation',
    call: (c) => c.getWafPlanSegmentation(),
    method: 'GET',
    path: '/shield/waf/rules/plan-segmentation',
    reply: planReply,
    expected: planReply,
  },
  {
    name: 'E9 getApiGuardianMetrics',
    call: (c) => c.getApiGuardianMetrics(ZONE),
    method: 'GET',
    path: `/shield/metrics/shield-zone/${ZONE}/api-guardian`,
    reply: metricsReply,
    expected: metricsReply,
  },
  {
    name: 'getCustomWafRule',
    call: (c) => c.getCustomWafRule(RULE_ID),
    method: 'GET',
    path: `/shield/waf/custom-rule/${RULE_ID}`,
    reply: ruleReply,
    expected: rule,
  },
  {
    name: 'listAccessLists',
    call: (c) => c.listAccessLists(ZONE),
    method: 'GET',
    path: `/shield/shield-zone/${ZONE}/access-lists`,
    reply: listsReply,
    expected: listsReply,
  },
  {
    name: 'getCustomAccessList',
    call: (c) => c.getCustomAccessList(ZONE, LIST_ID),
    method: 'GET',
    path: `/shield/shield-zone/${ZONE}/access-lists/${LIST_ID}`,
    reply: { data: accessList, error: okGeneric },
    expected: accessList,
  },
  {
    name: 'getApp',
    call: (c) => c.getApp(APP_ID),
    method: 'GET',
    path: `/mc/apps/${APP_ID}`,
    reply: { ...app, containerInstances: [], networkSettings: { ingressBandwidthLimit: 0 } },
    expected: app,
  },
  {
    name: 'getDnsZone',
    call: (c) => c.getDnsZone(DNS_ZONE_ID),
    method: 'GET',
    path: `/dnszone/${DNS_ZONE_ID}`,
    reply: { ...zoneReply, Records: [], Nameserver1: 'kiki.bunny.net' },
    expected: zoneReply,
  },
  {
    name: 'enableDnssec',
    call: (c) => c.enableDnssec(DNS_ZONE_ID),
    method: 'POST',
    path: `/dnszone/${DNS_ZONE_ID}/dnssec`,
    reply: dnssecStatus,
    expected: dnssecStatus,
  },
];

describe('typed methods', () => {
  it.each(methodCases)('$name sends $method $path and returns the validated reply', async (c) => {
    server.setHandler(reply(200, c.reply));

    const result = await c.call(test.client);

    expect(result).toEqual(c.expected);
    expect(server.requests).toHaveLength(1);
    const [sent] = server.requests;
    expect(sent?.method).toBe(c.method);
    expect(sent?.path).toBe(c.path);
    expect(sent?.headers.accesskey).toBe(TEST_ACCESS_KEY);
    expect(sent?.headers.accept).toBe('application/json');
    expect(sent?.headers['content-type']).toBe(c.body === undefined ? undefined : 'application/json');
    expect(sent?.body).toEqual(c.body);
  });

  it('encodes path parameters', async () => {
    server.setHandler(reply(200, app));

    await test.client.getApp('app 1/../x');

    expect(server.requests[0]?.path).toBe('/mc/apps/app%201%2F..%2Fx');
  });

  it('reports one onRequest event per exchange with the route, never the substituted path', async () => {
    server.setHandler(reply(200, { id: APP_ID }));

    await test.client.patchApp(APP_ID, patchAppBody);

    expect(test.events).toEqual([
      {
        operation: 'patchApp',
        route: '/mc/apps/{appId}',
        method: 'PATCH',
        status: 200,
        attempt: 1,
        durationMs: expect.any(Number),
      },
    ]);
  });

  it('logs each exchange at debug with component api, operation, method, path, status, attempt and duration', async () => {
    server.setHandler(reply(200, zoneReply));

    await test.client.getDnsZone(DNS_ZONE_ID);

    const lines = test
      .logs()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'debug',
        component: 'api',
        operation: 'getDnsZone',
        method: 'GET',
        path: `/dnszone/${DNS_ZONE_ID}`,
        status: 200,
        attempt: 1,
        durationMs: expect.any(Number),
        msg: 'api request',
      }),
    ]);
    expect(lines[0]).not.toHaveProperty('headers');
  });
});

describe('lifecycle and programmer errors', () => {
  it('owns a pooled Agent when given no dispatcher, and close() releases it', async () => {
    const own = createApiClient({ baseUrl: server.url, accessKey: TEST_ACCESS_KEY });
    server.setHandler(reply(200, zoneReply));

    await expect(own.getDnsZone(DNS_ZONE_ID)).resolves.toEqual(zoneReply);
    await own.close();

    const error = await own.getDnsZone(DNS_ZONE_ID).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'UND_ERR_DESTROYED' });
    expect(server.requests).toHaveLength(1);
  });

  it('leaves a passed-in dispatcher open on close()', async () => {
    server.setHandler(reply(200, zoneReply));

    await test.client.close();

    await expect(test.client.getDnsZone(DNS_ZONE_ID)).resolves.toEqual(zoneReply);
  });

  it('lets a body that cannot be serialised surface as the bug it is, unsent and unretried', async () => {
    const body = { name: 1n } as unknown as typeof patchAppBody;
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();

    await expect(test.client.patchApp(APP_ID, body)).rejects.toThrow(TypeError);
    expect(server.requests).toHaveLength(0);
    // Nothing left behind: no deadline timer holding the process open for timeoutMs.
    expect(timers()).toBe(before);
  });

  it('survives an onRequest hook that throws, and logs it', async () => {
    const own = createTestClient(server.url, {
      onRequest: () => {
        throw new Error('metrics broke');
      },
    });
    server.setHandler(reply(200, zoneReply));

    await expect(own.client.getDnsZone(DNS_ZONE_ID)).resolves.toEqual(zoneReply);
    await own.dispose();

    expect(own.logs()).toContain('"msg":"api onRequest hook threw"');
  });

  it.each([
    [{ accessKey: ' ' }, 'the API access key is empty'],
    [{ timeoutMs: 0 }, 'timeoutMs must be a positive number'],
    [{ rateLimitPerSecond: -1 }, 'rateLimitPerSecond must be a positive number'],
    [{ retry: { maxAttempts: 0 } }, 'retry.maxAttempts must be a positive number'],
    [{ retry: { baseDelayMs: Number.NaN } }, 'retry.baseDelayMs must be zero or more'],
  ])('refuses options %j with USAGE', (overrides, message) => {
    expect(() => createApiClient({ baseUrl: server.url, accessKey: 'k', ...overrides })).toThrow(
      expect.objectContaining({ code: 'USAGE', message }),
    );
  });
});

describe('execute', () => {
  const writes: Array<{
    request: ApiRequest<
      | 'updateCustomWafRule'
      | 'updateCustomAccessList'
      | 'updateAccessListConfiguration'
      | 'patchApp'
      | 'disableDnssec'
      | 'enableDnssec'
    >;
    reply: unknown;
    expected: unknown;
  }> = [
    {
      request: writeRequests.updateCustomWafRule(RULE_ID, updateRuleBody),
      reply: ruleReply,
      expected: { id: RULE_ID },
    },
    {
      request: writeRequests.updateCustomAccessList(ZONE, LIST_ID, { content: 'x' }),
      reply: { data: accessList, error: okGeneric },
      expected: accessList,
    },
    {
      request: writeRequests.updateAccessListConfiguration(ZONE, CONFIGURATION_ID, { isEnabled: true }),
      reply: { data: { isEnabled: true, action: 1 }, error: okGeneric },
      expected: { isEnabled: true, action: 1 },
    },
    {
      request: writeRequests.patchApp(APP_ID, patchAppBody),
      reply: { id: APP_ID },
      expected: { id: APP_ID },
    },
    { request: writeRequests.disableDnssec(DNS_ZONE_ID), reply: dnssecStatus, expected: dnssecStatus },
    { request: writeRequests.enableDnssec(DNS_ZONE_ID), reply: dnssecStatus, expected: dnssecStatus },
  ];

  it.each(writes)(
    'sends $request.method $request.path as the plan holds it',
    async ({ request, reply: body, expected }) => {
      server.setHandler(reply(200, body));

      const result = await test.client.execute(request);

      expect(result).toEqual(expected);
      expect(server.requests.map((r) => [r.method, r.path, r.body])).toEqual([
        [request.method, request.path, request.body],
      ]);
    },
  );

  it('refuses a read request, which a plan never holds', async () => {
    const request = readRequests.getApp(APP_ID) as unknown as ApiRequest<'patchApp'>;

    await expect(test.client.execute(request)).rejects.toThrow('not a write request: GET getApp');
    expect(server.requests).toHaveLength(0);
  });

  it('checks an E1 reply for the rule id only: other fields are not used, so never fail it', async () => {
    server.setHandler(
      sequence(
        reply(200, { id: RULE_ID, ruleConfiguration: 'not an object' }),
        reply(200, { ruleName: 'no id' }),
      ),
    );

    await expect(
      test.client.execute(writeRequests.updateCustomWafRule(RULE_ID, updateRuleBody)),
    ).resolves.toEqual({
      id: RULE_ID,
    });
    const error = await failure(
      test.client.execute(writeRequests.updateCustomWafRule(RULE_ID, updateRuleBody)),
    );

    expect(error.code).toBe('API_BAD_RESPONSE');
    expect(error.message).toBe(
      `update custom WAF rule (PATCH /shield/waf/custom-rule/${RULE_ID}) failed: 200 OK: the reply does not match its schema: id: Invalid input: expected number, received undefined (schema mismatch)`,
    );
  });

  it('validates the reply against the operation of the request', async () => {
    server.setHandler(reply(200, { name: 'no id' }));

    const error = await test.client
      .execute(writeRequests.patchApp(APP_ID, patchAppBody))
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('API_BAD_RESPONSE');
    expect((error as ApiError).message).toBe(
      `update app (PATCH /mc/apps/${APP_ID}) failed: 200 OK: the reply does not match its schema: id: Invalid input: expected string, received undefined (schema mismatch)`,
    );
  });
});

describe('base URL', () => {
  it.each([
    ['', '/dnszone/7'],
    ['/', '/dnszone/7'],
    ['/api', '/api/dnszone/7'],
    ['/api/', '/api/dnszone/7'],
    ['/a/b//', '/a/b/dnszone/7'],
  ])('with suffix %j sends %s', async (suffix, expectedPath) => {
    const own = createTestClient(server.url + suffix);
    server.setHandler(reply(200, zoneReply));

    await own.client.getDnsZone(DNS_ZONE_ID);
    await own.dispose();

    expect(server.requests.map((r) => r.path)).toEqual([expectedPath]);
  });

  it.each([
    ['not a url', 'the API base URL is not a URL: "not a url"'],
    ['ftp://example.com', 'the API base URL must be http or https, not ftp:'],
    ['https://user:pw@example.com', 'the API base URL must not carry credentials, a query or a fragment'],
    ['https://example.com/?x=1', 'the API base URL must not carry credentials, a query or a fragment'],
  ])('refuses %s with USAGE', (baseUrl, message) => {
    expect(() => createTestClient(baseUrl)).toThrow(expect.objectContaining({ code: 'USAGE', message }));
  });
});

describe('unauthorizedNote', () => {
  it('ends the message of a 401, and of no other failure', async () => {
    const noted = createTestClient(server.url, { unauthorizedNote: 'check the key file' });
    server.setHandler(sequence(reply(401), reply(403)));

    const unauthorized = await failure(noted.client.getDnsZone(DNS_ZONE_ID));
    const forbidden = await failure(noted.client.getDnsZone(DNS_ZONE_ID));
    await noted.dispose();

    const line = `read DNS zone (GET /dnszone/${DNS_ZONE_ID}) failed`;
    expect([unauthorized.code, unauthorized.message]).toEqual([
      'API_AUTH',
      `${line}: 401 Unauthorized (empty body); check the key file`,
    ]);
    expect([forbidden.code, forbidden.message]).toEqual(['API_AUTH', `${line}: 403 Forbidden (empty body)`]);
  });
});

describe('listDnsZones', () => {
  const zone = (id: number) => ({ Id: id, Domain: `z${id}.example`, DnsSecEnabled: id % 2 === 0 });

  it('pages through HasMoreItems with perPage 1000', async () => {
    server.setHandler((request, res) => {
      const n = Number(new URL(request.path, 'http://x').searchParams.get('page'));
      const body =
        n === 1
          ? { Items: [zone(1), zone(2)], CurrentPage: 1, TotalItems: 3, HasMoreItems: true }
          : { Items: [zone(3)], CurrentPage: 2, TotalItems: 3, HasMoreItems: false };
      reply(200, body)(request, res);
    });

    const zones = await test.client.listDnsZones();

    expect(zones.map((z) => [z.Id, z.DnsSecEnabled])).toEqual([
      [1, false],
      [2, true],
      [3, false],
    ]);
    expect(server.requests.map((r) => r.path)).toEqual([
      '/dnszone?page=1&perPage=1000',
      '/dnszone?page=2&perPage=1000',
    ]);
  });

  it('fails with API_BAD_RESPONSE on an empty page that claims more follow', async () => {
    server.setHandler(reply(200, { Items: [], CurrentPage: 1, TotalItems: 9, HasMoreItems: true }));

    const error = await failure(test.client.listDnsZones());

    expect(error.code).toBe('API_BAD_RESPONSE');
    expect(error.message).toContain('page 1 is empty but the listing says more pages follow');
    expect(server.requests).toHaveLength(1);
  });
});

describe('listApps', () => {
  const item = (n: number) => ({ id: `app${n}`, name: `app ${n}`, status: 'active' });
  /** Serves `pages`, keyed by the nextCursor asked for ('' for the first page). */
  const byCursor =
    (pages: Record<string, { items: number[]; cursor: string | null }>): Handler =>
    (request, res) => {
      const cursor = new URL(request.path, 'http://x').searchParams.get('nextCursor') ?? '';
      const page = pages[cursor];
      reply(
        200,
        page === undefined
          ? { items: [], cursor: null }
          : { items: page.items.map(item), cursor: page.cursor },
      )(request, res);
    };

  it('follows the cursor page by page with limit 1000, the cursor URL-encoded, until it is null', async () => {
    server.setHandler(
      byCursor({
        '': { items: [1, 2], cursor: 'c/1+' },
        'c/1+': { items: [3], cursor: 'c2' },
        c2: { items: [4], cursor: null },
      }),
    );

    const apps = await test.client.listApps();

    expect(apps.map((a) => a.id)).toEqual(['app1', 'app2', 'app3', 'app4']);
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /mc/apps?limit=1000',
      'GET /mc/apps?limit=1000&nextCursor=c%2F1%2B',
      'GET /mc/apps?limit=1000&nextCursor=c2',
    ]);
  });

  it('ends the listing at an empty cursor too', async () => {
    server.setHandler(byCursor({ '': { items: [1], cursor: '' } }));

    const apps = await test.client.listApps();

    expect(apps.map((a) => a.id)).toEqual(['app1']);
    expect(server.requests).toHaveLength(1);
  });

  it('fails with API_BAD_RESPONSE when a cursor comes back a second time, and asks no further', async () => {
    server.setHandler(
      byCursor({
        '': { items: [1], cursor: 'c1' },
        c1: { items: [2], cursor: 'c2' },
        c2: { items: [3], cursor: 'c1' },
      }),
    );

    const error = await failure(test.client.listApps());

    expect(error.code).toBe('API_BAD_RESPONSE');
    expect(error.message).toBe(
      'list apps (GET /mc/apps?limit=1000&nextCursor=c2) failed: 200 OK: the cursor "c1" came back twice (schema mismatch)',
    );
    expect(server.requests.map((r) => r.path)).toEqual([
      '/mc/apps?limit=1000',
      '/mc/apps?limit=1000&nextCursor=c1',
      '/mc/apps?limit=1000&nextCursor=c2',
    ]);
  });

  it('stops a server whose cursors never end after MAX_PAGES (100) pages', async () => {
    server.setHandler((request, res) => {
      const cursor = new URL(request.path, 'http://x').searchParams.get('nextCursor') ?? 'c0';
      reply(200, { items: [item(Number(cursor.slice(1)))], cursor: `c${Number(cursor.slice(1)) + 1}` })(
        request,
        res,
      );
    });

    const error = await failure(test.client.listApps());

    expect(error.code).toBe('API_BAD_RESPONSE');
    expect(error.message).toContain('the listing goes on past 100 pages');
    expect(server.requests).toHaveLength(MAX_PAGES);
  });
});

describe('listCustomWafRules', () => {
  const ruleN = (id: number) => ({ ...rule, id, ruleName: `rule-${id}` });
  const page = (items: number[], currentPage: number, totalPages: number, nextPage: number | null) => ({
    data: items.map(ruleN),
    page: { totalCount: 5, totalPages, currentPage, nextPage, pageSize: 2 },
    error: okGeneric,
  });
  const byPage =
    (pages: Record<string, unknown>): Handler =>
    (request, res) => {
      const pageNumber = new URL(request.path, 'http://x').searchParams.get('page') ?? '';
      reply(200, pages[pageNumber] ?? { data: [], page: null, error: okGeneric })(request, res);
    };

  it('follows nextPage across three pages with perPage 1000', async () => {
    server.setHandler(
      byPage({ 1: page([1, 2], 1, 3, 2), 2: page([3, 4], 2, 3, 3), 3: page([5], 3, 3, null) }),
    );

    const rules = await test.client.listCustomWafRules(ZONE);

    expect(rules.map((r) => r.id)).toEqual([1, 2, 3, 4, 5]);
    expect(server.requests.map((r) => r.path)).toEqual([
      `/shield/waf/custom-rules/${ZONE}?page=1&perPage=1000`,
      `/shield/waf/custom-rules/${ZONE}?page=2&perPage=1000`,
      `/shield/waf/custom-rules/${ZONE}?page=3&perPage=1000`,
    ]);
  });

  it('falls back to currentPage < totalPages when nextPage is absent', async () => {
    const noNext = (items: number[], current: number) => {
      const { page: info, ...rest } = page(items, current, 3, null);
      return { ...rest, page: { totalPages: info.totalPages, currentPage: info.currentPage } };
    };
    server.setHandler(byPage({ 1: noNext([1, 2], 1), 2: noNext([3, 4], 2), 3: noNext([5], 3) }));

    const rules = await test.client.listCustomWafRules(ZONE);

    expect(rules.map((r) => r.id)).toEqual([1, 2, 3, 4, 5]);
    expect(server.requests).toHaveLength(3);
  });

  it('reads a single page without paging info as the whole listing', async () => {
    server.setHandler(reply(200, { data: [ruleN(1)], error: okGeneric }));

    const rules = await test.client.listCustomWafRules(ZONE);

    expect(rules.map((r) => r.id)).toEqual([1]);
    expect(server.requests).toHaveLength(1);
  });

  it('fails with API_BAD_RESPONSE when nextPage does not advance', async () => {
    server.setHandler(reply(200, page([1], 1, 3, 1)));

    const error = (await test.client.listCustomWafRules(ZONE).catch((e: unknown) => e)) as ApiError;

    expect(error.code).toBe('API_BAD_RESPONSE');
    expect(error.message).toBe(
      `list custom WAF rules (GET /shield/waf/custom-rules/${ZONE}?page=1&perPage=1000) failed: 200 OK: page 1 names page 1 as the next one (schema mismatch)`,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('fails with API_BAD_RESPONSE on an empty page that claims more pages follow', async () => {
    server.setHandler(reply(200, page([], 1, 3, 2)));

    const error = (await test.client.listCustomWafRules(ZONE).catch((e: unknown) => e)) as ApiError;

    expect(error.code).toBe('API_BAD_RESPONSE');
    expect(error.message).toContain('page 1 is empty but the listing says more pages follow');
  });

  it('stops a server that never ends after MAX_PAGES (100) pages', async () => {
    server.setHandler((request, res) => {
      const n = Number(new URL(request.path, 'http://x').searchParams.get('page'));
      reply(200, page([n], n, n + 1, n + 1))(request, res);
    });

    const error = (await test.client.listCustomWafRules(ZONE).catch((e: unknown) => e)) as ApiError;

    expect(error.code).toBe('API_BAD_RESPONSE');
    expect(error.message).toContain('the listing goes on past 100 pages');
    expect(server.requests).toHaveLength(MAX_PAGES);
  });

  it('fails the listing when a page carries error.success false', async () => {
    server.setHandler(
      byPage({
        1: page([1, 2], 1, 2, 2),
        2: {
          data: [],
          page: null,
          error: { statusCode: 403, success: false, message: 'No access', errorKey: 'forbidden' },
        },
      }),
    );

    const error = (await test.client.listCustomWafRules(ZONE).catch((e: unknown) => e)) as ApiError;

    expect(error.code).toBe('API_REJECTED');
    expect(error.message).toBe(
      `list custom WAF rules (GET /shield/waf/custom-rules/${ZONE}?page=2&perPage=1000) failed: 200 OK: No access [forbidden] (envelope error)`,
    );
  });
});
