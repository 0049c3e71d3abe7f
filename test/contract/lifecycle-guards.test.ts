/**
 * The lifecycle's second round of guards, against the emulator over real HTTP (every
 * assertion reads its journal or live state): the prune guards count what edgesync manages,
 * a create whose reply was lost is not sent again when the listing lags, `ignore` globs are
 * literal but for `*` and `?`, and a rename onto a name another live object has is refused.
 */
import { describe, expect, it } from 'vitest';
import type { DesiredResource } from '../../src/config/types.js';
import { renderPlanText } from '../../src/engine/render.js';
import { desired } from '../helpers/desired.js';
import { call } from '../helpers/emulator.js';
import { BLOCK_ADMIN_RULE, type EngineFixture, engineFixturePerTest, writesOf } from '../helpers/engine.js';

const start = engineFixturePerTest();

function rule(name: string, ruleName: string, zone = 42): DesiredResource {
  return desired('WafCustomRule', name, {
    shieldZoneId: zone,
    ruleName,
    ruleConfiguration: BLOCK_ADMIN_RULE,
  });
}

function list(name: string, listName: string, zone = 42): DesiredResource {
  return desired('AccessList', name, {
    shieldZoneId: zone,
    name: listName,
    type: 'IP',
    entries: ['192.0.2.1'],
  });
}

/** `count` rules edgesync never owned, ids from `firstId`. */
function unmanagedRules(count: number, firstId: number) {
  return Array.from({ length: count }, (_, i) => ({
    id: firstId + i,
    ruleName: `Hand-made ${i + 1}`,
    ruleConfiguration: { actionType: 'Block', operatorType: 'BEGINSWITH', value: `/hand-${i}` },
  }));
}

function liveRuleNames(f: EngineFixture, zone = 42): string[] {
  return f.emu.state.customRules(zone).map((r) => r.ruleName ?? '');
}

const deletesOf = (f: EngineFixture) => writesOf(f.emu).filter((w) => w.method === 'DELETE');

