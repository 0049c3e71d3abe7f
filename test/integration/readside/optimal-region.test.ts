/**
 * `@optimal` in a reconcile against the emulator: E7 asked once per reconcile, the plan shows
 * the region id it resolved to, and when E7 fails only the apps that use `@optimal` fail —
 * with E7's reason — while every other change of the same reconcile is applied.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EmulatorSeed, FaultRule } from '../../../src/emulator/index.js';
import { renderPlanText } from '../../../src/engine/render.js';
import { desired } from '../../helpers/desired.js';
import { TEST_SEED } from '../../helpers/emulator.js';
import { type EngineFixture, engineFixture } from '../../helpers/engine.js';

const SEED: EmulatorSeed = {
  ...TEST_SEED,
  apps: [
    ...(TEST_SEED.apps ?? []),
    {
      id: 'app2',
      name: 'worker',
      autoScaling: { min: 1, max: 1 },
      regionSettings: { allowedRegionIds: ['DE'], requiredRegionIds: ['DE'] },
      containerTemplates: [
        {
          name: 'worker',
          imageRegistryId: '123',
          imageNamespace: 'acme',
          imageName: 'worker',
          imageTag: '1.0.0',
        },
      ],
    },
    {
      id: 'app3',
      name: 'edge',
      regionSettings: { allowedRegionIds: ['SG', 'LA'], requiredRegionIds: ['SG'] },
      containerTemplates: [
        {
          name: 'edge',
          imageRegistryId: '123',
          imageNamespace: 'acme',
          imageName: 'edge',
          imageTag: '1.0.0',
        },
      ],
    },
  ],
  optimalRegion: { id: 'SG', name: 'Singapore', group: 'Asia', hasAnycastSupport: true, hasCapacity: true },
};

/** Two apps on `@optimal`, one app without, a WAF rule and a DNS zone: all with changes. */
function resources() {
  return [
    desired('ContainerApp', 'storefront', {
      appId: 'app1',
      regionSettings: { allowedRegionIds: ['@optimal', 'NY'], requiredRegionIds: ['@optimal'] },
    }),
    desired('ContainerApp', 'edge', {
      appId: 'app3',
      regionSettings: { allowedRegionIds: ['@optimal', 'LA'], requiredRegionIds: ['@optimal'] },
    }),
    desired('ContainerApp', 'worker', { appId: 'app2', autoScaling: { min: 1, max: 3 } }),
    desired('WafCustomRule', 'sqli', {
      id: 1234,
      shieldZoneId: 42,
      ruleName: 'Block SQLi',
      ruleConfiguration: {
        actionType: 'Log',
        operatorType: 'DETECTSQLI',
        variableTypes: { REQUEST_URI: '', ARGS: '' },
      },
    }),
    desired('DnsZone', 'example-com', { id: 12345, dnssec: false }),
  ];
}

let fx: EngineFixture;
beforeEach(async () => {
  fx = await engineFixture(SEED);
});
afterEach(async () => {
  await fx.close();
});

const e7Calls = () => fx.emu.journal.count({ operation: 'getOptimalRegion' });

