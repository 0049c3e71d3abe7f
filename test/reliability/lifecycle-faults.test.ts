/**
 * Creates and prunes while a fifth of the API calls fail (429, 500, 503, dropped connections,
 * requests handled and then dropped — a create whose reply is lost): repeated applies converge,
 * every desired rule and list exists exactly once, the removed documents' objects are deleted,
 * and the objects edgesync never owned are untouched.
 */
import { describe, expect, it } from 'vitest';
import type { DesiredResource } from '../../src/config/types.js';
import { startEmulator } from '../../src/emulator/index.js';
import { reconcile } from '../../src/engine/reconcile.js';
import { memoryStateStore } from '../../src/engine/state.js';
import { desired } from '../helpers/desired.js';
import { TEST_KEY, TEST_SEED } from '../helpers/emulator.js';
import { faultRates, faultTestClient } from '../helpers/fault-client.js';
import { prng } from '../helpers/prng.js';

const CONFIG = { actionType: 'Block', operatorType: 'CONTAINS', variableTypes: { REQUEST_URI: '' } };
const OLD = Array.from({ length: 6 }, (_, i) => ({
  id: 5000 + i,
  ruleName: `Old ${i}`,
  ruleConfiguration: { actionType: 'Log', operatorType: 'CONTAINS', value: `old-${i}` },
}));

describe('creates and prunes while 20 % of API calls fail', () => {
  it('converge: each key once, the removed documents’ objects deleted, never-owned ones untouched', async () => {
    const zone = (TEST_SEED.shieldZones ?? [])[0];
    const emu = await startEmulator({
      accessKey: TEST_KEY,
      seed: {
        ...TEST_SEED,
        shieldZones: [
          { ...zone, id: 42, planType: 'Enterprise', customRules: [...(zone?.customRules ?? []), ...OLD] },
        ],
      },
    });
    const api = faultTestClient(emu.url, 26);
    const state = memoryStateStore();
    // The old rules were created by documents that are gone now.
    for (const old of OLD) {
      state.setInventory(`WafCustomRule/old-${old.id}`, {
        kind: 'WafCustomRule',
        shieldZoneId: 42,
        id: old.id,
        key: old.ruleName,
      });
    }
    const resources: DesiredResource[] = [
      ...Array.from({ length: 20 }, (_, i) =>
        desired('WafCustomRule', `new-${i}`, {
          shieldZoneId: 42,
          ruleName: `New ${i}`,
          ruleConfiguration: { ...CONFIG, value: `new-${i}` },
        }),
      ),
      ...Array.from({ length: 3 }, (_, i) =>
        desired('AccessList', `list-${i}`, {
          shieldZoneId: 42,
          name: `List ${i}`,
          type: 'IP',
          entries: [`192.0.2.${i + 1}`],
          enabled: false,
          action: 'Challenge',
        }),
      ),
    ];
    const run = () =>
      reconcile(resources, {
        api,
        state,
        selection: { revision: 'faults', prune: true },
        write: {
          mode: 'apply',
          driftMode: 'correct',
          concurrency: 8,
          maxChangePercent: 100,
          force: true,
          signal: new AbortController().signal,
        },
        report: { trigger: 'test' },
      });
    try {
      // The first creates meet a lost reply for certain, whatever the dice say.
      emu.faults.script({ operation: 'createCustomWafRule', reply: 'drop-after', times: 2 });
      emu.faults.script({ operation: 'createCustomAccessList', reply: 'drop-after' });
      emu.faults.set(faultRates(prng(25)));
      let runs = 0;
      for (; runs < 6; runs += 1) {
        const outcome = await run();
        if (outcome.apply?.ok === true) break;
      }
      emu.faults.set({});
      emu.journal.clear();
      const final = await run();

      const names = emu.state.customRules(42).map((r) => r.ruleName);
      const lists = [...(emu.state.shieldZone(42)?.accessLists.values() ?? [])].filter(
        (l) => l.kind === 'custom',
      );
      expect(runs).toBeLessThan(6);
      expect(final.plan.changes.filter((c) => c.action !== 'noop')).toEqual([]);
      expect(emu.journal.writes()).toEqual([]);
      // Never owned: untouched. Owned and removed: deleted. Desired: each exactly once.
      expect(names.sort()).toEqual(
        ['Block SQLi', 'Log scanners', 'Third', ...Array.from({ length: 20 }, (_, i) => `New ${i}`)].sort(),
      );
      expect(lists.map((l) => [l.name, l.isEnabled, l.action]).sort()).toEqual([
        ['Countries', false, 3],
        ['List 0', false, 3],
        ['List 1', false, 3],
        ['List 2', false, 3],
        ['Office IPs', true, 2],
      ]);
      expect([...state.inventory().keys()].sort()).toEqual(resources.map((r) => r.subject).sort());
    } finally {
      await api.close();
      await emu.close();
    }
  }, 60_000);
});