describe('the prune guards count what edgesync manages', () => {
  it('a checkout that shrinks to one document cannot delete the 5 managed rules of a zone that holds 20 more: --force is needed', async () => {
    const f = await start({
      shieldZones: [
        { id: 42, planType: 'Advanced', customWafRulesLimit: 100, customRules: unmanagedRules(20, 500) },
      ],
    });
    const five = [1, 2, 3, 4, 5].map((n) => rule(`r${n}`, `Managed ${n}`));
    const other = list('partners', 'Partners');
    await f.run([...five, other], 'apply');
    expect([...f.state.inventory().keys()]).toHaveLength(6);

    f.emu.journal.clear();
    const broken = await f.run([other], 'apply', { selection: { prune: true } });

    // 5 of 25 live rules is 20 %: only the share of what edgesync manages (5 of 5) shows it.
    const refused = broken.plan.changes.filter((c) => c.kind === 'WafCustomRule');
    expect(refused).toHaveLength(5);
    expect(refused.map((c) => c.error)).toEqual(
      refused.map(() => ({
        code: 'PLAN_UNSAFE',
        message:
          'the plan deletes 5 of the 5 custom WAF rules edgesync manages in Shield Zone 42 (100%), more than 30%; re-run with --force if this is intended',
      })),
    );
    expect(deletesOf(f)).toEqual([]);
    expect(liveRuleNames(f).filter((n) => n.startsWith('Managed'))).toHaveLength(5);

    const forced = await f.run([other], 'apply', { selection: { prune: true }, write: { force: true } });
    expect(forced.apply?.ok).toBe(true);
    expect(deletesOf(f)).toHaveLength(5);
    expect(liveRuleNames(f)).toHaveLength(20);
  });

  it('one managed rule of 3 is 33 %: refused; the zone guard counts no unmanaged rule', async () => {
    const f = await start({
      shieldZones: [
        { id: 42, planType: 'Advanced', customWafRulesLimit: 100, customRules: unmanagedRules(20, 500) },
      ],
    });
    const three = [rule('a', 'A'), rule('b', 'B'), rule('c', 'C')];
    await f.run(three, 'apply');

    f.emu.journal.clear();
    const out = await f.run(three.slice(0, 2), 'apply', { selection: { prune: true } });

    expect(out.plan.changes.find((c) => c.action === 'error')?.error?.message).toBe(
      'the plan deletes 1 of the 3 custom WAF rules edgesync manages in Shield Zone 42 (33%), more than 30%; re-run with --force if this is intended',
    );
    expect(deletesOf(f)).toEqual([]);
  });

  it('access lists too: one managed list of 3 is 33 %, refused however many lists the zone holds that edgesync never owned', async () => {
    const f = await start({
      shieldZones: [
        {
          id: 42,
          planType: 'Advanced',
          customListLimit: 100,
          customWafRulesLimit: 100,
          customAccessLists: Array.from({ length: 20 }, (_, i) => ({
            id: 800 + i,
            name: `Hand-made list ${i + 1}`,
            type: 'IP',
            entries: [`198.51.100.${i + 1}`],
          })),
        },
      ],
    });
    const lists = [list('a', 'List A'), list('b', 'List B'), list('c', 'List C')];
    // Seven managed rules beside them: 1 of the 10 objects edgesync manages passes the
    // all-zones guard, so only the zone's guard on lists can refuse.
    const rules = [1, 2, 3, 4, 5, 6, 7].map((n) => rule(`r${n}`, `Managed ${n}`));
    await f.run([...lists, ...rules], 'apply');
    expect([...f.state.inventory().keys()]).toHaveLength(10);

    f.emu.journal.clear();
    const out = await f.run([...lists.slice(0, 2), ...rules], 'apply', { selection: { prune: true } });

    expect(out.plan.changes.filter((c) => c.action === 'error').map((c) => [c.kind, c.error])).toEqual([
      [
        'AccessList',
        {
          code: 'PLAN_UNSAFE',
          message:
            'the plan deletes 1 of the 3 custom access lists edgesync manages in Shield Zone 42 (33%), more than 30%; re-run with --force if this is intended',
        },
      ],
    ]);
    expect(deletesOf(f)).toEqual([]);
    const c = f.state.inventory().get('AccessList/c');
    expect(c === undefined ? undefined : f.emu.state.accessList(42, Number(c.id))?.name).toBe('List C');
  });

  it('the whole inventory: 1 of 2 managed rules in each of 4 zones (none guarded alone) is 4 of 8, refused', async () => {
    const zones = [42, 43, 44, 45];
    const f = await start({
      shieldZones: zones.map((id, i) => ({
        id,
        planType: 'Advanced',
        customWafRulesLimit: 100,
        customRules: unmanagedRules(10, 500 + 100 * i),
      })),
    });
    const docs = zones.flatMap((z) => [rule(`keep-${z}`, 'Keep', z), rule(`drop-${z}`, 'Drop', z)]);
    await f.run(docs, 'apply');

    f.emu.journal.clear();
    const kept = docs.filter((d) => d.name.startsWith('keep'));
    const out = await f.run(kept, 'apply', { selection: { prune: true } });

    const refused = out.plan.changes.filter((c) => c.action === 'error');
    expect(refused.map((c) => c.error?.message)).toEqual(
      zones.map(
        () =>
          'the plan deletes 4 of the 8 objects edgesync manages in all zones (50%), more than 30%; re-run with --force if this is intended',
      ),
    );
    expect(deletesOf(f)).toEqual([]);

    // Three of the four documents back: 1 of 8 is below the share, and is deleted.
    const one = await f.run(
      [...kept, ...docs.filter((d) => d.name !== 'drop-42' && d.name.startsWith('drop'))],
      'apply',
      { selection: { prune: true } },
    );
    expect(one.apply?.ok).toBe(true);
    expect(deletesOf(f).map((w) => w.path)).toHaveLength(1);
  });

  it('without --prune the plan still says what --prune would refuse', async () => {
    const f = await start({
      shieldZones: [
        { id: 42, planType: 'Advanced', customWafRulesLimit: 100, customRules: unmanagedRules(20, 500) },
      ],
    });
    const five = [1, 2, 3, 4, 5].map((n) => rule(`r${n}`, `Managed ${n}`));
    await f.run([...five, list('partners', 'Partners')], 'apply');

    const out = await f.run([list('partners', 'Partners')], 'plan');

    expect(out.plan.summary.withPrune).toBe(5);
    expect(out.plan.notPruned?.map((n) => n.withPrune)).toEqual([
      'refused',
      'refused',
      'refused',
      'refused',
      'refused',
    ]);
    expect(renderPlanText(out.plan, { color: false })).toContain('  - WafCustomRule #');
    expect(renderPlanText(out.plan, { color: false })).toContain(
      '(was WafCustomRule/r1): refused, the plan deletes 5 of the 5 custom WAF rules edgesync manages in Shield Zone 42 (100%), more than 30%; re-run with --force if this is intended\n',
    );
  });
});