describe('@optimal resolved with E7', () => {
  it('asks E7 once per reconcile and shows the resolved region id in the plan', async () => {
    const { plan } = await fx.run(resources(), 'plan');

    expect(e7Calls()).toBe(1);
    expect(plan.optimalRegion).toEqual({ id: 'SG' });
    const storefront = plan.changes.find((c) => c.subject === 'ContainerApp/storefront');
    expect(storefront?.diffs).toEqual([
      { path: 'regionSettings.allowedRegionIds', live: ['DE', 'NY'], desired: ['SG', 'NY'] },
      { path: 'regionSettings.requiredRegionIds', live: ['DE'], desired: ['SG'] },
    ]);
    expect(storefront?.requests.map((r) => r.body)).toEqual([
      { regionSettings: { allowedRegionIds: ['SG', 'NY'], requiredRegionIds: ['SG'], maxAllowedRegions: 2 } },
    ]);
    // app3 already runs in SG: nothing to change, and the plan still says what @optimal was.
    expect(plan.changes.find((c) => c.subject === 'ContainerApp/edge')?.action).toBe('noop');
    const text = renderPlanText(plan, { color: false });
    expect(text).toContain(
      [
        '~ ContainerApp/storefront storefront.yaml:1 (cause: unknown)',
        '    regionSettings.allowedRegionIds: ["DE","NY"] → ["SG","NY"]',
        '    regionSettings.requiredRegionIds: ["DE"] → ["SG"]',
      ].join('\n'),
    );
    expect(text).toContain("\n@optimal resolved to SG (the API's optimal region).\n");
  });

  it('applies the resolved region, then plans no change', async () => {
    const applied = await fx.run(resources(), 'apply');
    const again = await fx.run(resources(), 'plan');

    expect(applied.apply?.ok).toBe(true);
    expect(fx.emu.state.app('app1')?.regionSettings).toMatchObject({
      allowedRegionIds: ['SG', 'NY'],
      requiredRegionIds: ['SG'],
    });
    expect(again.plan.summary).toMatchObject({ toUpdate: 0, errors: 0, unchanged: 5 });
  });

  const EXTENDED_503: FaultRule = {
    operation: 'getOptimalRegion',
    times: 6,
    reply: {
      status: 503,
      body: {
        title: 'Service Unavailable',
        status: 503,
        detail: 'Region capacity service is down',
        instance: '/mc/regions/optimal',
        errors: [],
        id: null,
      },
    },
  };
  const PROBLEM_500: FaultRule = {
    operation: 'getOptimalRegion',
    times: 6,
    reply: {
      status: 500,
      body: { type: 'about:blank', title: 'Internal Server Error', status: 500, detail: 'No token location' },
    },
  };

  it.each([
    [
      'scripted 503s (extended error)',
      EXTENDED_503,
      'read optimal region (GET /mc/regions/optimal) failed: 503 Service Unavailable: Region capacity service is down (extended error); gave up after 6 attempts',
    ],
    [
      'scripted 500s (problem details)',
      PROBLEM_500,
      'read optimal region (GET /mc/regions/optimal) failed: 500 Internal Server Error: No token location (problem details); gave up after 6 attempts',
    ],
  ])('E7 failing with %s fails only the @optimal apps; the rest is applied', async (_name, fault, reason) => {
    fx.emu.faults.script(fault);

    const outcome = await fx.run(resources(), 'apply');

    const results = Object.fromEntries(
      (outcome.apply?.results ?? []).map((r) => [r.subject, [r.outcome, r.error?.message]]),
    );
    expect(results).toEqual({
      'ContainerApp/storefront': ['failed', `cannot resolve @optimal: ${reason}`],
      'ContainerApp/edge': ['failed', `cannot resolve @optimal: ${reason}`],
      'ContainerApp/worker': ['applied', undefined],
      'WafCustomRule/sqli': ['applied', undefined],
      'DnsZone/example-com': ['applied', undefined],
    });
    expect(outcome.plan.optimalRegion).toEqual({ error: { code: 'API_UNAVAILABLE', message: reason } });
    expect(e7Calls()).toBe(6);
    expect(fx.emu.journal.writes().map((e) => `${e.method} ${e.path}`)).toEqual(
      expect.arrayContaining([
        'PATCH /mc/apps/app2',
        'PATCH /shield/waf/custom-rule/1234',
        'DELETE /dnszone/12345/dnssec',
      ]),
    );
    expect(fx.emu.journal.writes()).toHaveLength(3);
    expect(fx.emu.state.app('app1')?.regionSettings.allowedRegionIds).toEqual(['DE', 'NY']);
    const text = renderPlanText(outcome.plan, { color: false });
    expect(text).toContain(
      `! ContainerApp/storefront storefront.yaml:1\n    error: cannot resolve @optimal: ${reason}\n`,
    );
    expect(text).toContain(`\n@optimal could not be resolved: ${reason}\n`);
  });
});
