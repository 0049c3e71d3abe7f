/**
 * A document without id moved to another Shield Zone (docs/design.md, Lifecycle of Shield objects): its object is created (or
 * adopted) in the new zone, and the one it leaves behind is pruned like any object whose
 * document is gone — never overwritten in the inventory and left owned by nobody. Against the
 * emulator over real HTTP; every assertion reads its journal or live state.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { DesiredResource } from '../../src/config/types.js';
import type { EmulatorSeed } from '../../src/emulator/index.js';
import { desired } from '../helpers/desired.js';
import { TEST_SEED } from '../helpers/emulator.js';
import { type EngineFixture, engineFixture, writesOf } from '../helpers/engine.js';

/** TEST_SEED plus an empty Advanced zone 44 to move into. */
const SEED: EmulatorSeed = {
  ...TEST_SEED,
  shieldZones: [...(TEST_SEED.shieldZones ?? []), { id: 44, planType: 'Advanced' }],
};

const CONFIG = {
  actionType: 'Block',
  operatorType: 'BEGINSWITH',
  variableTypes: { REQUEST_URI: '' },
  value: '/x',
};

function rule(shieldZoneId: number, extra: Record<string, unknown> = {}): DesiredResource {
  return desired('WafCustomRule', 'block-x', {
    shieldZoneId,
    ruleName: 'Block x',
    ruleConfiguration: CONFIG,
    ...extra,
  });
}

let fx: EngineFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

/** A rule created in zone 42 by a document without id; returns its id. */
async function createdIn42(): Promise<{ f: EngineFixture; id: number }> {
  fx = await engineFixture(SEED);
  await fx.run([rule(42)], 'apply');
  const id = fx.state.inventory().get('WafCustomRule/block-x')?.id as number;
  expect(id).toEqual(expect.any(Number));
  fx.emu.journal.clear();
  return { f: fx, id };
}

const names = (f: EngineFixture, zone: number) => f.emu.state.customRules(zone).map((r) => r.ruleName);

