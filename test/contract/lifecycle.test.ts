/**
 * The lifecycle of custom WAF rules and access lists (docs/design.md, Lifecycle of Shield objects) against the emulator over
 * real HTTP: create, adopt, rename, prune with and without --prune, exclusive zones, the
 * guards, the write order per zone, the zone limits, the Basic plan's 202, duplicate keys, and
 * a create whose reply is lost. Every assertion reads the emulator's journal or its live state.
 */
import { describe, expect, it } from 'vitest';
import type { DesiredResource } from '../../src/config/types.js';
import { sha256Hex } from '../../src/domain/checksum.js';
import { memoryStateStore } from '../../src/engine/state.js';
import { desired } from '../helpers/desired.js';
import { TEST_SEED } from '../helpers/emulator.js';
import { BLOCK_ADMIN_RULE, type EngineFixture, engineFixturePerTest, writesOf } from '../helpers/engine.js';

const start = engineFixturePerTest();

function rule(name: string, ruleName: string, extra: Record<string, unknown> = {}): DesiredResource {
  return desired('WafCustomRule', name, {
    shieldZoneId: 42,
    ruleName,
    ruleConfiguration: BLOCK_ADMIN_RULE,
    ...extra,
  });
}

function list(name: string, listName: string, extra: Record<string, unknown> = {}): DesiredResource {
  return desired('AccessList', name, {
    shieldZoneId: 42,
    name: listName,
    type: 'IP',
    entries: ['192.0.2.1', '192.0.2.2'],
    ...extra,
  });
}

/** Live custom lists of a zone. */
function customLists(f: EngineFixture, zone = 42) {
  return [...(f.emu.state.shieldZone(zone)?.accessLists.values() ?? [])].filter((l) => l.kind === 'custom');
}

/** Live rule names of zone 42, in id order. */
function liveRuleNames(f: EngineFixture, zone = 42): string[] {
  return f.emu.state.customRules(zone).map((r) => r.ruleName ?? '');
}

async function applyTwiceIsQuiet(f: EngineFixture, resources: readonly DesiredResource[], prune = false) {
  f.emu.journal.clear();
  const again = await f.run(resources, 'apply', { selection: { prune } });
  expect(again.plan.changes.filter((c) => c.action !== 'noop')).toEqual([]);
  expect(again.plan.notPruned).toBeUndefined();
  expect(writesOf(f.emu)).toEqual([]);
}

describe('create', () => {
  it('a rule without id and a new ruleName is created with the whole rule; the next plan is empty', async () => {
    const f = await start();
    const doc = rule('block-admin', 'Block admin');

    const planned = await f.run([doc], 'plan');
    f.emu.journal.clear();
    const applied = await f.run([doc], 'apply');

    expect(planned.plan.changes[0]).toMatchObject({
      action: 'create',
      object: { via: 'create', key: 'Block admin' },
    });
    expect(planned.plan.summary).toMatchObject({ toUpdate: 1, toCreate: 1 });
    expect(writesOf(f.emu)).toEqual([
      {
        method: 'POST',
        path: '/shield/waf/custom-rule',
        body: {
          shieldZoneId: 42,
          ruleName: 'Block admin',
          ruleDescription: '',
          ruleConfiguration: {
            actionType: 1,
            variableTypes: { REQUEST_URI: '' },
            operatorType: 0,
            severityType: 1,
            transformationTypes: [],
            value: '/admin',
            isNegated: false,
            isRegexVariable: false,
            chainedRuleConditions: [],
          },
        },
      },
    ]);
    const created = f.emu.state.customRules(42).find((r) => r.ruleName === 'Block admin');
    expect(applied.apply?.results[0]).toMatchObject({
      outcome: 'applied',
      action: 'create',
      objectId: created?.id,
    });
    expect(f.state.inventory().get('WafCustomRule/block-admin')).toEqual({
      kind: 'WafCustomRule',
      shieldZoneId: 42,
      id: created?.id,
      key: 'Block admin',
    });
    await applyTwiceIsQuiet(f, [doc]);
  });

  it('a list is created with name, type and content, then E3 at the configuration id a fresh listing names', async () => {
    const f = await start();
    const doc = list('partners', 'Partners', { enabled: false, action: 'Challenge' });

    f.emu.journal.clear();
    const applied = await f.run([doc], 'apply');

    const created = customLists(f).find((l) => l.name === 'Partners');
    expect(applied.apply?.ok).toBe(true);
    expect(writesOf(f.emu)).toEqual([
      {
        method: 'POST',
        path: '/shield/shield-zone/42/access-lists',
        body: {
          name: 'Partners',
          type: 0,
          content: '192.0.2.1\n192.0.2.2',
          checksum: sha256Hex('192.0.2.1\n192.0.2.2'),
        },
      },
      {
        method: 'PATCH',
        path: `/shield/shield-zone/42/access-lists/configurations/${created?.configurationId}`,
        body: { isEnabled: false, action: 3 },
      },
    ]);
    expect(created?.configurationId).not.toBe(created?.listId);
    await applyTwiceIsQuiet(f, [doc]);
  });

  it('a list create without spec.type is refused at plan time, naming what is missing', async () => {
    const f = await start();
    const doc = desired('AccessList', 'untyped', {
      shieldZoneId: 42,
      name: 'Untyped',
      entries: ['192.0.2.1'],
    });

    const { plan } = await f.run([doc], 'apply');

    expect(plan.changes[0]?.action).toBe('error');
    expect(plan.changes[0]?.error?.message).toContain('creating one needs spec.type');
    expect(writesOf(f.emu)).toEqual([]);
  });
});

