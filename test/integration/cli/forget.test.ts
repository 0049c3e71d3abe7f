/**
 * `edgesync forget`: an object stops being managed without being deleted — after it, `apply
 * --prune` leaves the rule whose document is gone alone. Against the emulator over real HTTP.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { cli, cliAgainst } from '../../helpers/cli.js';
import { test } from '../../helpers/emulator.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';

const RULE = `apiVersion: edgesync/v1
kind: WafCustomRule
metadata: { name: block-admin }
spec:
  shieldZoneId: 42
  ruleName: Block admin
  ruleConfiguration: { actionType: Block, operatorType: BEGINSWITH, variableTypes: { REQUEST_URI: "" }, value: /admin }
`;
const DNS = `apiVersion: edgesync/v1
kind: DnsZone
metadata: { name: example-com }
spec: { id: 12345, dnssec: true }
`;

describe('edgesync forget', () => {
  test('drops a subject from the inventory: --prune then leaves its rule live', async ({ emu }) => {
    const root = tempDir();
    const config = writeTree(join(root, 'config'), { 'rule.yaml': RULE, 'dns.yaml': DNS });
    const where = ['--config', config, '--state-dir', join(root, 'state')];

    const created = await cliAgainst(emu, ['apply', ...where]);
    const id = emu.state.customRules(42).find((r) => r.ruleName === 'Block admin')?.id;
    rmSync(join(config, 'rule.yaml'));
    const forgotten = await cli(['forget', 'WafCustomRule/block-admin', ...where]);
    const again = await cli(['forget', 'WafCustomRule/block-admin', ...where]);
    emu.journal.clear();
    const pruned = await cliAgainst(emu, ['apply', '--prune', ...where]);

    expect(created.code).toBe(0);
    expect(forgotten).toEqual({
      code: 0,
      stdout: `forgotten WafCustomRule/block-admin: WafCustomRule #${id} "Block admin" in Shield Zone 42 stays live, unmanaged\n`,
      stderr: '',
    });
    expect(again).toEqual({
      code: 1,
      stdout: '',
      stderr: 'edgesync: USAGE: not in the inventory (nothing forgotten): WafCustomRule/block-admin\n',
    });
    expect(pruned.code).toBe(0);
    expect(emu.journal.writes()).toEqual([]);
    expect(emu.state.customRule(id as number)?.ruleName).toBe('Block admin');
  });
});
