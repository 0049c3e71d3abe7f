import { createHash } from 'node:crypto';
import { describe, expect } from 'vitest';
import { call, test } from '../helpers/emulator.js';

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

const OK_ENVELOPE = { statusCode: 200, success: true, message: null, errorKey: null };

describe('E1 PATCH /shield/waf/custom-rule/{id}', () => {
  test('replaces name, description and configuration, and GET shows the change', async ({ emu }) => {
    const body = {
      ruleName: 'Block XSS',
      ruleDescription: 'xss',
      ruleConfiguration: {
        actionType: 3,
        operatorType: 18,
        severityType: 1,
        variableTypes: { ARGS: '', REQUEST_HEADERS: 'Referer' },
        transformationTypes: [5, 8],
        value: '',
        isNegated: true,
        isRegexVariable: false,
        chainedRuleConditions: [{ variableTypes: { REQUEST_METHOD: '' }, operatorType: 15, value: 'POST' }],
      },
    };

    const patched = await call(emu, 'PATCH', '/shield/waf/custom-rule/1234', { body });
    const read = await call(emu, 'GET', '/shield/waf/custom-rule/1234');

    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({
      id: 1234,
      shieldZoneId: 42,
      ruleName: 'Block XSS',
      ruleDescription: 'xss',
    });
    expect(read.json).toEqual(patched.json);
    expect(emu.state.customRule(1234)?.ruleConfiguration).toEqual({
      ...body.ruleConfiguration,
      chainedRuleConditions: [
        {
          variableTypes: { REQUEST_METHOD: '' },
          operatorType: 15,
          value: 'POST',
          isNegated: null,
          isRegexVariable: null,
        },
      ],
    });
  });

  test('PUT on the same path behaves like PATCH', async ({ emu }) => {
    const result = await call(emu, 'PUT', '/shield/waf/custom-rule/1235', {
      body: { ruleName: 'via PUT', ruleConfiguration: { actionType: 4 } },
    });

    expect(result.status).toBe(200);
    expect(emu.state.customRule(1235)?.ruleName).toBe('via PUT');
    expect(emu.state.customRule(1235)?.ruleConfiguration.actionType).toBe(4);
  });

  test('null or omitted name and description keep the live values; omitted enums take 0', async ({ emu }) => {
    const result = await call(emu, 'PATCH', '/shield/waf/custom-rule/1234', {
      body: { ruleName: null, ruleConfiguration: { actionType: 2 } },
    });

    expect(result.status).toBe(200);
    expect(emu.state.customRule(1234)).toMatchObject({
      ruleName: 'Block SQLi',
      ruleDescription: 'SQL injection',
    });
    expect(emu.state.customRule(1234)?.ruleConfiguration).toMatchObject({
      actionType: 2,
      operatorType: 0,
      severityType: 0,
      variableTypes: null,
      transformationTypes: null,
    });
  });

  test('an unknown rule is a status-only 404', async ({ emu }) => {
    const result = await call(emu, 'PATCH', '/shield/waf/custom-rule/999', { body: { ruleName: 'x' } });

    expect(result.status).toBe(404);
    expect(result.json).toEqual({ statusCode: 404 });
  });
});

