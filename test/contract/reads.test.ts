/**
 * Reads are batched: one custom-rule listing per zone (not one GET per rule), one access-list
 * listing per zone shared by AccessList and ManagedAccessList, content GETs only where the
 * checksum hint cannot settle it, one GET per app and per DNS zone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { DesiredResource } from '../../src/config/types.js';
import type { EmulatorSeed } from '../../src/emulator/index.js';
import { desired } from '../helpers/desired.js';
import { type EngineFixture, engineFixture } from '../helpers/engine.js';

const ZONES = [42, 43, 44];
const RULES_PER_ZONE = 25;

function seed(): EmulatorSeed {
  return {
    shieldZones: ZONES.map((zone) => ({
      id: zone,
      planType: 'Business',
      customRules: Array.from({ length: RULES_PER_ZONE }, (_, i) => ({
        id: zone * 1000 + i,
        ruleName: `rule ${i}`,
        ruleConfiguration: {
          actionType: 'Block',
          operatorType: 'CONTAINS',
          severityType: 'WARNING',
          variableTypes: { ARGS: '' },
          value: `x${i}`,
        },
      })),
      customAccessLists: [1, 2].map((n) => ({
        id: zone * 100 + n,
        configurationId: zone * 1000 + 900 + n,
        name: `list ${n}`,
        type: 'IP',
        content: `10.0.${n}.1\n10.0.${n}.2\n`,
      })),
      managedAccessLists: [
        { id: 5, configurationId: zone * 10 + 5, name: 'Tor exit nodes', category: 'TorExitNodes' },
      ],
    })),
    apps: [1, 2].map((n) => ({
      id: `app${n}`,
      name: `app ${n}`,
      runtimeType: 'shared',
      autoScaling: { min: 1, max: 2 },
      regionSettings: { allowedRegionIds: ['DE'], requiredRegionIds: ['DE'] },
      containerTemplates: [
        { name: 'web', imageRegistryId: '1', imageNamespace: 'a', imageName: 'web', imageTag: '1' },
      ],
    })),
    dnsZones: [1, 2, 3].map((n) => ({ id: n, domain: `example${n}.com`, dnsSecEnabled: false })),
  };
}

function resources(): DesiredResource[] {
  return [
    ...ZONES.flatMap((zone) => [
      ...Array.from({ length: RULES_PER_ZONE }, (_, i) =>
        desired('WafCustomRule', `r-${zone}-${i}`, {
          id: zone * 1000 + i,
          shieldZoneId: zone,
          ruleName: `rule ${i}`,
          ruleConfiguration: {
            actionType: 'Block',
            operatorType: 'CONTAINS',
            variableTypes: { ARGS: '' },
            value: `x${i}`,
          },
        }),
      ),
      ...[1, 2].map((n) =>
        desired('AccessList', `l-${zone}-${n}`, {
          shieldZoneId: zone,
          id: zone * 100 + n,
          entries: [`10.0.${n}.1`, `10.0.${n}.2`],
        }),
      ),
      desired('ManagedAccessList', `m-${zone}`, { shieldZoneId: zone, listId: 5, enabled: false }),
    ]),
    ...[1, 2].map((n) =>
      desired('ContainerApp', `app-${n}`, { appId: `app${n}`, autoScaling: { min: 1, max: 2 } }),
    ),
    ...[1, 2, 3].map((n) => desired('DnsZone', `dns-${n}`, { id: n, dnssec: false })),
  ];
}

describe('batched reads', () => {
  let fx: EngineFixture;
  afterEach(async () => {
    await fx.close();
  });

  it('reads each zone once per kind family, and content only until the checksum hint settles it', async () => {
    fx = await engineFixture(seed());
    const count = () => {
      const byOperation: Record<string, number> = {};
      for (const e of fx.emu.journal.entries())
        byOperation[e.operation] = (byOperation[e.operation] ?? 0) + 1;
      fx.emu.journal.clear();
      return byOperation;
    };

    const first = await fx.run(resources(), 'apply');
    const firstReads = count();
    const second = await fx.run(resources(), 'apply');
    const secondReads = count();

    expect(first.plan.summary).toMatchObject({ resources: 89, toUpdate: 0, errors: 0, unchanged: 89 });
    expect(firstReads).toEqual({
      listCustomWafRules: 3,
      listAccessLists: 3,
      getCustomAccessList: 6,
      getApp: 2,
      getDnsZone: 3,
    });
    expect(second.plan.summary.unchanged).toBe(89);
    expect(secondReads).toEqual({ listCustomWafRules: 3, listAccessLists: 3, getApp: 2, getDnsZone: 3 });
  });

  it('reads the content again when the listing shows the list changed', async () => {
    fx = await engineFixture(seed());
    await fx.run(resources(), 'apply');
    fx.emu.journal.clear();
    await new Promise((r) => setTimeout(r, 5));
    fx.emu.state.setAccessListContent(43, 4301, '10.0.1.1\n10.0.1.2\n10.9.9.9');

    const result = await fx.run(resources(), 'plan');

    expect(fx.emu.journal.entries({ operation: 'getCustomAccessList' }).map((e) => e.path)).toEqual([
      '/shield/shield-zone/43/access-lists/4301',
    ]);
    expect(result.plan.changes.filter((c) => c.action === 'update').map((c) => c.subject)).toEqual([
      'AccessList/l-43-1',
    ]);
  });

  it('reads 50 or more DNS zones with the zone listing instead of one GET each', async () => {
    const zones = Array.from({ length: 60 }, (_, i) => ({
      id: 900 + i,
      domain: `z${i}.example`,
      dnsSecEnabled: i % 2 === 0,
    }));
    fx = await engineFixture({ dnsZones: zones });
    const dns = zones.map((z) => desired('DnsZone', `z${z.id}`, { id: z.id, dnssec: true }));
    const missing = desired('DnsZone', 'missing', { id: 7, dnssec: true });

    const result = await fx.run([...dns, missing], 'plan');
    const reads = fx.emu.journal.entries().map((e) => e.operation);
    fx.emu.journal.clear();
    fx.emu.faults.script({ operation: 'listDnsZones', times: 6, reply: { status: 500 } });
    const failed = await fx.run(dns, 'plan');

    expect(reads).toEqual(['listDnsZones']);
    expect(result.plan.summary).toMatchObject({ resources: 61, toUpdate: 30, unchanged: 30, errors: 1 });
    expect(result.plan.changes.find((c) => c.subject === 'DnsZone/missing')?.error).toEqual({
      code: 'API_NOT_FOUND',
      message: 'cannot read live state: DNS zone 7 is not in the account',
    });
    expect(failed.plan.summary.errors).toBe(60);
    expect(fx.emu.journal.entries().map((e) => e.operation)).toEqual(Array(6).fill('listDnsZones'));
  });
});
