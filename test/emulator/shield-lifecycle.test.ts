import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/domain/checksum.js';
import type { EmulatorSeed } from '../../src/emulator/index.js';
import { parseSeed, SeedError, startEmulator } from '../../src/emulator/index.js';
import { call, TEST_KEY, test } from '../helpers/emulator.js';

const RULE = {
  shieldZoneId: 42,
  ruleName: 'Block admin',
  ruleDescription: '',
  ruleConfiguration: {
    actionType: 1,
    operatorType: 0,
    severityType: 2,
    value: '/admin',
    variableTypes: { REQUEST_URI: '' },
  },
};

const LIST = { name: 'Partners', type: 0, content: '192.0.2.1\n192.0.2.2' };

const BASIC_MESSAGE =
  'We do not support Custom WAF Rule creation on our Free Tier of Bunny Shield, please upgrade to Advanced.';

describe('custom WAF rules: create and delete', () => {
  test('a create answers the stored rule with a fresh id, listed and in the zone rule order', async ({
    emu,
  }) => {
    const created = await call(emu, 'POST', '/shield/waf/custom-rule', { body: RULE });
    const id = (created.json as { id: number }).id;
    const listing = await call(emu, 'GET', '/shield/waf/custom-rules/42?perPage=100');
    const zone = await call(emu, 'GET', '/shield/shield-zone/42');

    expect(created.status).toBe(200);
    expect(created.json).toEqual({
      id: 1237,
      shieldZoneId: 42,
      userId: 'emulator-user',
      ruleName: 'Block admin',
      ruleDescription: '',
      ruleJson: null,
      ruleConfiguration: {
        actionType: 1,
        variableTypes: { REQUEST_URI: '' },
        operatorType: 0,
        severityType: 2,
        transformationTypes: null,
        value: '/admin',
        isNegated: null,
        isRegexVariable: null,
        chainedRuleConditions: null,
      },
      errorResponse: { statusCode: 200, success: true, message: null, errorKey: null },
    });
    expect((listing.json as { data: { id: number }[] }).data.map((r) => r.id)).toEqual([
      1234,
      1235,
      1236,
      id,
    ]);
    expect((zone.json as { data: { wafCustomRuleOrder: number[] } }).data.wafCustomRuleOrder).toEqual([
      1234,
      1235,
      1236,
      id,
    ]);
  });

  test('a delete answers GenericRequestResponse, removes the rule everywhere, and a second one is 404', async ({
    emu,
  }) => {
    const deleted = await call(emu, 'DELETE', '/shield/waf/custom-rule/1235');
    const again = await call(emu, 'DELETE', '/shield/waf/custom-rule/1235');
    const get = await call(emu, 'GET', '/shield/waf/custom-rule/1235');
    const zone = await call(emu, 'GET', '/shield/shield-zone/42');

    expect(deleted.status).toBe(200);
    expect(deleted.json).toEqual({ statusCode: 200, success: true, message: null, errorKey: null });
    expect(again.status).toBe(404);
    expect(again.json).toEqual({ statusCode: 404 });
    expect(get.status).toBe(404);
    expect((zone.json as { data: { wafCustomRuleOrder: number[] } }).data.wafCustomRuleOrder).toEqual([
      1234, 1236,
    ]);
    expect(emu.state.customRules(42).map((r) => r.id)).toEqual([1234, 1236]);
  });

  test('ids are never reused after a delete', async ({ emu }) => {
    await call(emu, 'POST', '/shield/waf/custom-rule', { body: RULE });
    await call(emu, 'DELETE', '/shield/waf/custom-rule/1237');

    const second = await call(emu, 'POST', '/shield/waf/custom-rule', {
      body: { ...RULE, ruleName: 'other' },
    });

    expect((second.json as { id: number }).id).toBe(1238);
  });

  test('a Basic zone answers 202 with the API message and creates nothing', async ({ emu }) => {
    const result = await call(emu, 'POST', '/shield/waf/custom-rule', {
      body: { ...RULE, shieldZoneId: 43 },
    });

    expect(result.status).toBe(202);
    expect(result.json).toMatchObject({
      id: 0,
      shieldZoneId: 43,
      ruleName: 'Block admin',
      errorResponse: {
        statusCode: 202,
        success: false,
        message: BASIC_MESSAGE,
        errorKey: 'invalid_plan_type.custom_waf_rule',
      },
    });
    expect(emu.state.customRules(43)).toEqual([]);
  });

  it('a create past customWafRulesLimit answers 202 naming the limit', async () => {
    const emu = await startEmulator({
      accessKey: TEST_KEY,
      seed: { shieldZones: [{ id: 7, planType: 'Business', customWafRulesLimit: 1 }] },
    });
    try {
      const first = await call(emu, 'POST', '/shield/waf/custom-rule', {
        body: { ...RULE, shieldZoneId: 7 },
      });
      const second = await call(emu, 'POST', '/shield/waf/custom-rule', {
        body: { ...RULE, shieldZoneId: 7, ruleName: 'two' },
      });

      expect(first.status).toBe(200);
      expect(second.status).toBe(202);
      expect((second.json as { errorResponse: unknown }).errorResponse).toEqual({
        statusCode: 202,
        success: false,
        message:
          'Custom WAF Rule limit exceeded. You can have a maximum of 1 custom WAF rules. Please upgrade your Bunny Shield tier or contact support for assistance.',
        errorKey: 'limit_exceeded.custom_waf_rule',
      });
      expect(emu.state.customRules(7)).toHaveLength(1);
    } finally {
      await emu.close();
    }
  });

  test('a create without ruleDescription, or for an unknown zone, is refused', async ({ emu }) => {
    const { ruleDescription: _, ...noDescription } = RULE;

    const missing = await call(emu, 'POST', '/shield/waf/custom-rule', { body: noDescription });
    const unknownZone = await call(emu, 'POST', '/shield/waf/custom-rule', {
      body: { ...RULE, shieldZoneId: 99 },
    });

    expect(missing.status).toBe(400);
    expect((missing.json as { errors: unknown }).errors).toEqual({
      ruleDescription: ['The RuleDescription field is required.'],
    });
    expect(unknownZone.status).toBe(404);
    expect(emu.state.counts().customRules).toBe(3);
  });

  test('"handled, reply lost": the create is applied, the connection dies, exactly one rule exists', async ({
    emu,
  }) => {
    emu.faults.script({ method: 'POST', pathPrefix: '/shield/waf/custom-rule', reply: 'drop-after' });

    await expect(call(emu, 'POST', '/shield/waf/custom-rule', { body: RULE })).rejects.toThrow();
    const named = emu.state.customRules(42).filter((r) => r.ruleName === 'Block admin');
    const [entry] = emu.journal.entries({ operation: 'createCustomWafRule' });

    expect(named).toHaveLength(1);
    expect(entry?.status).toBe(200);
    expect(emu.faults.pending()).toBe(0);
  });
});