describe('adopt and rename', () => {
  it('a key match not in the inventory is adopted (a change), patched, and owned from then on', async () => {
    const f = await start();
    const doc = rule('third', 'Third');

    const { plan } = await f.run([doc], 'plan');
    f.emu.journal.clear();
    await f.run([doc], 'apply');

    expect(plan.changes[0]).toMatchObject({ action: 'adopt', object: { via: 'adopt', id: 1236 } });
    expect(plan.summary).toMatchObject({ toUpdate: 1, toAdopt: 1 });
    expect(writesOf(f.emu).map((w) => `${w.method} ${w.path}`)).toEqual([
      'PATCH /shield/waf/custom-rule/1236',
    ]);
    expect(f.state.inventory().get('WafCustomRule/third')).toMatchObject({ id: 1236, key: 'Third' });
    await applyTwiceIsQuiet(f, [doc]);
  });

  it('an adoption that finds the object as declared sends nothing and still joins the inventory', async () => {
    const f = await start();
    const doc = desired('AccessList', 'countries', { shieldZoneId: 42, name: 'Countries' });

    f.emu.journal.clear();
    const { plan, apply } = await f.run([doc], 'apply');

    expect(plan.changes[0]).toMatchObject({ action: 'adopt', diffs: [], requests: [] });
    expect(apply?.results[0]).toMatchObject({ outcome: 'applied', action: 'adopt' });
    expect(writesOf(f.emu)).toEqual([]);
    expect(f.state.inventory().get('AccessList/countries')).toMatchObject({ id: 9002, key: 'Countries' });
    await applyTwiceIsQuiet(f, [doc]);
  });

  it('a changed ruleName of an owned rule is a rename (PATCH of the same id), not a create and a delete', async () => {
    const f = await start();
    await f.run([rule('block-admin', 'Block admin')], 'apply');
    const id = f.state.inventory().get('WafCustomRule/block-admin')?.id;
    const renamed = rule('block-admin', 'Block the admin area');

    f.emu.journal.clear();
    const { plan } = await f.run([renamed], 'apply', { selection: { prune: true } });

    expect(plan.changes.map((c) => [c.subject, c.action])).toEqual([['WafCustomRule/block-admin', 'update']]);
    expect(writesOf(f.emu).map((w) => `${w.method} ${w.path}`)).toEqual([
      `PATCH /shield/waf/custom-rule/${id}`,
    ]);
    expect(liveRuleNames(f)).toEqual(['Block SQLi', 'Log scanners', 'Third', 'Block the admin area']);
    expect(f.state.inventory().get('WafCustomRule/block-admin')).toMatchObject({
      id,
      key: 'Block the admin area',
    });
    await applyTwiceIsQuiet(f, [renamed], true);
  });
});

describe('duplicate keys', () => {
  it('two live rules with the document key: an error for it, nothing sent', async () => {
    const f = await start();
    f.emu.state.updateCustomRule(1236, { ruleName: 'Block SQLi' });

    const { plan } = await f.run([rule('sqli', 'Block SQLi')], 'apply');

    expect(plan.changes[0]?.action).toBe('error');
    expect(plan.changes[0]?.error?.message).toBe(
      'cannot read live state: 2 live custom WAF rules in Shield Zone 42 are named "Block SQLi" (ids 1234, 1236): give the document an id, or rename or delete the others; nothing is sent',
    );
    expect(writesOf(f.emu)).toEqual([]);
  });
});