describe('custom-rule companions', () => {
  test('the listing pages in id order with the Shield pagination object', async ({ emu }) => {
    const first = await call(emu, 'GET', '/shield/waf/custom-rules/42?page=1&perPage=2');
    const second = await call(emu, 'GET', '/shield/waf/custom-rules/42?page=2&perPage=2');

    expect(first.status).toBe(200);
    const firstBody = first.json as { data: { id: number }[]; page: unknown; error: unknown };
    expect(firstBody.data.map((r) => r.id)).toEqual([1234, 1235]);
    expect(firstBody.page).toEqual({
      totalCount: 3,
      totalPages: 2,
      currentPage: 1,
      nextPage: 2,
      pageSize: 2,
    });
    expect(firstBody.error).toEqual(OK_ENVELOPE);
    const secondBody = second.json as { data: { id: number }[]; page: unknown };
    expect(secondBody.data.map((r) => r.id)).toEqual([1236]);
    expect(secondBody.page).toEqual({
      totalCount: 3,
      totalPages: 2,
      currentPage: 2,
      nextPage: null,
      pageSize: 2,
    });
  });

  test('perPage defaults to 10 and accepts up to 1000', async ({ emu }) => {
    const byDefault = await call(emu, 'GET', '/shield/waf/custom-rules/42');
    const max = await call(emu, 'GET', '/shield/waf/custom-rules/42?perPage=1000');
    const tooMany = await call(emu, 'GET', '/shield/waf/custom-rules/42?perPage=1001');

    expect((byDefault.json as { page: { pageSize: number } }).page.pageSize).toBe(10);
    expect((max.json as { data: unknown[] }).data).toHaveLength(3);
    expect(tooMany.status).toBe(400);
  });

  test('an empty zone lists nothing, an unknown zone is 404', async ({ emu }) => {
    const empty = await call(emu, 'GET', '/shield/waf/custom-rules/43');
    const unknown = await call(emu, 'GET', '/shield/waf/custom-rules/44');

    expect(empty.json).toMatchObject({
      data: [],
      page: { totalCount: 0, totalPages: 0, currentPage: 1, nextPage: null },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ statusCode: 404 });
  });

  test('GET one rule returns the rule without an envelope', async ({ emu }) => {
    const result = await call(emu, 'GET', '/shield/waf/custom-rule/1236');

    expect(result.status).toBe(200);
    expect(result.json).toMatchObject({
      id: 1236,
      ruleName: 'Third',
      ruleConfiguration: { actionType: 3, operatorType: 14 },
    });
  });
});

describe('E2 PATCH /shield/shield-zone/{sz}/access-lists/{id}', () => {
  test('stores content exactly as sent, computes the checksum, and GET shows both', async ({ emu }) => {
    const content = '192.0.2.0/24\n\n198.51.100.0/24\n';
    const before = emu.state.accessList(42, 9001)?.lastModified;

    const patched = await call(emu, 'PATCH', '/shield/shield-zone/42/access-lists/9001', {
      body: { content },
    });
    const read = await call(emu, 'GET', '/shield/shield-zone/42/access-lists/9001');

    expect(patched.status).toBe(200);
    const data = (patched.json as { data: Record<string, unknown> }).data;
    expect(data).toMatchObject({
      id: 9001,
      name: 'Office IPs',
      content,
      checksum: sha256(content),
      entryCount: 2,
      type: 1,
    });
    expect(data.lastModified).not.toBe(before);
    expect((patched.json as { error: unknown }).error).toEqual(OK_ENVELOPE);
    expect(read.json).toEqual(patched.json);
  });

  test('a matching checksum is accepted (in any hex case)', async ({ emu }) => {
    const result = await call(emu, 'PATCH', '/shield/shield-zone/42/access-lists/9001', {
      body: { content: '192.168.0.1', checksum: sha256('192.168.0.1').toUpperCase() },
    });

    expect(result.status).toBe(200);
    expect(emu.state.accessList(42, 9001)?.checksum).toBe(
      '37d7a80604871e579850a658c7add2ae7557d0c6abcc9b31ecddc4424207eba3',
    );
  });

  test('a checksum that is not the SHA-256 of the new content is refused and nothing changes', async ({
    emu,
  }) => {
    const result = await call(emu, 'PATCH', '/shield/shield-zone/42/access-lists/9001', {
      body: { name: 'New name', content: '10.0.0.1', checksum: sha256('10.0.0.2') },
    });

    expect(result.status).toBe(400);
    expect(result.json).toMatchObject({
      status: 400,
      title: 'Checksum mismatch',
      errors: { checksum: [expect.any(String)] },
    });
    expect((result.json as { detail: string }).detail).toContain(sha256('10.0.0.2'));
    expect(emu.state.accessList(42, 9001)).toMatchObject({
      name: 'Office IPs',
      content: '203.0.113.0/24\n198.51.100.7',
    });
  });

  test('a checksum alone is checked against the current content', async ({ emu }) => {
    const current = emu.state.accessList(42, 9001)?.content ?? '';

    const good = await call(emu, 'PATCH', '/shield/shield-zone/42/access-lists/9001', {
      body: { checksum: sha256(current) },
    });
    const bad = await call(emu, 'PATCH', '/shield/shield-zone/42/access-lists/9001', {
      body: { checksum: sha256('x') },
    });

    expect(good.status).toBe(200);
    expect(bad.status).toBe(400);
  });

  test('name and content null or omitted keep the live values; a rename moves lastModified', async ({
    emu,
  }) => {
    const before = emu.state.accessList(42, 9001)?.lastModified;

    const renamed = await call(emu, 'PATCH', '/shield/shield-zone/42/access-lists/9001', {
      body: { name: 'Office v2', content: null },
    });

    expect(renamed.status).toBe(200);
    expect(emu.state.accessList(42, 9001)).toMatchObject({
      name: 'Office v2',
      content: '203.0.113.0/24\n198.51.100.7',
    });
    expect(emu.state.accessList(42, 9001)?.lastModified).not.toBe(before);
  });

  test('an unknown list, a managed list and a list of another zone are 404 problem details', async ({
    emu,
  }) => {
    const unknown = await call(emu, 'PATCH', '/shield/shield-zone/42/access-lists/1', {
      body: { content: 'x' },
    });
    const managed = await call(emu, 'PATCH', '/shield/shield-zone/42/access-lists/5', {
      body: { content: 'x' },
    });
    const otherZone = await call(emu, 'PATCH', '/shield/shield-zone/43/access-lists/9001', {
      body: { content: 'x' },
    });

    for (const result of [unknown, managed, otherZone]) {
      expect(result.status).toBe(404);
      expect(result.json).toMatchObject({
        status: 404,
        title: 'Not Found',
        type: expect.stringContaining('rfc9110'),
      });
    }
  });
});