describe('a document moved to another zone', () => {
  it('with --prune: created in the new zone and the old object deleted in one run; the next apply is empty', async () => {
    const { f, id } = await createdIn42();

    const { plan, apply } = await f.run([rule(44)], 'apply', { selection: { prune: true } });

    expect(plan.changes.map((c) => [c.subject, c.action, c.prune])).toEqual([
      ['WafCustomRule/block-x', 'create', undefined],
      ['WafCustomRule/block-x@shield-zone-42', 'delete', 'inventory'],
    ]);
    expect(apply?.ok).toBe(true);
    expect(writesOf(f.emu).map((w) => `${w.method} ${w.path}`)).toEqual([
      'POST /shield/waf/custom-rule',
      `DELETE /shield/waf/custom-rule/${id}`,
    ]);
    expect(names(f, 44)).toEqual(['Block x']);
    expect(names(f, 42)).not.toContain('Block x');
    expect(Object.fromEntries(f.state.inventory())).toEqual({
      'WafCustomRule/block-x': {
        kind: 'WafCustomRule',
        shieldZoneId: 44,
        id: f.emu.state.customRules(44)[0]?.id,
        key: 'Block x',
      },
    });

    f.emu.journal.clear();
    const again = await f.run([rule(44)], 'apply', { selection: { prune: true } });
    expect(again.plan.changes.map((c) => c.action)).toEqual(['noop']);
    expect(again.plan.notPruned).toBeUndefined();
    expect(writesOf(f.emu)).toEqual([]);
  });

  it('a file-change run that sees the document change prunes the object it left behind', async () => {
    const { f, id } = await createdIn42();
    const moved = rule(44);

    // A file-change run: only the changed document, nothing removed, every document as claims.
    await f.run([moved], 'apply', { selection: { prune: true, removed: [], all: [moved] } });

    expect(writesOf(f.emu).map((w) => `${w.method} ${w.path}`)).toEqual([
      'POST /shield/waf/custom-rule',
      `DELETE /shield/waf/custom-rule/${id}`,
    ]);
  });

  it('--only the moved document prunes what it left behind; --only another document touches neither', async () => {
    const { f, id } = await createdIn42();
    const other = desired('DnsZone', 'example-com', { id: 12345, dnssec: true });
    const docs = [rule(44), other];

    const elsewhere = await f.run(docs, 'apply', {
      selection: { prune: true, only: ['DnsZone/example-com'] },
    });
    const writesElsewhere = writesOf(f.emu);
    const selected = await f.run(docs, 'apply', {
      selection: { prune: true, only: ['WafCustomRule/block-x'] },
    });

    expect(elsewhere.plan.changes.map((c) => [c.subject, c.action])).toEqual([
      ['DnsZone/example-com', 'noop'],
    ]);
    expect(elsewhere.plan.notPruned).toBeUndefined();
    expect(writesElsewhere).toEqual([]);
    expect(selected.plan.partial).toEqual({
      only: ['WafCustomRule/block-x'],
      documents: 1,
      of: 2,
      withoutDocument: 0,
    });
    expect(writesOf(f.emu).map((w) => `${w.method} ${w.path}`)).toEqual([
      'POST /shield/waf/custom-rule',
      `DELETE /shield/waf/custom-rule/${id}`,
    ]);
  });

  it('without --prune: the old object stays, is listed as not pruned under its own subject, and a later --prune deletes it', async () => {
    const { f, id } = await createdIn42();

    const { plan } = await f.run([rule(44)], 'apply');

    expect(plan.notPruned).toEqual([
      {
        kind: 'WafCustomRule',
        shieldZoneId: 42,
        id,
        key: 'Block x',
        subject: 'WafCustomRule/block-x@shield-zone-42',
        reason: 'not pruned: --prune is off',
        withPrune: 'delete',
      },
    ]);
    expect(names(f, 42)).toContain('Block x');
    expect(names(f, 44)).toEqual(['Block x']);
    // Still owned, so that a later run can prune it: the create in zone 44 did not overwrite it.
    expect(f.state.inventory().get('WafCustomRule/block-x@shield-zone-42')).toEqual({
      kind: 'WafCustomRule',
      shieldZoneId: 42,
      id,
      key: 'Block x',
    });

    f.emu.journal.clear();
    await f.run([rule(44)], 'apply', { selection: { prune: true } });
    expect(writesOf(f.emu).map((w) => `${w.method} ${w.path}`)).toEqual([
      `DELETE /shield/waf/custom-rule/${id}`,
    ]);
    expect([...f.state.inventory().keys()]).toEqual(['WafCustomRule/block-x']);
  });

  it('is not pruned from the old zone while the new zone cannot take the object (a create past its limit)', async () => {
    const { f, id } = await createdIn42();

    // Zone 43 is on the Basic plan: no custom rules at all.
    const { plan } = await f.run([rule(43)], 'apply', { selection: { prune: true } });

    expect(plan.changes.map((c) => [c.subject, c.action])).toEqual([['WafCustomRule/block-x', 'error']]);
    expect(plan.notPruned?.map((n) => [n.subject, n.id, n.reason])).toEqual([
      [
        'WafCustomRule/block-x@shield-zone-42',
        id,
        'not pruned: WafCustomRule/block-x moved to another zone, where its object is not known yet',
      ],
    ]);
    expect(writesOf(f.emu)).toEqual([]);
    expect(names(f, 42)).toContain('Block x');
  });

  it('a document pinned by id whose zone is wrong is an error of that document; its object is never pruned', async () => {
    const { f, id } = await createdIn42();

    const { plan } = await f.run([rule(44, { id })], 'apply', { selection: { prune: true } });

    expect(plan.changes.map((c) => [c.subject, c.action, c.error?.message])).toEqual([
      [
        'WafCustomRule/block-x',
        'error',
        `cannot read live state: custom WAF rule ${id} is not in Shield Zone 44`,
      ],
    ]);
    expect(plan.notPruned).toBeUndefined();
    expect(writesOf(f.emu)).toEqual([]);
    expect(names(f, 42)).toContain('Block x');
    expect(f.state.inventory().get('WafCustomRule/block-x')?.shieldZoneId).toBe(42);
  });

  it('a plan (not apply) shows the move without recording it', async () => {
    const { f } = await createdIn42();

    const { plan } = await f.run([rule(44)], 'plan', { selection: { prune: true } });

    expect(plan.changes.map((c) => [c.subject, c.action])).toEqual([
      ['WafCustomRule/block-x', 'create'],
      ['WafCustomRule/block-x@shield-zone-42', 'delete'],
    ]);
    expect([...f.state.inventory().keys()]).toEqual(['WafCustomRule/block-x']);
    expect(f.state.inventory().get('WafCustomRule/block-x')?.shieldZoneId).toBe(42);
  });
});