describe('prune', () => {
  async function createdThenRemoved(): Promise<{ f: EngineFixture; id: number; keep: DesiredResource }> {
    const f = await start();
    const keep = rule('third', 'Third', { ruleConfiguration: { ...BLOCK_ADMIN_RULE, value: '/third' } });
    await f.run([keep, rule('block-admin', 'Block admin')], 'apply');
    const id = f.state.inventory().get('WafCustomRule/block-admin')?.id as number;
    f.emu.journal.clear();
    return { f, id, keep };
  }

  it('without --prune a removed document is listed as not pruned: information, not a change', async () => {
    const { f, id, keep } = await createdThenRemoved();

    const { plan } = await f.run([keep], 'apply');

    expect(plan.changes.map((c) => c.action)).toEqual(['noop']);
    expect(plan.summary.toUpdate).toBe(0);
    expect(plan.notPruned).toEqual([
      {
        kind: 'WafCustomRule',
        shieldZoneId: 42,
        id,
        key: 'Block admin',
        subject: 'WafCustomRule/block-admin',
        reason: 'not pruned: --prune is off',
        withPrune: 'delete',
      },
    ]);
    expect(writesOf(f.emu)).toEqual([]);
    expect(liveRuleNames(f)).toContain('Block admin');
  });

  it('with --prune the inventory object is deleted, never-managed rules stay, and the next apply is empty', async () => {
    const { f, id, keep } = await createdThenRemoved();

    const { plan, apply } = await f.run([keep], 'apply', { selection: { prune: true } });

    expect(plan.changes.map((c) => [c.subject, c.action, c.prune])).toEqual([
      ['WafCustomRule/third', 'noop', undefined],
      ['WafCustomRule/block-admin', 'delete', 'inventory'],
    ]);
    expect(apply?.ok).toBe(true);
    expect(writesOf(f.emu).map((w) => `${w.method} ${w.path}`)).toEqual([
      `DELETE /shield/waf/custom-rule/${id}`,
    ]);
    // 1234 and 1235 were never created or adopted: untouched.
    expect(liveRuleNames(f)).toEqual(['Block SQLi', 'Log scanners', 'Third']);
    expect(f.state.inventory().get('WafCustomRule/block-admin')).toBeUndefined();
    await applyTwiceIsQuiet(f, [keep], true);
  });

  it('an inventory object renamed out of band is not deleted: its key no longer matches', async () => {
    const { f, id, keep } = await createdThenRemoved();
    f.emu.state.updateCustomRule(id, { ruleName: 'Someone else now' });

    const { plan } = await f.run([keep], 'apply', { selection: { prune: true } });

    expect(plan.changes.map((c) => c.action)).toEqual(['noop']);
    expect(plan.notPruned?.[0]?.reason).toBe(
      'not pruned: renamed since edgesync wrote it ("Block admin" then)',
    );
    expect(writesOf(f.emu)).toEqual([]);
  });

  it('a lost state directory prunes nothing through the inventory and adopts by key: no duplicates', async () => {
    const { f, keep } = await createdThenRemoved();
    const fresh = memoryStateStore();

    const { plan } = await f.run([keep, rule('block-admin', 'Block admin')], 'apply', {
      state: fresh,
      selection: { prune: true },
    });

    expect(plan.changes.map((c) => c.action)).toEqual(['adopt', 'adopt']);
    expect(writesOf(f.emu)).toEqual([]);
    expect(liveRuleNames(f)).toEqual(['Block SQLi', 'Log scanners', 'Third', 'Block admin']);
  });
});

