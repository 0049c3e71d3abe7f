/**
 * The contract every kind keeps, against the emulator over real HTTP:
 * drift → plan shows exactly the drifted fields → apply sends exactly the expected requests →
 * plan is empty and a second apply writes nothing → an out-of-band edit is detected and
 * labelled → a desired change is labelled as such. A kind that only declares (ShieldZone)
 * plans nothing and writes nothing, suspended or not.
 *
 * The table is keyed by the kind registry: a kind added to src/kinds/registry.ts without a row
 * here fails to compile and fails the first test.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DesiredResource } from '../../src/config/types.js';
import { sha256Hex } from '../../src/domain/checksum.js';
import type { Emulator } from '../../src/emulator/index.js';
import { LIFECYCLE_KINDS } from '../../src/kinds/common/identity.js';
import { KINDS } from '../../src/kinds/registry.js';
import type { KindName } from '../../src/kinds/types.js';
import { desired } from '../helpers/desired.js';
import { type EngineFixture, engineFixture, writesOf } from '../helpers/engine.js';

/** A kind that writes: its drift, requests and causes. */
interface KindContract {
  kind: KindName;
  /** A spec that differs from the seed. */
  spec: Record<string, unknown>;
  /** The same resource after a commit changes it again. */
  changedSpec: Record<string, unknown>;
  diffs: Array<{ path: string; live: unknown; desired: unknown }>;
  writes: Array<{ method: string; path: string; body: unknown }>;
  /** Edits live state behind edgesync's back; returns the path the plan must show. */
  outOfBand(emu: Emulator): string;
  changedPath: string;
}

/** A kind that declares ownership and writes nothing itself. */
interface DeclarationContract {
  kind: KindName;
  declaresOnly: true;
  spec: Record<string, unknown>;
}

