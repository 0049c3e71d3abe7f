/**
 * The CLI on the Postgres store, against the emulator over real HTTP and a real PostgreSQL:
 * `apply --state-url` keeps the inventory in the database (tables made by edgesync) and
 * `--prune` deletes from it; `plan` reads beside a holder; `forget` and a second `apply` are
 * refused naming the holder; `state show` prints the inventory; `state migrate` carries every
 * entry from a directory to the database and back. The password (from a file) is in no output.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { postgresBackend } from '../../../src/state/postgres-backend.js';
import { cli, cliAgainst } from '../../helpers/cli.js';
import { test } from '../../helpers/emulator.js';
import { PG_PASSWORD, usePostgres } from '../../helpers/postgres.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';

const pgs = usePostgres();

const rule = (name: string, title: string) => `apiVersion: edgesync/v1
kind: WafCustomRule
metadata: { name: ${name} }
spec:
  shieldZoneId: 42
  ruleName: ${title}
  ruleConfiguration: { actionType: Block, operatorType: BEGINSWITH, variableTypes: { REQUEST_URI: "" }, value: /${name} }
`;

function setup(): { root: string; config: string; passwordFile: string } {
  const root = tempDir();
  const config = writeTree(join(root, 'config'), {
    'a.yaml': rule('block-a', 'Block a'),
    'b.yaml': rule('block-b', 'Block b'),
  });
  const passwordFile = join(root, 'pg-password');
  writeFileSync(passwordFile, `${PG_PASSWORD}\n`);
  return { root, config, passwordFile };
}

function outputs(...runs: { stdout: string; stderr: string }[]): string {
  return runs.map((r) => r.stdout + r.stderr).join('\n');
}

describe('the postgres store from the CLI', () => {
  test('apply keeps the inventory in the database; plan reads beside a holder; forget and apply are refused naming it; state show lists it', async ({
    emu,
  }) => {
    const { config, passwordFile } = setup();
    const url = await pgs.database();
    const where = [
      '--config',
      config,
      '--state-url',
      url,
      '--state-password-file',
      passwordFile,
      '--instance',
      'prod',
    ];

    const applied = await cliAgainst(emu, ['apply', ...where]);
    const shown = await cli(['state', 'show', '--json', ...where]);
    const holder = await postgresBackend({ url, password: PG_PASSWORD, instance: 'prod' }).acquire('run', {
      timeoutMs: 0,
    });
    const plan = await cliAgainst(emu, ['plan', ...where]);
    const forget = await cli(['forget', 'WafCustomRule/block-a', ...where]);
    const second = await cliAgainst(emu, ['apply', ...where]);
    const table = await cli(['state', 'show', ...where]);
    await holder.release();

    expect(applied.code).toBe(0);
    const body = JSON.parse(shown.stdout) as { store: string; inventory: { subject: string; key: string }[] };
    expect(body.store).toBe('postgres');
    expect(body.inventory.map((e) => [e.subject, e.key])).toEqual([
      ['WafCustomRule/block-a', 'Block a'],
      ['WafCustomRule/block-b', 'Block b'],
    ]);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('No changes');
    for (const refused of [forget, second]) {
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`is in use by pid ${process.pid} on host `);
      expect(refused.stderr).toContain('(edgesync run, since ');
    }
    expect(table.stdout).toContain(`Lease: pid ${process.pid} on host `);
    expect(table.stdout).toMatch(/WafCustomRule\/block-a\s+WafCustomRule\s+42\s+\d+\s+Block a/);
    expect(outputs(applied, shown, plan, forget, second, table)).not.toContain(PG_PASSWORD);
  });

  test('apply --prune deletes what the database inventory owns once its document is gone, and nothing else', async ({
    emu,
  }) => {
    const { config, passwordFile } = setup();
    const url = await pgs.database();
    const where = ['--config', config, '--state-url', url, '--state-password-file', passwordFile];
    await cliAgainst(emu, ['apply', ...where]);
    const id = emu.state.customRules(42).find((r) => r.ruleName === 'Block b')?.id;
    writeTree(config, { 'b.yaml': '' });
    emu.journal.clear();

    const pruned = await cliAgainst(emu, ['apply', '--prune', '--force', ...where]);

    expect(pruned.code).toBe(0);
    expect(emu.journal.writes().map((w) => [w.method, w.path])).toEqual([
      ['DELETE', `/shield/waf/custom-rule/${id}`],
    ]);
    expect(emu.state.customRule(1235)?.ruleName).toBe('Log scanners');
  });

  test('state migrate carries every entry from a directory to the database and back', async ({ emu }) => {
    const { root, config, passwordFile } = setup();
    const url = await pgs.database();
    const dir = join(root, 'state');
    await cliAgainst(emu, ['apply', '--config', config, '--state-dir', dir]);
    const before = await cli(['state', 'show', '--json', '--config', config, '--state-dir', dir]);
    const pw = ['--state-password-file', passwordFile, '--instance', 'moved'];

    const there = await cli(['state', 'migrate', '--from', dir, '--to', url, ...pw, '--config', config]);
    const refused = await cli(['state', 'migrate', '--from', dir, '--to', url, ...pw, '--config', config]);
    const back = await cli([
      'state',
      'migrate',
      '--from',
      url,
      '--to',
      join(root, 'back'),
      ...pw,
      '--config',
      config,
    ]);
    const inDb = await cli(['state', 'show', '--json', '--config', config, '--state-url', url, ...pw]);
    const after = await cli([
      'state',
      'show',
      '--json',
      '--config',
      config,
      '--state-dir',
      join(root, 'back'),
    ]);

    const inventory = (run: { stdout: string }) =>
      (JSON.parse(run.stdout) as { inventory: unknown[] }).inventory;
    expect(there.code).toBe(0);
    expect(there.stdout).toContain('2 inventory entries');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('already holds a state; --force replaces it');
    expect(back.code).toBe(0);
    expect(inventory(inDb)).toEqual(inventory(before));
    expect(inventory(after)).toEqual(inventory(before));
    expect(inventory(before)).toHaveLength(2);
    expect(outputs(there, refused, back, inDb, after)).not.toContain(PG_PASSWORD);
  });
});
