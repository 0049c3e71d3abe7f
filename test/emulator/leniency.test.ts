import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { call, MINIMAL_TEMPLATE, TEST_KEY, TEST_SEED, test } from '../helpers/emulator.js';

/** What Terraform sends on E1 (docs/api-notes.md, Custom WAF rules): extra fields the real server ignores. */
const TERRAFORM_E1 = {
  id: 1234,
  shieldZoneId: 42,
  ruleJson: '{}',
  ruleName: 'Renamed by TF',
  ruleDescription: '',
  ruleConfiguration: {
    actionType: 1,
    operatorType: 17,
    severityType: 2,
    requestCount: 0,
    blockTime: 30,
    timeframe: 1,
    chainedRuleConditions: [{ operatorType: 15, value: 'POST', extra: true }],
  },
};

describe('lenient by default: unknown fields are ignored, as ASP.NET does', () => {
  test('E1 with Terraform’s extra fields succeeds and applies the known ones', async ({ emu }) => {
    const result = await call(emu, 'PATCH', '/shield/waf/custom-rule/1234', { body: TERRAFORM_E1 });

    expect(result.status).toBe(200);
    const rule = emu.state.customRule(1234);
    expect(rule?.ruleName).toBe('Renamed by TF');
    expect(rule?.ruleJson).toBeNull();
    expect(rule?.ruleConfiguration).not.toHaveProperty('requestCount');
    expect(rule?.ruleConfiguration.chainedRuleConditions?.[0]).not.toHaveProperty('extra');
  });

  test('E2, E3 and E4 ignore unknown fields at any depth, and still validate the known ones', async ({
    emu,
  }) => {
    const e2 = await call(emu, 'PATCH', '/shield/shield-zone/42/access-lists/9001', {
      body: { content: '10.0.0.1', type: 3, junk: 1 },
    });
    const e3 = await call(emu, 'PATCH', '/shield/shield-zone/42/access-lists/configurations/19001', {
      body: { isEnabled: false, listId: 9001 },
    });
    const e4 = await call(emu, 'PATCH', '/mc/apps/app1', {
      body: {
        id: 'app1',
        name: 'lenient app',
        regionSettings: { allowedRegionIds: ['DE', 'NY'], provisioningType: 'static' },
        volumes: [
          { id: 'v1', name: 'data', size: 10 },
          { name: 'cache', size: 5, totalUsage: 1 },
        ],
      },
    });
    const stillChecked = await call(emu, 'PATCH', '/mc/apps/app1', { body: { junk: 1, name: 'bad!' } });

    expect([e2.status, e3.status, e4.status]).toEqual([200, 200, 200]);
    expect(emu.state.accessList(42, 9001)).toMatchObject({ content: '10.0.0.1', type: 1, isEnabled: false });
    expect(emu.state.app('app1')?.name).toBe('lenient app');
    expect(emu.state.app('app1')?.volumes).toEqual([
      { name: 'data', size: 10 },
      { name: 'cache', size: 5 },
    ]);
    expect(stillChecked.status).toBe(400);
    expect((stillChecked.json as { errors: { field: string }[] }).errors.map((e) => e.field)).toEqual([
      'name',
    ]);
  });

  test('no invented constraints: any maxAllowedRegions, min above max, the CLI’s empty registry', async ({
    emu,
  }) => {
    const regions = await call(emu, 'PATCH', '/mc/apps/app1', {
      body: { regionSettings: { maxAllowedRegions: 5000 } },
    });
    const zero = await call(emu, 'PATCH', '/mc/apps/app1', {
      body: { regionSettings: { maxAllowedRegions: 0 } },
    });
    const scaling = await call(emu, 'PATCH', '/mc/apps/app1', { body: { autoScaling: { min: 5, max: 2 } } });
    const registry = await call(emu, 'PATCH', '/mc/apps/app1', {
      body: { containerTemplates: [{ ...MINIMAL_TEMPLATE, imageRegistryId: '' }], volumes: [] },
    });

    expect([regions.status, zero.status, scaling.status, registry.status]).toEqual([200, 200, 200, 200]);
    const app = emu.state.app('app1');
    expect(app?.regionSettings.maxAllowedRegions).toBe(0);
    expect(app?.autoScaling).toEqual({ min: 5, max: 2 });
    expect(app?.containerTemplates.map((t) => t.imageRegistryId)).toEqual(['']);
  });
});

describe('strict (EmulatorOptions.strict, --strict)', () => {
  it('refuses each unknown field with ASP.NET’s wording and changes nothing', async () => {
    const emu = await startEmulator({ accessKey: TEST_KEY, seed: TEST_SEED, strict: true });
    try {
      const result = await call(emu, 'PATCH', '/shield/waf/custom-rule/1234', { body: TERRAFORM_E1 });

      expect(result.status).toBe(400);
      expect(Object.keys((result.json as { errors: Record<string, string[]> }).errors).sort()).toEqual([
        'id',
        'ruleConfiguration.blockTime',
        'ruleConfiguration.chainedRuleConditions[0].extra',
        'ruleConfiguration.requestCount',
        'ruleConfiguration.timeframe',
        'ruleJson',
        'shieldZoneId',
      ]);
      expect((result.json as { errors: Record<string, string[]> }).errors.ruleJson).toEqual([
        "The JSON property 'ruleJson' could not be mapped to any .NET member.",
      ]);
      expect(emu.state.customRule(1234)?.ruleName).toBe('Block SQLi');
    } finally {
      await emu.close();
    }
  });
});