describe('access-list companions', () => {
  test('the listing maps list ids to configuration ids, custom and managed apart', async ({ emu }) => {
    const result = await call(emu, 'GET', '/shield/shield-zone/42/access-lists');

    expect(result.status).toBe(200);
    const body = result.json as {
      customLists: Record<string, unknown>[];
      managedLists: Record<string, unknown>[];
      [key: string]: unknown;
    };
    expect(body.customLists.map((l) => [l.listId, l.configurationId])).toEqual([
      [9001, 19001],
      [9002, 19002],
    ]);
    expect(body.customLists[0]).toMatchObject({
      name: 'Office IPs',
      isEnabled: true,
      action: 2,
      type: 1,
      entryCount: 2,
    });
    expect(body.customLists[0]).not.toHaveProperty('updateFrequency');
    expect(body.managedLists).toEqual([
      expect.objectContaining({
        listId: 5,
        configurationId: 10005,
        category: 1,
        isEnabled: false,
        updateFrequency: '1.00:00:00',
      }),
    ]);
    expect(body).toMatchObject({
      customEntryCount: 3,
      customListCount: 2,
      customListLimit: 5,
      error: OK_ENVELOPE,
    });
  });

  test('lastUpdated in the listing follows content changes', async ({ emu }) => {
    const before = await call(emu, 'GET', '/shield/shield-zone/42/access-lists');
    emu.state.setAccessListContent(42, 9001, 'changed');

    const after = await call(emu, 'GET', '/shield/shield-zone/42/access-lists');

    const stamp = (r: typeof before) =>
      (r.json as { customLists: { lastUpdated: string }[] }).customLists[0]?.lastUpdated;
    expect(stamp(after)).not.toBe(stamp(before));
    expect(Date.parse(stamp(after) ?? '')).toBeGreaterThan(Date.parse(stamp(before) ?? ''));
  });

  test('GET one custom list has content in the envelope; managed lists have none to get', async ({ emu }) => {
    const custom = await call(emu, 'GET', '/shield/shield-zone/42/access-lists/9002');
    const managed = await call(emu, 'GET', '/shield/shield-zone/42/access-lists/5');

    expect(custom.json).toEqual({
      data: {
        id: 9002,
        name: 'Countries',
        description: null,
        type: 3,
        content: 'KP',
        checksum: sha256('KP'),
        entryCount: 1,
        lastModified: expect.any(String),
      },
      error: OK_ENVELOPE,
    });
    expect(managed.status).toBe(404);
  });
});