/** The zone's listing as the API answers it now: replayed later, it is a listing that lags. */
async function listingNow(f: EngineFixture, path: string): Promise<unknown> {
  const reply = await call(f.emu, 'GET', path);
  expect(reply.status).toBe(200);
  return reply.json;
}

describe('a create whose reply was lost, then a listing that lags', () => {
  it('a rule: one POST, outcome unknown (API_AMBIGUOUS); the next run adopts it by name: one rule', async () => {
    const f = await start();
    const stale = await listingNow(f, '/shield/waf/custom-rules/42?page=1&perPage=1000');
    const doc = rule('new-one', 'New one');
    // Read once before the create (fresh), then the re-listing after the lost reply is stale.
    f.emu.faults.script({ operation: 'createCustomWafRule', reply: 'drop-after' });
    f.emu.faults.script({ operation: 'listCustomWafRules', reply: { delayMs: 0 } });
    f.emu.faults.script({ operation: 'listCustomWafRules', reply: { status: 200, body: stale } });

    f.emu.journal.clear();
    const first = await f.run([doc], 'apply');

    expect(writesOf(f.emu).map((w) => `${w.method} ${w.path}`)).toEqual(['POST /shield/waf/custom-rule']);
    expect(first.apply?.results[0]).toMatchObject({
      outcome: 'failed',
      action: 'create',
      error: {
        code: 'API_AMBIGUOUS',
        message:
          'outcome unknown: the create of "New one" was sent and its reply was lost, and Shield Zone 42\'s listing does not show it yet (a listing may lag); it is not sent again in this run: the next run lists the zone again and adopts it by name, or creates it',
      },
    });
    expect(liveRuleNames(f).filter((n) => n === 'New one')).toHaveLength(1);
    expect(f.state.inventory().get('WafCustomRule/new-one')).toBeUndefined();

    f.emu.journal.clear();
    const next = await f.run([doc], 'apply');
    const id = f.emu.state.customRules(42).find((r) => r.ruleName === 'New one')?.id;
    expect(next.plan.changes[0]).toMatchObject({ action: 'adopt', object: { id } });
    expect(writesOf(f.emu)).toEqual([]);
    expect(liveRuleNames(f).filter((n) => n === 'New one')).toHaveLength(1);
    expect(f.state.inventory().get('WafCustomRule/new-one')?.id).toBe(id);
  });

  it('a list: one POST, outcome unknown; the next run adopts it and sends its settings once', async () => {
    const f = await start();
    const stale = await listingNow(f, '/shield/shield-zone/42/access-lists');
    const doc = desired('AccessList', 'partners', {
      shieldZoneId: 42,
      name: 'Partners',
      type: 'IP',
      entries: ['192.0.2.1'],
      enabled: false,
    });
    f.emu.faults.script({ operation: 'createCustomAccessList', reply: 'drop-after' });
    // The first read of the zone is fresh; the re-listing after the lost reply is stale.
    f.emu.faults.script({ operation: 'listAccessLists', reply: { delayMs: 0 } });
    f.emu.faults.script({ operation: 'listAccessLists', reply: { status: 200, body: stale } });
    f.emu.journal.clear();
    const first = await f.run([doc], 'apply');

    expect(writesOf(f.emu).map((w) => `${w.method} ${w.path}`)).toEqual([
      'POST /shield/shield-zone/42/access-lists',
    ]);
    expect(first.apply?.results[0]).toMatchObject({ outcome: 'failed', error: { code: 'API_AMBIGUOUS' } });
    const named = () =>
      [...(f.emu.state.shieldZone(42)?.accessLists.values() ?? [])].filter((l) => l.name === 'Partners');
    expect(named()).toHaveLength(1);

    f.emu.journal.clear();
    const next = await f.run([doc], 'apply');
    expect(next.plan.changes[0]).toMatchObject({ action: 'adopt', object: { id: named()[0]?.listId } });
    expect(writesOf(f.emu).map((w) => `${w.method} ${w.path}`)).toEqual([
      `PATCH /shield/shield-zone/42/access-lists/configurations/${named()[0]?.configurationId}`,
    ]);
    expect(named()).toHaveLength(1);
  });
});

