/**
 * The inventory in the state file: a version-1 state file (written before the inventory
 * existed) is read and upgraded, and the inventory survives a save; the lifecycle plan step's
 * guards that need no server (unreadable state, empty desired state); the plan's rendering of
 * creates, deletes, adoptions and what is not pruned.
 */
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeRequests } from '../../../src/api/operations.js';
import { inventoryView } from '../../../src/engine/inventory.js';
import { planLifecycle } from '../../../src/engine/prune.js';
import { type ScopeLive, scopeKey } from '../../../src/engine/read.js';
import { renderPlanText } from '../../../src/engine/render.js';
import { renderPlanMarkdown } from '../../../src/engine/render-markdown.js';
import { openStateStore, STATE_VERSION } from '../../../src/engine/state.js';
import type { Plan } from '../../../src/engine/types.js';
import { fileBackend, STATE_FILE } from '../../../src/state/file-backend.js';
import { desired } from '../../helpers/desired.js';
import { tempDir } from '../../helpers/temp-dir.js';

const V1_FILE = join(import.meta.dirname, '../../fixtures/state/v1', STATE_FILE);

describe('state file versions', () => {
  it('reads a version-1 file, keeps its records, and saves it as version 2 with the inventory', async () => {
    const dir = tempDir();
    copyFileSync(V1_FILE, join(dir, STATE_FILE));

    const store = await openStateStore(fileBackend(dir));
    const before = { warning: store.warning, inventory: Object.fromEntries(store.inventory()) };
    store.setInventory('WafCustomRule/block-sqli', {
      kind: 'WafCustomRule',
      shieldZoneId: 42,
      id: 1234,
      key: 'Block SQLi',
    });
    await store.save();
    const saved = JSON.parse(readFileSync(join(dir, STATE_FILE), 'utf8'));
    const reopened = await openStateStore(fileBackend(dir));

    expect(before).toEqual({ warning: undefined, inventory: {} });
    expect(store.resource('ContainerApp/storefront')?.remember).toEqual({ nodeSelectors: { disk: 'ssd' } });
    expect(store.hint('AccessList/office-ips')).toMatchObject({ entryCount: 2 });
    expect(store.runs()).toHaveLength(1);
    expect(saved.version).toBe(STATE_VERSION);
    expect(STATE_VERSION).toBe(2);
    expect(Object.fromEntries(reopened.inventory())).toEqual({
      'WafCustomRule/block-sqli': { kind: 'WafCustomRule', shieldZoneId: 42, id: 1234, key: 'Block SQLi' },
    });
  });

  it('a file of an unknown version is set aside like a corrupt one, and nothing is pruned from it', async () => {
    const dir = tempDir();
    const v1 = JSON.parse(readFileSync(V1_FILE, 'utf8'));
    writeFileSync(join(dir, STATE_FILE), JSON.stringify({ ...v1, version: 9, inventory: {} }));

    const store = await openStateStore(fileBackend(dir));

    expect(store.warning).toMatch(/was unreadable and was moved to/);
    expect(Object.fromEntries(store.inventory())).toEqual({});
  });
});

const RULES: ScopeLive = {
  kind: 'WafCustomRule',
  shieldZoneId: 42,
  listing: {
    items: [
      { id: 1, key: 'A' },
      { id: 2, key: 'B' },
      { id: 3, key: 'C' },
      { id: 4, key: 'D' },
    ],
  },
};
const zones = new Map([[scopeKey('WafCustomRule', 42), RULES]]);
const keep = desired('WafCustomRule', 'a', {
  id: 1,
  shieldZoneId: 42,
  ruleName: 'A',
  ruleConfiguration: { actionType: 'Block', operatorType: 'RX', variableTypes: { REQUEST_URI: '' } },
});
const owned = new Map([
  ['WafCustomRule/gone', { kind: 'WafCustomRule' as const, shieldZoneId: 42, id: 4, key: 'D' }],
]);

/**
 * planLifecycle of no other changes in `zones`, with --prune, a trusted inventory of `owned`,
 * `keep` desired and a full run; `options` overrides.
 */
function lifecycle(options: Partial<Parameters<typeof planLifecycle>[2]> & { force: boolean }) {
  return planLifecycle([], zones, {
    prune: true,
    inventory: inventoryView(owned, true),
    all: [keep],
    scope: 'full',
    ...options,
  });
}