describe('exclusive ShieldZone', () => {
  const zone = (extra: Record<string, unknown> = {}) =>
    desired('ShieldZone', 'zone-42', { shieldZoneId: 42, customWafRules: 'exclusive', ...extra });

  it('deletes unclaimed rules that no ignore glob matches, without any state; > 30 % needs --force', async () => {
    const f = await start();
    const docs = [
      zone({ ignore: ['Log *'] }),
      rule('sqli', 'Block SQLi', { ruleConfiguration: { ...BLOCK_ADMIN_RULE } }),
    ];

    const refused = await f.run(docs, 'apply', { selection: { prune: true } });
    const refusedWrites = writesOf(f.emu).filter((w) => w.method === 'DELETE');
    f.emu.journal.clear();
    const forced = await f.run(docs, 'apply', { selection: { prune: true }, write: { force: true } });

    const refusal = refused.plan.changes.find((c) => c.subject === 'WafCustomRule/#1236');
    expect(refusal?.action).toBe('error');
    expect(refusal?.error?.message).toBe(
      'the plan deletes 1 of the 3 custom WAF rules of Shield Zone 42 (33%), more than 30%; re-run with --force if this is intended',
    );
    expect(refusedWrites).toEqual([]);
    expect(forced.plan.changes.find((c) => c.subject === 'WafCustomRule/#1236')).toMatchObject({
      action: 'delete',
      prune: 'exclusive',
    });
    expect(writesOf(f.emu).map((w) => `${w.method} ${w.path}`)).toEqual([
      'DELETE /shield/waf/custom-rule/1236',
    ]);
    expect(liveRuleNames(f)).toEqual(['Block SQLi', 'Log scanners']);
    await applyTwiceIsQuiet(f, docs, true);
  });

  it('never empties a zone without --force', async () => {
    const f = await start();
    const docs = [zone(), desired('DnsZone', 'example-com', { id: 12345, dnssec: true })];

    const refused = await f.run(docs, 'apply', { selection: { prune: true } });
    const deletes = writesOf(f.emu).filter((w) => w.method === 'DELETE');
    const forced = await f.run(docs, 'apply', { selection: { prune: true }, write: { force: true } });

    expect(
      refused.plan.changes.filter((c) => c.kind === 'WafCustomRule').map((c) => c.error?.message),
    ).toEqual(
      Array(3).fill(
        'the plan deletes every one of the 3 custom WAF rules of Shield Zone 42; re-run with --force if this is intended',
      ),
    );
    expect(deletes).toEqual([]);
    expect(forced.apply?.ok).toBe(true);
    expect(liveRuleNames(f)).toEqual([]);
  });
});

describe('safety and order', () => {
  it('deletions count for --max-change-percent', async () => {
    const f = await start();
    const docs = [
      desired('ShieldZone', 'zone-42', { shieldZoneId: 42, customAccessLists: 'exclusive' }),
      desired('AccessList', 'office', { shieldZoneId: 42, name: 'Office IPs', action: 'Allow' }),
      ...Array.from({ length: 8 }, (_, i) => desired('DnsZone', `dns-${i}`, { id: 12345, dnssec: true })),
    ];
    const options = { write: { maxChangePercent: 10 } };

    // Without --prune: one adoption (a PATCH) of 10 managed resources (10 %), within the threshold.
    const quiet = await f.run(docs, 'plan', options);
    // With it, the deletion of "Countries" makes 2 of 11 (18 %): every write is refused.
    const pruning = await f.run(docs, 'plan', { ...options, selection: { prune: true } });

    expect(quiet.plan.changes.filter((c) => c.action === 'error')).toEqual([]);
    expect(quiet.plan.notPruned?.map((n) => n.id)).toEqual([9002]);
    expect(pruning.plan.changes.filter((c) => c.action === 'error').map((c) => c.subject)).toEqual([
      'AccessList/office',
      'AccessList/#9002',
    ]);
    expect(pruning.plan.changes.find((c) => c.subject === 'AccessList/#9002')?.error?.message).toBe(
      'the plan changes 2 of 11 managed resources (18%), more than --max-change-percent 10; re-run with --force if this is intended',
    );
  });

  it('writes to one zone go one at a time: updates, then creates, then deletes', async () => {
    const f = await start();
    f.state.setInventory('WafCustomRule/old', {
      kind: 'WafCustomRule',
      shieldZoneId: 42,
      id: 1235,
      key: 'Log scanners',
    });
    const docs = [
      rule('new-rule', 'New rule'),
      rule('third', 'Third'),
      list('countries', 'Countries', { type: 'Country', entries: ['KP', 'CU'] }),
    ];

    f.emu.journal.clear();
    const { apply } = await f.run(docs, 'apply', { selection: { prune: true }, write: { force: true } });

    expect(apply?.ok).toBe(true);
    expect(writesOf(f.emu).map((w) => `${w.method} ${w.path}`)).toEqual([
      'PATCH /shield/waf/custom-rule/1236',
      'PATCH /shield/shield-zone/42/access-lists/9002',
      'POST /shield/waf/custom-rule',
      'DELETE /shield/waf/custom-rule/1235',
    ]);
  });
});