describe('ignore globs', () => {
  const zone = (ignore: string[]) =>
    desired('ShieldZone', 'main', { shieldZoneId: 42, customWafRules: 'exclusive', ignore });

  it('are literal but for * and ?: "Legacy (old)*" keeps "Legacy (old) rule"; the plan says which glob keeps what', async () => {
    const f = await start({
      shieldZones: [
        {
          id: 42,
          planType: 'Advanced',
          customRules: [
            ...unmanagedRules(2, 500),
            { id: 600, ruleName: 'Legacy (old) rule', ruleConfiguration: BLOCK_ADMIN_RULE },
            { id: 601, ruleName: 'Team [EU] 1', ruleConfiguration: BLOCK_ADMIN_RULE },
            { id: 602, ruleName: 'Team E', ruleConfiguration: BLOCK_ADMIN_RULE },
          ],
        },
      ],
    });
    const docs = [zone(['Legacy (old)*', 'Team [EU] ?']), rule('keep', 'Hand-made 1')];

    f.emu.journal.clear();
    const out = await f.run(docs, 'apply', { selection: { prune: true }, write: { force: true } });

    expect(out.plan.ignored).toEqual([
      {
        kind: 'WafCustomRule',
        shieldZoneId: 42,
        id: 600,
        key: 'Legacy (old) rule',
        glob: 'Legacy (old)*',
        shieldZone: 'ShieldZone/main',
      },
      {
        kind: 'WafCustomRule',
        shieldZoneId: 42,
        id: 601,
        key: 'Team [EU] 1',
        glob: 'Team [EU] ?',
        shieldZone: 'ShieldZone/main',
      },
    ]);
    expect(deletesOf(f).map((w) => w.path)).toEqual([
      '/shield/waf/custom-rule/501',
      '/shield/waf/custom-rule/602',
    ]);
    expect(liveRuleNames(f)).toEqual(['Hand-made 1', 'Legacy (old) rule', 'Team [EU] 1']);
    expect(renderPlanText(out.plan, { color: false })).toContain(
      [
        'Kept by ignore globs (information):',
        '  - WafCustomRule #600 "Legacy (old) rule" in Shield Zone 42: ignore "Legacy (old)*" of ShieldZone/main',
        '  - WafCustomRule #601 "Team [EU] 1" in Shield Zone 42: ignore "Team [EU] ?" of ShieldZone/main',
      ].join('\n'),
    );
  });

  it('keep unclaimed objects only: a managed rule whose document is removed is pruned even when a glob matches it', async () => {
    const f = await start({ shieldZones: [{ id: 42, planType: 'Advanced', customWafRulesLimit: 100 }] });
    const legacy = rule('legacy', 'Legacy managed');
    await f.run([zone(['Legacy *']), legacy, rule('keep', 'Kept')], 'apply');
    const id = f.state.inventory().get('WafCustomRule/legacy')?.id;

    f.emu.journal.clear();
    const out = await f.run([zone(['Legacy *']), rule('keep', 'Kept')], 'apply', {
      selection: { prune: true },
      write: { force: true },
    });

    expect(out.plan.ignored ?? []).toEqual([]);
    expect(deletesOf(f).map((w) => w.path)).toEqual([`/shield/waf/custom-rule/${id}`]);
    expect(liveRuleNames(f)).toEqual(['Kept']);
  });
});

describe('a rename onto a name another live object has', () => {
  it('is refused at plan time, naming both objects; nothing is sent', async () => {
    const f = await start();
    await f.run([rule('mine', 'Mine')], 'apply');
    const id = f.state.inventory().get('WafCustomRule/mine')?.id;

    f.emu.journal.clear();
    const out = await f.run([rule('mine', 'Log scanners')], 'apply');

    expect(out.plan.changes[0]?.error).toEqual({
      code: 'PLAN_UNSAFE',
      message: `renaming custom WAF rule #${id} from "Mine" to "Log scanners" would give Shield Zone 42 two custom WAF rules with that name: #1235 already has it; rename or delete that one first, or choose another name; nothing is sent`,
    });
    expect(writesOf(f.emu)).toEqual([]);
    expect(liveRuleNames(f).filter((n) => n === 'Log scanners')).toHaveLength(1);
  });

  it('holds for a list pinned by id too', async () => {
    const f = await start();
    const doc = desired('AccessList', 'office', { shieldZoneId: 42, id: 9001, name: 'Countries' });

    f.emu.journal.clear();
    const out = await f.run([doc], 'apply');

    expect(out.plan.changes[0]?.error?.message).toBe(
      'renaming custom access list #9001 from "Office IPs" to "Countries" would give Shield Zone 42 two custom access lists with that name: #9002 already has it; rename or delete that one first, or choose another name; nothing is sent',
    );
    expect(writesOf(f.emu)).toEqual([]);
  });
});