describe('custom access lists: create and delete', () => {
  test('a create answers the envelope; the listing shows it with a configuration at the defaults', async ({
    emu,
  }) => {
    const created = await call(emu, 'POST', '/shield/shield-zone/42/access-lists', { body: LIST });
    const data = (created.json as { data: { id: number } }).data;
    const listing = (await call(emu, 'GET', '/shield/shield-zone/42/access-lists')).json as {
      customLists: { listId: number; configurationId: number; isEnabled: boolean; action: number }[];
      customListCount: number;
      customListLimit: number;
      customEntryCount: number;
    };
    const row = listing.customLists.find((l) => l.listId === data.id);

    expect(created.status).toBe(200);
    expect(created.json).toEqual({
      data: {
        id: 9003,
        name: 'Partners',
        description: null,
        type: 0,
        content: '192.0.2.1\n192.0.2.2',
        checksum: sha256Hex('192.0.2.1\n192.0.2.2'),
        entryCount: 2,
        lastModified: expect.any(String),
      },
      error: { statusCode: 200, success: true, message: null, errorKey: null },
    });
    expect(row).toMatchObject({ isEnabled: true, action: 2, configurationId: expect.any(Number) });
    expect(listing.customListCount).toBe(3);
    expect(listing.customListLimit).toBe(5);
    expect(listing.customEntryCount).toBe(5);

    const configured = await call(
      emu,
      'PATCH',
      `/shield/shield-zone/42/access-lists/configurations/${row?.configurationId}`,
      { body: { isEnabled: false, action: 1 } },
    );
    expect(configured.status).toBe(200);
    expect(emu.state.accessList(42, data.id)).toMatchObject({ isEnabled: false, action: 1 });
  });

  test('a delete removes the list and its configuration; managed and unknown lists are 404', async ({
    emu,
  }) => {
    const deleted = await call(emu, 'DELETE', '/shield/shield-zone/42/access-lists/9001');
    const configuration = await call(
      emu,
      'PATCH',
      '/shield/shield-zone/42/access-lists/configurations/19001',
      {
        body: { isEnabled: true },
      },
    );
    const managed = await call(emu, 'DELETE', '/shield/shield-zone/42/access-lists/5');
    const unknown = await call(emu, 'DELETE', '/shield/shield-zone/42/access-lists/9001');
    const listing = (await call(emu, 'GET', '/shield/shield-zone/42/access-lists')).json as {
      customLists: { listId: number }[];
      customListCount: number;
    };

    expect(deleted.status).toBe(200);
    expect(deleted.json).toEqual({ statusCode: 200, success: true, message: null, errorKey: null });
    expect(configuration.status).toBe(404);
    expect(managed.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(listing.customLists.map((l) => l.listId)).toEqual([9002]);
    expect(listing.customListCount).toBe(1);
  });

  test('past the custom list limit: 202 with the API message, nothing created', async ({ emu }) => {
    const first = await call(emu, 'POST', '/shield/shield-zone/43/access-lists', { body: LIST });
    const second = await call(emu, 'POST', '/shield/shield-zone/43/access-lists', {
      body: { ...LIST, name: 'More' },
    });

    expect(first.status).toBe(200);
    expect(second.status).toBe(202);
    expect(second.json).toEqual({
      error: {
        statusCode: 202,
        success: false,
        message:
          'Custom Access List limit exceeded. You can have a maximum of 1 custom lists. Please upgrade your Bunny Shield tier or contact support for assistance.',
        errorKey: 'limit_exceeded.access_list',
      },
    });
    expect(emu.state.counts().customAccessLists).toBe(3);
  });

  test('refusals come back in the envelope: missing type, bad checksum, unknown zone', async ({ emu }) => {
    const { type: _, ...noType } = LIST;

    const missing = await call(emu, 'POST', '/shield/shield-zone/42/access-lists', { body: noType });
    const checksum = await call(emu, 'POST', '/shield/shield-zone/42/access-lists', {
      body: { ...LIST, checksum: sha256Hex('other') },
    });
    const zone = await call(emu, 'POST', '/shield/shield-zone/99/access-lists', { body: LIST });

    expect(missing.status).toBe(400);
    expect(missing.json).toEqual({
      error: {
        statusCode: 400,
        success: false,
        message: 'type: The Type field is required.',
        errorKey: 'validation.invalid',
      },
    });
    expect(checksum.status).toBe(400);
    expect((checksum.json as { error: { errorKey: string } }).error.errorKey).toBe(
      'checksum_mismatch.access_list',
    );
    expect(zone.status).toBe(404);
    expect((zone.json as { error: { errorKey: string } }).error.errorKey).toBe('not_found.shield_zone');
    expect(emu.state.counts().customAccessLists).toBe(2);
  });

  test('"handled, reply lost" on a list create leaves exactly one list', async ({ emu }) => {
    emu.faults.script({ operation: 'createCustomAccessList', reply: 'drop-after' });

    await expect(call(emu, 'POST', '/shield/shield-zone/42/access-lists', { body: LIST })).rejects.toThrow();

    expect(
      [...(emu.state.shieldZone(42)?.accessLists.values() ?? [])].filter((l) => l.name === 'Partners'),
    ).toHaveLength(1);
  });
});

describe('GET /shield/shield-zone/{id}', () => {
  test('answers the plan and the limits, the seed’s or the plan’s', async ({ emu }) => {
    const advanced = await call(emu, 'GET', '/shield/shield-zone/42');
    const basic = await call(emu, 'GET', '/shield/shield-zone/43');
    const missing = await call(emu, 'GET', '/shield/shield-zone/99');

    expect(advanced.status).toBe(200);
    expect(advanced.json).toMatchObject({
      data: { shieldZoneId: 42, pullZoneId: 1042, planType: 1, customWafRulesLimit: 10 },
    });
    expect(basic.json).toMatchObject({ data: { shieldZoneId: 43, planType: 0, customWafRulesLimit: 0 } });
    expect(missing.status).toBe(404);
  });

  it('takes per-zone limits from the seed, and refuses bad ones with their position', async () => {
    const seed: EmulatorSeed = {
      shieldZones: [
        { id: 1, planType: 'Enterprise', customWafRulesLimit: 500, customListLimit: 2, customEntryLimit: 9 },
      ],
    };
    const emu = await startEmulator({ accessKey: TEST_KEY, seed });
    try {
      const zone = await call(emu, 'GET', '/shield/shield-zone/1');
      const lists = await call(emu, 'GET', '/shield/shield-zone/1/access-lists');

      expect(zone.json).toMatchObject({ data: { planType: 3, customWafRulesLimit: 500 } });
      expect(lists.json).toMatchObject({ customListLimit: 2, customEntryLimit: 9 });
    } finally {
      await emu.close();
    }
    expect(() => parseSeed('shieldZones:\n  - id: 1\n    customListLimit: -1\n', 'seed.yaml')).toThrow(
      SeedError,
    );
    expect(() => parseSeed('shieldZones:\n  - id: 1\n    customListLimit: -1\n', 'seed.yaml')).toThrow(
      /seed\.yaml:3:22: .* \(at shieldZones\[0\]\.customListLimit\)/,
    );
  });
});
