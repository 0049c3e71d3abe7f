/**
 * The daemon and the lifecycle (docs/design.md, Lifecycle of Shield objects): a document added while it runs creates its rule
 * (audited as `change.applied` with `action: create`, counted by action in /metrics); with
 * `--prune`, removing the document deletes the rule in the file-change run; without it the
 * rule stays.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { edit, request, until, useDaemonFixture, writeDaemonConfig } from '../helpers/daemon.js';

const fx = useDaemonFixture();

const NEW_RULE = `apiVersion: edgesync/v1
kind: WafCustomRule
metadata:
  name: block-admin
spec:
  shieldZoneId: 42
  ruleName: Block admin
  ruleConfiguration:
    actionType: Block
    operatorType: BEGINSWITH
    variableTypes: { REQUEST_URI: "" }
    value: /admin
`;

function adminRules(): number[] {
  return fx.emu.state
    .customRules(42)
    .filter((r) => r.ruleName === 'Block admin')
    .map((r) => r.id);
}

describe('create and prune in the daemon', () => {
  it('with --prune, an added document creates its rule and removing it deletes the rule', async () => {
    const config = writeDaemonConfig(join(fx.root, 'config'));
    const d = await fx.start(config, { extra: ['--prune'] });

    edit(config, 'shield/admin.yaml', NEW_RULE);
    const created = await d.waitForEvent(
      'change.applied',
      (line) => line.subject === 'WafCustomRule/block-admin',
    );
    const [id] = adminRules();
    rmSync(join(config, 'shield/admin.yaml'));
    const deleted = await d.waitForEvent(
      'change.applied',
      (line) => line.subject === 'WafCustomRule/block-admin' && line.action === 'delete',
    );
    // The audit line is written as the change finishes; the counters when its run does.
    const deleteSample = 'edgesync_changes_total{kind="WafCustomRule",outcome="applied",action="delete"} 1';
    const metrics = await until(async () => {
      const reply = await request(`${d.url}/metrics`);
      return reply.text.includes(deleteSample) && reply;
    }, 'the delete counted');

    expect(created).toMatchObject({ action: 'create', object: { shieldZoneId: 42, id, key: 'Block admin' } });
    expect(deleted).toMatchObject({ action: 'delete', object: { shieldZoneId: 42, id, key: 'Block admin' } });
    await until(() => adminRules().length === 0, 'the rule deleted');
    expect(metrics.text).toContain(
      'edgesync_changes_total{kind="WafCustomRule",outcome="applied",action="create"} 1',
    );
    expect(metrics.text).toContain(
      'edgesync_changes_total{kind="WafCustomRule",outcome="applied",action="delete"} 1',
    );
    // The seeded rules were never created or adopted: untouched.
    expect(fx.emu.state.customRules(42).map((r) => r.id)).toEqual([1234, 1235, 1236]);
  });

  it('without --prune, removing the document leaves the rule live', async () => {
    const config = writeDaemonConfig(join(fx.root, 'config'));
    const d = await fx.start(config);

    edit(config, 'shield/admin.yaml', NEW_RULE);
    await d.waitForEvent('change.applied', (line) => line.subject === 'WafCustomRule/block-admin');
    rmSync(join(config, 'shield/admin.yaml'));
    await d.waitForEvent('trigger.received', (line) => line.reason === 'file-change', 2);
    // Time for the file-change run (debounce 100 ms) to do anything it would.
    await new Promise((resolve) => setTimeout(resolve, 1500));

    expect(adminRules()).toHaveLength(1);
    expect(fx.emu.journal.writes().filter((w) => w.method === 'DELETE')).toEqual([]);
  });
});
