/**
 * Objects of the inventory deleted outside edgesync (the dashboard, another tool): a document
 * that still wants one gets it created again, and one whose document is gone too is dropped
 * from the inventory by the next apply, as a refresh drops what no longer exists — it is never
 * kept (and its zone read) forever. Against the emulator over real HTTP.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { DesiredResource } from '../../src/config/types.js';
import { desired } from '../helpers/desired.js';
import { type EngineFixture, engineFixture, writesOf } from '../helpers/engine.js';

const CONFIG = {
  actionType: 'Block',
  operatorType: 'BEGINSWITH',
  variableTypes: { REQUEST_URI: '' },
  value: '/x',
};
const keep = desired('WafCustomRule', 'third', {
  id: 1236,
  shieldZoneId: 42,
  ruleName: 'Third',
  ruleConfiguration: {
    actionType: 'Challenge',
    operatorType: 'RX',
    variableTypes: { REQUEST_URI: '' },
    value: '^/admin',
  },
});
const doc: DesiredResource = desired('WafCustomRule', 'block-x', {
  shieldZoneId: 42,
  ruleName: 'Block x',
  ruleConfiguration: CONFIG,
});

let fx: EngineFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

/** `block-x` created, then deleted in the emulator behind edgesync's back. */
async function deletedOutOfBand(): Promise<{ f: EngineFixture; id: number }> {
  fx = await engineFixture();
  await fx.run([keep, doc], 'apply');
  const id = fx.state.inventory().get('WafCustomRule/block-x')?.id as number;
  fx.emu.state.removeCustomRule(id);
  fx.emu.journal.clear();
  return { f: fx, id };
}

describe('inventory objects deleted out of band', () => {
  it('with the document gone too: dropped from the inventory by an apply, nothing sent; the next plan is quiet', async () => {
    const { f } = await deletedOutOfBand();

    const planned = await f.run([keep], 'plan', { selection: { prune: true } });
    expect(planned.plan.gone).toEqual(['WafCustomRule/block-x']);
    expect(f.state.inventory().get('WafCustomRule/block-x')).toBeDefined();

    const applied = await f.run([keep], 'apply');

    expect(applied.plan.gone).toEqual(['WafCustomRule/block-x']);
    expect(applied.plan.notPruned).toBeUndefined();
    expect(writesOf(f.emu)).toEqual([]);
    expect([...f.state.inventory().keys()]).toEqual(['WafCustomRule/third']);
    const again = await f.run([keep], 'apply', { selection: { prune: true } });
    expect(again.plan.gone).toBeUndefined();
    expect(again.plan.changes.map((c) => c.action)).toEqual(['noop']);
  });

  it('with the document still there: created again, and the inventory follows the new id', async () => {
    const { f, id } = await deletedOutOfBand();

    await f.run([keep, doc], 'apply');

    expect(writesOf(f.emu).map((w) => `${w.method} ${w.path}`)).toEqual(['POST /shield/waf/custom-rule']);
    const recreated = f.emu.state.customRules(42).find((r) => r.ruleName === 'Block x');
    expect(recreated?.id).not.toBe(id);
    expect(f.state.inventory().get('WafCustomRule/block-x')?.id).toBe(recreated?.id);
  });
});