describe('zone limits and the Basic plan', () => {
  it('a create past customWafRulesLimit is refused at plan time, naming the plan and the limit', async () => {
    const f = await start();
    const doc = desired('WafCustomRule', 'basic', {
      shieldZoneId: 43,
      ruleName: 'Basic',
      ruleConfiguration: BLOCK_ADMIN_RULE,
    });

    const { plan } = await f.run([doc], 'apply');

    expect(plan.changes[0]?.action).toBe('error');
    expect(plan.changes[0]?.error?.message).toBe(
      'Shield Zone 43 (Basic plan) allows 0 custom WAF rules (customWafRulesLimit) and has 0: creating 1 more would pass it',
    );
    expect(writesOf(f.emu)).toEqual([]);
  });

  it('a create the API answers 202 (Basic plan) fails with the API message and is not retried', async () => {
    const f = await start({
      ...TEST_SEED,
      shieldZones: [...(TEST_SEED.shieldZones ?? []), { id: 44, planType: 'Basic', customWafRulesLimit: 5 }],
    });
    const doc = desired('WafCustomRule', 'basic', {
      shieldZoneId: 44,
      ruleName: 'Basic',
      ruleConfiguration: BLOCK_ADMIN_RULE,
    });

    f.emu.journal.clear();
    const { apply } = await f.run([doc], 'apply');

    expect(apply?.results[0]?.outcome).toBe('failed');
    expect(apply?.results[0]?.error?.message).toContain(
      'We do not support Custom WAF Rule creation on our Free Tier of Bunny Shield, please upgrade to Advanced.',
    );
    expect(writesOf(f.emu).map((w) => w.method)).toEqual(['POST']);
    expect(f.emu.state.customRules(44)).toEqual([]);
  });

  it('a list create past customListLimit is refused at plan time with the limit', async () => {
    const f = await start({
      ...TEST_SEED,
      shieldZones: (TEST_SEED.shieldZones ?? []).map((z) => (z.id === 42 ? { ...z, customListLimit: 2 } : z)),
    });

    const { plan } = await f.run([list('partners', 'Partners')], 'apply');

    expect(plan.changes[0]?.error?.message).toBe(
      'Shield Zone 42 allows 2 custom access lists (customListLimit) and has 2: creating 1 more would pass it',
    );
    expect(writesOf(f.emu)).toEqual([]);
  });
});

describe('a create whose reply is lost', () => {
  it('is never resent blindly: the zone is re-listed and exactly one rule has the key', async () => {
    const f = await start();
    f.emu.faults.script({ operation: 'createCustomWafRule', reply: 'drop-after' });
    const doc = rule('block-admin', 'Block admin');

    f.emu.journal.clear();
    const { apply } = await f.run([doc], 'apply');

    expect(apply?.results[0]).toMatchObject({ outcome: 'applied', action: 'create' });
    expect(writesOf(f.emu).map((w) => `${w.method} ${w.path}`)).toEqual(['POST /shield/waf/custom-rule']);
    expect(liveRuleNames(f).filter((n) => n === 'Block admin')).toHaveLength(1);
    const id = f.emu.state.customRules(42).find((r) => r.ruleName === 'Block admin')?.id;
    expect(f.state.inventory().get('WafCustomRule/block-admin')?.id).toBe(id);
    await applyTwiceIsQuiet(f, [doc]);
  });

  it('holds for lists too, with E3 sent after the re-listing', async () => {
    const f = await start();
    f.emu.faults.script({ operation: 'createCustomAccessList', reply: 'drop-after' });
    const doc = list('partners', 'Partners', { enabled: false });

    f.emu.journal.clear();
    const { apply } = await f.run([doc], 'apply');

    expect(apply?.ok).toBe(true);
    expect(writesOf(f.emu).map((w) => w.method)).toEqual(['POST', 'PATCH']);
    expect(customLists(f).filter((l) => l.name === 'Partners')).toHaveLength(1);
    await applyTwiceIsQuiet(f, [doc]);
  });

  it('a list create refused with a 500, re-listed and sent again, still gets its E3', async () => {
    const f = await start();
    f.emu.faults.script({ operation: 'createCustomAccessList', reply: { status: 500 } });
    const doc = list('partners', 'Partners', { enabled: false, action: 'Challenge' });

    f.emu.journal.clear();
    const { apply } = await f.run([doc], 'apply');

    const created = customLists(f).filter((l) => l.name === 'Partners');
    expect(apply?.ok).toBe(true);
    expect(writesOf(f.emu).map((w) => `${w.method} ${w.path}`)).toEqual([
      'POST /shield/shield-zone/42/access-lists',
      'POST /shield/shield-zone/42/access-lists',
      `PATCH /shield/shield-zone/42/access-lists/configurations/${created[0]?.configurationId}`,
    ]);
    expect(created.map((l) => [l.isEnabled, l.action])).toEqual([[false, 3]]);
    await applyTwiceIsQuiet(f, [doc]);
  });
});