const table: { readonly [K in KindName]: (KindContract | DeclarationContract) & { kind: K } } = {
  WafCustomRule: {
    kind: 'WafCustomRule',
    spec: {
      id: 1234,
      shieldZoneId: 42,
      ruleName: 'Block SQLi',
      ruleConfiguration: {
        actionType: 'Block',
        operatorType: 'RX',
        variableTypes: { REQUEST_URI: '', ARGS: '' },
        transformationTypes: ['URLDECODE', 'LOWERCASE'],
        value: 'union\\s+select',
      },
    },
    changedSpec: {
      id: 1234,
      shieldZoneId: 42,
      ruleName: 'Block SQLi',
      ruleConfiguration: {
        actionType: 'Log',
        operatorType: 'RX',
        variableTypes: { REQUEST_URI: '', ARGS: '' },
      },
    },
    diffs: [
      { path: 'ruleConfiguration.operatorType', live: 'DETECTSQLI', desired: 'RX' },
      { path: 'ruleConfiguration.value', live: '', desired: 'union\\s+select' },
    ],
    writes: [
      {
        method: 'PATCH',
        path: '/shield/waf/custom-rule/1234',
        body: {
          ruleName: 'Block SQLi',
          ruleDescription: 'SQL injection',
          ruleConfiguration: {
            actionType: 1,
            variableTypes: { REQUEST_URI: '', ARGS: '' },
            operatorType: 14,
            severityType: 2,
            transformationTypes: [19, 8],
            value: 'union\\s+select',
            isNegated: false,
            isRegexVariable: false,
            chainedRuleConditions: [],
          },
        },
      },
    ],
    outOfBand(emu) {
      emu.state.updateCustomRule(1234, { ruleName: 'Edited in the dashboard' });
      return 'ruleName';
    },
    changedPath: 'ruleConfiguration.actionType',
  },
  AccessList: {
    kind: 'AccessList',
    spec: { shieldZoneId: 42, id: 9001, entries: ['203.0.113.0/24', '192.0.2.1'], enabled: false },
    changedSpec: { shieldZoneId: 42, id: 9001, entries: ['203.0.113.0/24', '192.0.2.1'], enabled: true },
    diffs: [
      { path: 'entries', live: ['203.0.113.0/24', '198.51.100.7'], desired: ['203.0.113.0/24', '192.0.2.1'] },
      { path: 'enabled', live: true, desired: false },
    ],
    writes: [
      {
        method: 'PATCH',
        path: '/shield/shield-zone/42/access-lists/9001',
        body: { content: '203.0.113.0/24\n192.0.2.1', checksum: sha256Hex('203.0.113.0/24\n192.0.2.1') },
      },
      {
        method: 'PATCH',
        path: '/shield/shield-zone/42/access-lists/configurations/19001',
        body: { isEnabled: false },
      },
    ],
    outOfBand(emu) {
      emu.state.setAccessListContent(42, 9001, '203.0.113.0/24\n192.0.2.1\n10.66.0.1\n');
      return 'entries';
    },
    changedPath: 'enabled',
  },
  ManagedAccessList: {
    kind: 'ManagedAccessList',
    spec: { shieldZoneId: 42, name: 'vpn providers', enabled: true, action: 'Block' },
    changedSpec: { shieldZoneId: 42, name: 'vpn providers', enabled: true, action: 'Challenge' },
    diffs: [{ path: 'enabled', live: false, desired: true }],
    writes: [
      {
        method: 'PATCH',
        path: '/shield/shield-zone/42/access-lists/configurations/10005',
        body: { isEnabled: true, action: 2 },
      },
    ],
    outOfBand(emu) {
      emu.state.setConfiguration(42, 10005, { isEnabled: false });
      return 'enabled';
    },
    changedPath: 'action',
  },
  ContainerApp: {
    kind: 'ContainerApp',
    spec: {
      appId: 'app1',
      runtimeType: 'Shared',
      containerTemplates: [{ name: 'web', imageTag: '1.5.0' }, { name: 'worker' }],
    },
    changedSpec: { appId: 'app1', autoScaling: { min: 2, max: 4 } },
    diffs: [{ path: 'containerTemplates[web].imageTag', live: '1.4.2', desired: '1.5.0' }],
    writes: [
      {
        method: 'PATCH',
        path: '/mc/apps/app1',
        body: {
          containerTemplates: [
            {
              id: 'tpl-web',
              name: 'web',
              imageName: 'web',
              imageNamespace: 'acme',
              imageTag: '1.5.0',
              imageRegistryId: '123',
              imagePullPolicy: 'ifNotPresent',
              environmentVariables: [{ name: 'LOG_LEVEL', value: 'info' }],
              endpoints: [
                {
                  displayName: 'web-cdn',
                  cdn: expect.objectContaining({
                    isSslEnabled: true,
                    portMappings: [expect.objectContaining({ containerPort: 8080, protocols: ['tcp'] })],
                  }),
                },
              ],
              volumeMounts: [{ name: 'data', mountPath: '/data' }],
            },
            expect.objectContaining({ id: 'tpl-worker', name: 'worker', imageTag: '2.0.0' }),
          ],
        },
      },
    ],
    outOfBand(emu) {
      const app = emu.state.app('app1');
      const web = app?.containerTemplates.find((c) => c.name === 'web');
      if (web === undefined) throw new Error('seed changed');
      web.imageTag = '1.5.1-hotfix';
      return 'containerTemplates[web].imageTag';
    },
    changedPath: 'autoScaling.min',
  },
  DnsZone: {
    kind: 'DnsZone',
    spec: { id: 12345, dnssec: false },
    changedSpec: { id: 12346, dnssec: true },
    diffs: [{ path: 'dnssec', live: true, desired: false }],
    writes: [{ method: 'DELETE', path: '/dnszone/12345/dnssec', body: undefined }],
    outOfBand(emu) {
      emu.state.setDnssec(12345, true);
      return 'dnssec';
    },
    changedPath: 'dnssec',
  },
  ShieldZone: {
    kind: 'ShieldZone',
    declaresOnly: true,
    spec: { shieldZoneId: 42, customWafRules: 'exclusive', ignore: ['legacy-*'] },
  },
};

const rows: readonly (KindContract | DeclarationContract)[] = Object.values(table);
const contracts = rows.filter((c): c is KindContract => !('declaresOnly' in c));
const declarations = rows.filter((c): c is DeclarationContract => 'declaresOnly' in c);

it('has a contract for every kind of the registry', () => {
  expect(Object.keys(table).sort()).toEqual(Object.keys(KINDS).sort());
  expect(Object.entries(table).filter(([name, c]) => c.kind !== name)).toEqual([]);
  // The state's inventory schema accepts exactly the kinds that have a lifecycle.
  expect([...LIFECYCLE_KINDS].sort()).toEqual(
    Object.values(KINDS)
      .filter((kind) => kind.lifecycle !== undefined)
      .map((kind) => kind.kind)
      .sort(),
  );
});