describe('E3 PATCH /shield/shield-zone/{sz}/access-lists/configurations/{id}', () => {
  test('switches a custom list by its configuration id and echoes isEnabled and action', async ({ emu }) => {
    const result = await call(emu, 'PATCH', '/shield/shield-zone/42/access-lists/configurations/19002', {
      body: { isEnabled: true, action: 4 },
    });

    expect(result.status).toBe(200);
    expect(result.json).toEqual({ data: { isEnabled: true, action: 4 }, error: OK_ENVELOPE });
    expect(emu.state.accessList(42, 9002)).toMatchObject({ isEnabled: true, action: 4 });
  });

  test('switches a managed list; null isEnabled keeps it', async ({ emu }) => {
    await call(emu, 'PATCH', '/shield/shield-zone/42/access-lists/configurations/10005', {
      body: { isEnabled: true },
    });

    const kept = await call(emu, 'PATCH', '/shield/shield-zone/42/access-lists/configurations/10005', {
      body: { isEnabled: null, action: 3 },
    });

    expect(kept.json).toMatchObject({ data: { isEnabled: true, action: 3 } });
    expect(emu.state.accessListConfig(42, 10005)).toMatchObject({ listId: 5, isEnabled: true, action: 3 });
  });

  test('the list id is not a configuration id: 404 problem details', async ({ emu }) => {
    const result = await call(emu, 'PATCH', '/shield/shield-zone/42/access-lists/configurations/9001', {
      body: { isEnabled: false },
    });

    expect(result.status).toBe(404);
    expect(result.json).toMatchObject({ status: 404, detail: expect.stringContaining('9001') });
    expect(emu.state.accessList(42, 9001)?.isEnabled).toBe(true);
  });
});

describe('read-only Shield operations', () => {
  test('E6 lists bots by category (built-in default) and 404s an unknown zone', async ({ emu }) => {
    const result = await call(emu, 'GET', '/shield/shield-zone/42/bot-categorization');
    const unknown = await call(emu, 'GET', '/shield/shield-zone/99/bot-categorization');

    const body = result.json as {
      categories: { category: number; bots: { botId: number; category: number }[] }[];
    };
    expect(result.status).toBe(200);
    expect(body.categories.length).toBeGreaterThanOrEqual(3);
    for (const group of body.categories) {
      expect(group.bots.length).toBeGreaterThan(0);
      for (const bot of group.bots) expect(bot.category).toBe(group.category);
    }
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ status: 404 });
  });

  test('E8 returns the plan catalogue with rule sets, groups and rules', async ({ emu }) => {
    const result = await call(emu, 'GET', '/shield/waf/rules/plan-segmentation');

    const body = result.json as {
      data: { planValue: number; planName: string; rules: { ruleGroups: { rules: unknown[] }[] }[] }[];
    };
    expect(body.data.map((p) => [p.planValue, p.planName])).toEqual([
      [0, 'Basic'],
      [1, 'Advanced'],
      [2, 'Business'],
      [3, 'Enterprise'],
    ]);
    expect(body.data[3]?.rules[0]?.ruleGroups[0]?.rules.length).toBeGreaterThan(0);
  });

  test('E9 returns totals that add up over a 28-day overview; unknown zone is status-only 404', async ({
    emu,
  }) => {
    const result = await call(emu, 'GET', '/shield/metrics/shield-zone/42/api-guardian');
    const unknown = await call(emu, 'GET', '/shield/metrics/shield-zone/99/api-guardian');

    const data = (result.json as { data: Record<string, unknown> }).data as {
      totalBlockedRequests: number;
      overviewPastTwentyEightDays: Record<string, { blockedRequests: number }>;
    };
    const days = Object.values(data.overviewPastTwentyEightDays);
    expect(days).toHaveLength(28);
    expect(days.reduce((n, d) => n + d.blockedRequests, 0)).toBe(data.totalBlockedRequests);
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ statusCode: 404 });
  });
});
