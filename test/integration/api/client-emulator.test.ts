/**
 * The client against the emulator for each of the nine seed operations: the success reply,
 * each failure shape the seed's Errors table lists for it, and the auth failure; and the app
 * listing's cursor paging across the emulator's pages. Client and
 * emulator share no code (ARCHITECTURE.md), so agreement here means both follow the seed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/domain/checksum.js';
import type { Emulator } from '../../../src/emulator/index.js';
import {
  ACCEPTED_RESULT_BODY,
  createTestClient,
  failure,
  type TestClient,
} from '../../helpers/api-client.js';
import { TEST_SEED, withEmulator } from '../../helpers/emulator.js';

describe('client × emulator, per seed operation', () => {
  let emu: Emulator;
  let tc: TestClient;
  let wrongKey: TestClient;
  beforeEach(async () => {
    emu = await withEmulator(TEST_SEED);
    tc = createTestClient(emu.url, { accessKey: 'test-access-key-0123456789', retry: { maxAttempts: 1 } });
    wrongKey = createTestClient(emu.url, { retry: { maxAttempts: 1 } });
  });
  afterEach(async () => {
    await tc.dispose();
    await wrongKey.dispose();
    await emu.close();
  });

  const rule = {
    ruleName: 'Block SQLi',
    ruleDescription: 'SQL injection',
    ruleConfiguration: {
      actionType: 1,
      operatorType: 14,
      severityType: 2,
      variableTypes: { REQUEST_URI: '' },
      transformationTypes: [19],
      value: 'union',
      isNegated: false,
      isRegexVariable: false,
      chainedRuleConditions: [],
    },
  };

  it('E1: updates a rule; 400 problem details; 202 refused; 401 UnauthorizedResult; 500 without body', async () => {
    const updated = await tc.client.updateCustomWafRule(1234, rule);
    const invalid = await failure(
      tc.client.updateCustomWafRule(1234, {
        ...rule,
        ruleConfiguration: { ...rule.ruleConfiguration, operatorType: 10 },
      }),
    );
    emu.faults.script({
      operation: 'updateCustomWafRule',
      reply: {
        status: 202,
        body: ACCEPTED_RESULT_BODY,
      },
    });
    const accepted = await failure(tc.client.updateCustomWafRule(1234, rule));
    const unauthorized = await failure(wrongKey.client.updateCustomWafRule(1234, rule));
    emu.faults.script({ operation: 'updateCustomWafRule', reply: { status: 500 } });
    const crashed = await failure(tc.client.updateCustomWafRule(1234, rule));

    expect(updated).toEqual({ id: 1234 });
    // The reply is only a receipt: the live rule shows the update.
    await expect(tc.client.getCustomWafRule(1234)).resolves.toMatchObject({
      id: 1234,
      ruleName: 'Block SQLi',
      ruleConfiguration: { operatorType: 14, value: 'union' },
    });
    expect([invalid.code, invalid.status, invalid.shape]).toEqual(['API_REJECTED', 400, 'problem-details']);
    expect([accepted.code, accepted.status, accepted.shape]).toEqual(['API_REJECTED', 202, 'accepted']);
    expect([unauthorized.code, unauthorized.status, unauthorized.shape]).toEqual([
      'API_AUTH',
      401,
      'unauthorized',
    ]);
    expect([crashed.code, crashed.status, crashed.shape]).toEqual(['API_UNAVAILABLE', 500, 'empty']);
  });

  it('E2: updates content with its checksum; a wrong checksum and an unknown list are problem details; 401', async () => {
    const content = '10.0.0.1\n10.0.0.2';

    const updated = await tc.client.updateCustomAccessList(42, 9001, {
      content,
      checksum: sha256Hex(content),
    });
    const badChecksum = await failure(
      tc.client.updateCustomAccessList(42, 9001, { content, checksum: sha256Hex('other') }),
    );
    const missing = await failure(tc.client.updateCustomAccessList(42, 7777, { content }));
    const unauthorized = await failure(wrongKey.client.updateCustomAccessList(42, 9001, { content }));

    expect(updated).toMatchObject({ id: 9001, content, checksum: sha256Hex(content), entryCount: 2 });
    expect([badChecksum.code, badChecksum.status, badChecksum.shape]).toEqual([
      'API_REJECTED',
      400,
      'problem-details',
    ]);
    expect([missing.code, missing.status, missing.shape]).toEqual(['API_NOT_FOUND', 404, 'problem-details']);
    expect([unauthorized.code, unauthorized.status, unauthorized.shape]).toEqual([
      'API_AUTH',
      401,
      'problem-details',
    ]);
  });

  it('E3: switches a configuration; an envelope with success:false fails even with 200; 404; 401', async () => {
    const updated = await tc.client.updateAccessListConfiguration(42, 19001, { isEnabled: false, action: 3 });
    emu.faults.script({
      operation: 'updateAccessListConfiguration',
      reply: {
        status: 200,
        body: {
          data: null,
          error: {
            statusCode: 400,
            success: false,
            message: 'Not available',
            errorKey: 'not_available.access_list',
          },
        },
      },
    });
    const refused = await failure(tc.client.updateAccessListConfiguration(42, 19001, { isEnabled: true }));
    const missing = await failure(tc.client.updateAccessListConfiguration(42, 1, { isEnabled: true }));
    const unauthorized = await failure(
      wrongKey.client.updateAccessListConfiguration(42, 19001, { isEnabled: true }),
    );

    expect(updated).toEqual({ isEnabled: false, action: 3 });
    expect([refused.code, refused.shape, refused.apiMessage, refused.errorKey]).toEqual([
      'API_REJECTED',
      'envelope-error',
      'Not available',
      'not_available.access_list',
    ]);
    expect([missing.code, missing.shape]).toEqual(['API_NOT_FOUND', 'problem-details']);
    expect([unauthorized.code, unauthorized.shape]).toEqual(['API_AUTH', 'problem-details']);
  });

  it('E4: patches an app; validation is an extended error with fields; unknown app is problem details; 401', async () => {
    const patched = await tc.client.patchApp('app1', { name: 'storefront two' });
    const invalid = await failure(
      tc.client.patchApp('app1', { name: 'bad_name!', volumes: [{ name: 'data', size: 500 }] }),
    );
    const missing = await failure(tc.client.patchApp('nope', { name: 'x' }));
    const unauthorized = await failure(wrongKey.client.patchApp('app1', { name: 'x' }));

    expect(patched).toEqual({ id: 'app1' });
    expect(emu.state.app('app1')?.name).toBe('storefront two');
    expect([invalid.code, invalid.status, invalid.shape]).toEqual(['API_REJECTED', 400, 'extended-error']);
    expect(invalid.fieldErrors.map((f) => f.field).sort()).toEqual(['name', 'volumes[0].size']);
    expect([missing.code, missing.status, missing.shape]).toEqual(['API_NOT_FOUND', 404, 'problem-details']);
    expect([unauthorized.code, unauthorized.shape]).toEqual(['API_AUTH', 'problem-details']);
  });

  it('E5: disables DNSSEC and returns the status object; unknown zone and 401 have empty bodies', async () => {
    const status = await tc.client.disableDnssec(12345);
    const missing = await failure(tc.client.disableDnssec(99));
    const unauthorized = await failure(wrongKey.client.disableDnssec(12345));

    expect(status).toMatchObject({ Enabled: false });
    expect(Object.keys(status).sort()).toEqual(
      [
        'Algorithm',
        'Digest',
        'DigestType',
        'DsConfigured',
        'DsRecord',
        'Enabled',
        'Flags',
        'KeyTag',
        'PublicKey',
      ].sort(),
    );
    expect([missing.code, missing.status, missing.shape]).toEqual(['API_NOT_FOUND', 404, 'empty']);
    expect([unauthorized.code, unauthorized.shape]).toEqual(['API_AUTH', 'empty']);
  });

  it('E6: lists bots by category; failures are problem details', async () => {
    const bots = await tc.client.getBotCategorization(42);
    emu.faults.script({
      operation: 'getBotCategorization',
      reply: { status: 404, body: { title: 'Not Found', status: 404, detail: 'No such zone' } },
    });
    const missing = await failure(tc.client.getBotCategorization(42));
    const unauthorized = await failure(wrongKey.client.getBotCategorization(42));

    expect(bots.categories?.length).toBeGreaterThan(0);
    expect(bots.categories?.[0]?.bots?.[0]).toMatchObject({
      botId: expect.any(Number),
      isVerifiable: expect.any(Boolean),
    });
    expect([missing.code, missing.shape, missing.apiMessage]).toEqual([
      'API_NOT_FOUND',
      'problem-details',
      'No such zone',
    ]);
    expect([unauthorized.code, unauthorized.shape]).toEqual(['API_AUTH', 'problem-details']);
  });

  it('E7: returns the optimal region; failures are problem details or extended errors', async () => {
    const region = await tc.client.getOptimalRegion();
    emu.faults.script({
      operation: 'getOptimalRegion',
      reply: {
        status: 500,
        body: { title: 'Server error', status: 500, errors: [{ field: 'token', message: 'no token' }] },
      },
    });
    const crashed = await failure(tc.client.getOptimalRegion());
    const unauthorized = await failure(wrongKey.client.getOptimalRegion());

    expect(region.region).toMatchObject({ id: expect.any(String), hasCapacity: expect.any(Boolean) });
    expect([crashed.code, crashed.shape, crashed.fieldErrors]).toEqual([
      'API_UNAVAILABLE',
      'extended-error',
      [{ field: 'token', message: 'no token' }],
    ]);
    expect([unauthorized.code, unauthorized.shape]).toEqual(['API_AUTH', 'problem-details']);
  });

  /** Zone 42's E9 data, set on the emulator: its default metrics depend on today's date. */
  const apiGuardian = {
    totalBlockedRequests: 7,
    totalLoggedRequests: 14,
    totalRateLimited: 1,
    totalRequestsInspected: 1070,
    totalFailedRequestValidation: 2,
    totalFailedAuthenticationEnforcement: 1,
    overviewPastTwentyEightDays: {
      '2024-05-01': {
        blockedRequests: 7,
        loggedRequests: 14,
        rateLimited: 1,
        requestsInspected: 1070,
        failedRequestValidation: 2,
        failedAuthenticationEnforcement: 1,
      },
    },
  };

  it.each([
    [
      'E8',
      (c: TestClient) => c.client.getWafPlanSegmentation(),
      'getWafPlanSegmentation',
      (e: Emulator): unknown => e.state.wafCatalog,
    ],
    [
      'E9',
      (c: TestClient) => c.client.getApiGuardianMetrics(42),
      'getApiGuardianMetrics',
      (e: Emulator): unknown => {
        e.state.shieldZone(42)!.apiGuardian = apiGuardian;
        return apiGuardian;
      },
    ],
  ])(
    '%s: returns its data; failures are status-only; 401 is UnauthorizedResult',
    async (_name, call, operation, emulatorData) => {
      const expected = emulatorData(emu);
      const ok = (await call(tc)) as { data?: unknown };
      emu.faults.script({ operation, reply: { status: 500, body: { statusCode: 500 } } });
      const crashed = await failure(call(tc));
      const unauthorized = await failure(call(wrongKey));

      expect(ok.data).toBeTruthy();
      expect(ok.data).toEqual(expected);
      expect([crashed.code, crashed.status, crashed.shape]).toEqual(['API_UNAVAILABLE', 500, 'status-only']);
      expect([unauthorized.code, unauthorized.status, unauthorized.shape]).toEqual([
        'API_AUTH',
        401,
        'unauthorized',
      ]);
    },
  );

  it("listApps follows the emulator's cursors to the last page: 2,001 apps are three pages of 1,000", async () => {
    const template = emu.state.apps()[0];
    if (template === undefined) throw new Error('TEST_SEED has no app');
    for (let n = emu.state.apps().length; n < 2001; n += 1) {
      emu.state.setApp({ ...structuredClone(template), id: `paged-${n}`, name: `paged app ${n}` });
    }
    emu.journal.clear();

    const apps = await tc.client.listApps();

    expect(apps.map((a) => a.id)).toEqual(emu.state.apps().map((a) => a.id));
    expect(apps).toHaveLength(2001);
    const pages = emu.journal.entries({ operation: 'listApps' });
    const cursors = pages.map((e) => (e.replyBody as { cursor: string | null }).cursor);
    expect(pages.map((e) => [e.status, (e.replyBody as { items: unknown[] }).items.length])).toEqual([
      [200, 1000],
      [200, 1000],
      [200, 1],
    ]);
    expect(pages.map((e) => e.query)).toEqual([
      { limit: '1000' },
      { limit: '1000', nextCursor: cursors[0] },
      { limit: '1000', nextCursor: cursors[1] },
    ]);
    expect(cursors[2]).toBeNull();
  });
});