describe.each(declarations)('$kind contract (a declaration)', (contract) => {
  let fx: EngineFixture;
  beforeEach(async () => {
    fx = await engineFixture();
  });
  afterEach(async () => {
    await fx.close();
  });

  it('plans no change and writes nothing, applied twice, suspended or in report mode', async () => {
    const runs = [
      await fx.run([desired(contract.kind, 'subject', contract.spec)], 'plan'),
      await fx.run([desired(contract.kind, 'subject', contract.spec)], 'apply'),
      await fx.run([desired(contract.kind, 'subject', contract.spec)], 'apply'),
      await fx.run([desired(contract.kind, 'subject', contract.spec, { suspend: true })], 'apply'),
      await fx.run([desired(contract.kind, 'subject', contract.spec, { drift: 'report' })], 'apply'),
    ];

    expect(runs.map((r) => r.plan.changes.map((c) => [c.subject, c.action, c.diffs.length]))).toEqual(
      runs.map(() => [[`${contract.kind}/subject`, 'noop', 0]]),
    );
    expect(runs.slice(1).map((r) => r.apply?.counts)).toEqual(
      runs.slice(1).map(() => ({ applied: 0, unchanged: 1, skipped: 0, failed: 0 })),
    );
    expect(writesOf(fx.emu)).toEqual([]);
  });
});

describe.each(contracts)('$kind contract', (contract) => {
  let fx: EngineFixture;
  beforeEach(async () => {
    fx = await engineFixture();
  });
  afterEach(async () => {
    await fx.close();
  });

  function resources(spec: Record<string, unknown>): DesiredResource[] {
    return [desired(contract.kind, 'subject', spec)];
  }

  it('plans exactly the drifted fields, applies exactly the expected requests, then converges', async () => {
    const planned = await fx.run(resources(contract.spec), 'plan');

    expect(planned.plan.changes).toHaveLength(1);
    expect(planned.plan.changes[0]?.action).toBe('update');
    expect(planned.plan.changes[0]?.cause).toBe('unknown');
    expect(planned.plan.changes[0]?.diffs).toEqual(contract.diffs);
    expect(writesOf(fx.emu)).toEqual([]);

    const applied = await fx.run(resources(contract.spec), 'apply');

    expect(applied.apply?.counts).toEqual({ applied: 1, unchanged: 0, skipped: 0, failed: 0 });
    expect(writesOf(fx.emu)).toEqual(contract.writes);

    fx.emu.journal.clear();
    const again = await fx.run(resources(contract.spec), 'plan');
    const reapplied = await fx.run(resources(contract.spec), 'apply');

    expect(again.plan.changes[0]?.action).toBe('noop');
    expect(again.plan.changes[0]?.diffs).toEqual([]);
    expect(reapplied.apply?.counts.applied).toBe(0);
    expect(writesOf(fx.emu)).toEqual([]);
  });

  it('labels an out-of-band edit and a desired change by their cause', async () => {
    await fx.run(resources(contract.spec), 'apply');

    const path = contract.outOfBand(fx.emu);
    const drifted = await fx.run(resources(contract.spec), 'plan');
    const changed = await fx.run(resources(contract.changedSpec), 'plan');

    expect(drifted.plan.changes[0]?.diffs.map((d) => d.path)).toEqual([path]);
    expect(drifted.plan.changes[0]?.cause).toBe('out-of-band');
    expect(changed.plan.changes[0]?.diffs.map((d) => d.path)).toContain(contract.changedPath);
    expect(changed.plan.changes[0]?.cause).toBe('desired-changed');
  });

  it('writes nothing when suspended or in report mode, but still shows the drift', async () => {
    const suspended = [desired(contract.kind, 'subject', contract.spec, { suspend: true })];
    const reportOnly = [desired(contract.kind, 'subject', contract.spec, { drift: 'report' })];

    const a = await fx.run(suspended, 'apply');
    const b = await fx.run(reportOnly, 'apply');
    const c = await fx.run(resources(contract.spec), 'apply', { write: { driftMode: 'report' } });

    expect([a, b, c].map((r) => r.plan.changes[0]?.skip)).toEqual([
      'suspended',
      'report-only',
      'report-only',
    ]);
    expect([a, b, c].map((r) => r.plan.changes[0]?.diffs)).toEqual([
      contract.diffs,
      contract.diffs,
      contract.diffs,
    ]);
    expect([a, b, c].map((r) => r.apply?.counts.skipped)).toEqual([1, 1, 1]);
    expect(writesOf(fx.emu)).toEqual([]);
  });
});