describe('prune guards that need no server', () => {
  it('an unreadable state prunes nothing through the inventory, and says why', () => {
    const out = lifecycle({ force: true, inventory: inventoryView(owned, false) });

    expect(out.changes).toEqual([]);
    expect(out.notPruned).toEqual([
      {
        kind: 'WafCustomRule',
        shieldZoneId: 42,
        id: 4,
        key: 'D',
        subject: 'WafCustomRule/gone',
        reason: 'not pruned: the state could not be read this run',
      },
    ]);
  });

  it('an empty desired state never prunes nor forgets, even an exclusive zone with --force', () => {
    const out = lifecycle({ force: true, all: [] });

    expect(out).toEqual({ changes: [], notPruned: [], gone: [], ignored: [] });
  });

  it('a file-change run prunes only the objects of its removed documents', () => {
    const out = lifecycle({ force: true, scope: new Set(['WafCustomRule/other']) });
    // The same run when `gone`'s document is among the removed ones: that one is pruned.
    const removed = lifecycle({ force: true, scope: new Set(['WafCustomRule/gone']) });

    expect(out.changes).toEqual([]);
    expect(removed.changes.map((c) => [c.subject, c.action])).toEqual([['WafCustomRule/gone', 'delete']]);
  });

  it('a trusted inventory entry whose document is gone is deleted, with the live id and key', () => {
    const out = lifecycle({ force: false });

    expect(out.changes.map((c) => [c.subject, c.action, c.requests, c.diffs])).toEqual([
      [
        'WafCustomRule/gone',
        'delete',
        [{ operation: 'deleteCustomWafRule', method: 'DELETE', path: '/shield/waf/custom-rule/4' }],
        [{ path: 'ruleName', live: 'D', desired: undefined }],
      ],
    ]);
  });
});

describe('rendering the lifecycle', () => {
  const plan = (): Plan => {
    const out = lifecycle({ force: false });
    return {
      version: 1,
      revision: 'r1',
      createdAt: new Date(0).toISOString(),
      changes: [
        {
          subject: 'WafCustomRule/new',
          kind: 'WafCustomRule',
          name: 'new',
          source: { file: 'rules.yaml', line: 3, col: 1 },
          action: 'create',
          cause: 'unknown',
          diffs: [{ path: 'ruleName', live: undefined, desired: 'New' }],
          requests: [],
          digest: 'd',
          shieldZoneId: 42,
          object: { kind: 'WafCustomRule', shieldZoneId: 42, via: 'create', key: 'New' },
        },
        {
          subject: 'WafCustomRule/b',
          kind: 'WafCustomRule',
          name: 'b',
          source: { file: 'rules.yaml', line: 9, col: 1 },
          action: 'adopt',
          cause: 'unknown',
          diffs: [{ path: 'ruleDescription', live: '', desired: 'Blocks B' }],
          requests: [
            writeRequests.updateCustomWafRule(2, { ruleName: 'B', ruleDescription: 'Blocks B' } as never),
          ],
          digest: 'd',
          shieldZoneId: 42,
          object: { kind: 'WafCustomRule', shieldZoneId: 42, via: 'adopt', id: 2, key: 'B' },
        },
        ...out.changes,
      ],
      summary: {
        resources: 3,
        toUpdate: 3,
        toCreate: 1,
        toAdopt: 1,
        toDelete: 1,
        unchanged: 0,
        skipped: 0,
        errors: 0,
        destructive: 1,
      },
      notPruned: [
        {
          kind: 'AccessList',
          shieldZoneId: 42,
          id: 9,
          key: 'Old list',
          subject: 'AccessList/old',
          reason: 'not pruned: --prune is off',
        },
      ],
    };
  };

  it('text: + create, ~ adopt #id, - delete with the live id and key, then what is not pruned', () => {
    expect(renderPlanText(plan(), { color: false })).toBe(
      [
        '+ WafCustomRule/new rules.yaml:3 (create in Shield Zone 42, cause: unknown)',
        '    ruleName: (absent) → "New"',
        '~ WafCustomRule/b rules.yaml:9 (adopt #2, cause: unknown)',
        '    ruleDescription: "" → "Blocks B"',
        '- WafCustomRule/gone (no document) (delete #4 "D" from Shield Zone 42: no document claims it, cause: desired-changed)',
        '    ruleName: "D" → (deleted)',
        '',
        'Not pruned (information, not changes):',
        '  - AccessList #9 "Old list" in Shield Zone 42 (was AccessList/old): not pruned: --prune is off',
        '',
        'Plan: 3 to change (1 to create, 1 to adopt, 1 to delete), 0 unchanged, 1 with deletions.',
        '',
      ].join('\n'),
    );
  });

  it('Markdown: the same marks and notes, the deletion first and in bold', () => {
    const md = renderPlanMarkdown(plan());
    const rows = md.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| |'));
    expect(rows).toEqual([
      '| 🗑️ | **`WafCustomRule/gone`** **`delete #4 "D" from Shield Zone 42: no document claims it`** | **`ruleName`** | **`"D"`** | **`(deleted)`** |',
      '| ➕ | `WafCustomRule/new` `create in Shield Zone 42` | `ruleName` | `(absent)` | `"New"` |',
      '| ✏️ | `WafCustomRule/b` `adopt #2` | `ruleDescription` | `""` | `"Blocks B"` |',
    ]);
    expect(md).toContain('<details><summary>Not pruned (information)</summary>');
    expect(md).toContain(
      '- `AccessList #9 "Old list" in Shield Zone 42 (was AccessList/old): not pruned: --prune is off`',
    );
  });
});
