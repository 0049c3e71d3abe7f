/**
 * `readApiGuardianTotals` against the emulator: one E9 call per zone, bounded concurrency, and
 * one zone's failure (status-only 500, unknown zone, abort) never fails the others or throws.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../src/api/types.js';
import type { EmulatorSeed } from '../../../src/emulator/index.js';
import { desiredShieldZones, readApiGuardianTotals } from '../../../src/engine/api-guardian.js';
import { desired } from '../../helpers/desired.js';
import { TEST_SEED } from '../../helpers/emulator.js';
import { type EngineFixture, engineFixture } from '../../helpers/engine.js';

const [ZONE_42, ZONE_43] = TEST_SEED.shieldZones ?? [];

/** Zone 42 reports all six totals; the reading must hand back exactly these. */
const TOTALS_42 = {
  totalBlockedRequests: 1204,
  totalLoggedRequests: 5310,
  totalRateLimited: 87,
  totalRequestsInspected: 980412,
  totalFailedRequestValidation: 61,
  totalFailedAuthenticationEnforcement: 19,
};

const SEED: EmulatorSeed = {
  ...TEST_SEED,
  shieldZones: [
    {
      ...ZONE_42,
      id: 42,
      apiGuardian: TOTALS_42,
    },
    { ...ZONE_43, id: 43, apiGuardian: { totalBlockedRequests: 7, totalRequestsInspected: 70 } },
  ],
};

let fx: EngineFixture;
beforeEach(async () => {
  fx = await engineFixture(SEED);
});
afterEach(async () => {
  await fx.close();
});

const signal = () => new AbortController().signal;

describe('readApiGuardianTotals', () => {
  it('reads the six totals of every zone, one E9 call per zone', async () => {
    const readings = await readApiGuardianTotals(fx.api, [43, 42, 43], { signal: signal() });

    expect([...readings]).toEqual([
      [
        43,
        {
          ok: true,
          totals: {
            totalBlockedRequests: 7,
            totalLoggedRequests: 0,
            totalRateLimited: 0,
            totalRequestsInspected: 70,
            totalFailedRequestValidation: 0,
            totalFailedAuthenticationEnforcement: 0,
          },
        },
      ],
      [
        42,
        {
          ok: true,
          totals: TOTALS_42,
        },
      ],
    ]);
    expect(fx.emu.journal.entries().map((e) => `${e.operation} ${e.path}`)).toEqual([
      'getApiGuardianMetrics /shield/metrics/shield-zone/43/api-guardian',
      'getApiGuardianMetrics /shield/metrics/shield-zone/42/api-guardian',
    ]);
  });

  it('a zone answering status-only 500 gets its error; the other zone its totals', async () => {
    fx.emu.faults.script({
      pathPrefix: '/shield/metrics/shield-zone/43/',
      times: 6,
      reply: { status: 500, body: { statusCode: 500 } },
    });

    const readings = await readApiGuardianTotals(fx.api, [42, 43], { signal: signal() });

    expect(readings.get(42)).toMatchObject({ ok: true, totals: { totalBlockedRequests: 1204 } });
    const failed = readings.get(43);
    expect(failed?.ok).toBe(false);
    if (failed?.ok !== false) return;
    expect(failed.error.code).toBe('API_UNAVAILABLE');
    expect(failed.error.message).toBe(
      'read API Guardian metrics (GET /shield/metrics/shield-zone/43/api-guardian) failed: 500 Internal Server Error (status only); gave up after 6 attempts',
    );
  });

  it('an unknown zone, a reply without data and an aborted read are errors, not throws', async () => {
    fx.emu.faults.script({
      pathPrefix: '/shield/metrics/shield-zone/43/',
      reply: { status: 200, body: { data: null, error: { statusCode: 200, success: true } } },
    });
    const aborted = new AbortController();
    aborted.abort(new Error('shutting down'));

    const readings = await readApiGuardianTotals(fx.api, [99, 43], { signal: signal() });
    const none = await readApiGuardianTotals(fx.api, [42], { signal: aborted.signal });

    const codes = (map: Map<number, { ok: boolean; error?: { code: string; message: string } }>) =>
      [...map].map(([zone, r]) => [zone, r.ok ? 'ok' : r.error?.code, r.ok ? '' : r.error?.message]);
    expect(codes(readings)).toEqual([
      [
        99,
        'API_NOT_FOUND',
        'read API Guardian metrics (GET /shield/metrics/shield-zone/99/api-guardian) failed: 404 Not Found (status only)',
      ],
      [
        43,
        'API_BAD_RESPONSE',
        'read API Guardian metrics (GET /shield/metrics/shield-zone/43/api-guardian) answered without data',
      ],
    ]);
    expect(codes(none)).toEqual([
      [
        42,
        'API_UNAVAILABLE',
        'read API Guardian metrics (GET /shield/metrics/shield-zone/42/api-guardian) failed: no reply: aborted by the caller',
      ],
    ]);
  });

  it('keeps at most `concurrency` calls in flight', async () => {
    fx.emu.faults.set({ latencyMs: 25 });
    let inFlight = 0;
    let peak = 0;
    const counting: Pick<ApiClient, 'getApiGuardianMetrics'> = {
      async getApiGuardianMetrics(zone, options) {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        try {
          return await fx.api.getApiGuardianMetrics(zone, options);
        } finally {
          inFlight -= 1;
        }
      },
    };
    const zones = Array.from({ length: 9 }, (_, i) => 100 + i);

    const readings = await readApiGuardianTotals(counting, zones, { signal: signal(), concurrency: 2 });

    expect(peak).toBe(2);
    expect(readings.size).toBe(9);
    expect(fx.emu.journal.count()).toBe(9);
  });
});

describe('desiredShieldZones', () => {
  it('lists the Shield Zones the desired state writes to, once each, ascending', () => {
    const resources = [
      desired('DnsZone', 'example-com', { id: 12345, dnssec: false }),
      desired('WafCustomRule', 'sqli', {
        id: 1234,
        shieldZoneId: 43,
        ruleName: 'x',
        ruleConfiguration: { actionType: 'Block', operatorType: 'RX', variableTypes: { ARGS: '' } },
      }),
      desired('AccessList', 'office', { shieldZoneId: 42, id: 9001, entries: ['1.2.3.4'] }),
      desired('ManagedAccessList', 'vpn', { shieldZoneId: 43, listId: 5, enabled: true }),
      desired('ContainerApp', 'app', { appId: 'app1' }),
    ];

    expect(desiredShieldZones(resources)).toEqual([42, 43]);
  });
});
