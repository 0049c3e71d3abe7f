/**
 * The CLI on the Postgres store, against the emulator over real HTTP and a real PostgreSQL:
 * `apply --state-url` keeps the inventory in the database (tables made by edgesync) and
 * `--prune` deletes from it; `plan` reads beside a holder; `forget` and a second `apply` are
 * refused naming the holder; `state show` prints the inventory; `state migrate` carries all of
 * it — the whole document, the notifications' memory, the unclaimed objects and the install key —
 * from a directory to the database and back; two config directories of one name, and a named
 * `--instance`, keep separate inventories and leases in one database. The password (from a file)
 * is in no output.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { describe, expect } from 'vitest';
import { openStateStore } from '../../../src/engine/state.js';
import { fileBackend } from '../../../src/state/file-backend.js';
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

  test('state migrate carries everything, directory → database → directory: the whole document, both records and the install key', async ({
    emu,
  }) => {
    const { root, config, passwordFile } = setup();
    const url = await pgs.database();
    const dir = join(root, 'state');
    await cliAgainst(emu, ['apply', '--config', config, '--state-dir', dir]);
    // What an apply of these documents does not write: a hint, a rollout, a keyed digest (the
    // install key), the notifications' memory and the unclaimed objects.
    const source = fileBackend(dir);
    const lease = await source.acquire('test', { timeoutMs: 0 });
    const state = await openStateStore(source, { lease });
    state.setHint('AccessList/office', { checksum: 'abc' });
    state.setRollout('ContainerApp/storefront', {
      status: 'succeeded',
      health: 'active',
      at: new Date(0).toISOString(),
      revision: 'rev-1',
      digest: 'sha-1',
      objectId: 'app1',
      lastGood: {
        revision: 'rev-1',
        digest: 'sha-1',
        at: new Date(0).toISOString(),
        spec: { imageTag: '1.4.2' },
      },
    });
    const digest = state.keyedDigest('a secret');
    await state.save();
    await source.writeRecord('notify', '{"failing":{"since":"then"}}\n', lease);
    await source.writeRecord('unclaimed', '{"WafCustomRule/gone":{"since":"then"}}\n', lease);
    await lease.release();
    const pw = ['--state-password-file', passwordFile, '--instance', 'moved'];
    const back = join(root, 'back');

    const there = await cli(['state', 'migrate', '--from', dir, '--to', url, ...pw, '--config', config]);
    const refused = await cli(['state', 'migrate', '--from', dir, '--to', url, ...pw, '--config', config]);
    const returned = await cli(['state', 'migrate', '--from', url, '--to', back, ...pw, '--config', config]);
    const shows = await Promise.all(
      [
        ['--state-dir', dir],
        ['--state-url', url, ...pw],
        ['--state-dir', back],
      ].map((where) => cli(['state', 'show', '--json', '--config', config, ...where])),
    );

    const stores = [
      fileBackend(dir),
      postgresBackend({ url, password: PG_PASSWORD, instance: 'moved' }),
      fileBackend(back),
    ];
    const copies = await Promise.all(
      stores.map(async (store) => {
        const read = await openStateStore(store, { readOnly: true });
        const copy = {
          // jsonb keeps the document's data, not its key order: compared parsed.
          document: JSON.parse((await store.readDocument())?.text ?? 'null') as unknown,
          notify: await store.readRecord('notify'),
          unclaimed: await store.readRecord('unclaimed'),
          digest: read.keyedDigest('a secret'),
        };
        await store.close();
        return copy;
      }),
    );
    const shown = shows.map((run) => {
      const {
        store: _store,
        location: _location,
        ...rest
      } = JSON.parse(run.stdout) as Record<string, unknown>;
      return rest;
    });

    expect(there.code).toBe(0);
    expect(there.stdout).toContain('2 inventory entries, 2 resource records, 1 runs, the install key');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('already holds a state; --force replaces it');
    expect(returned.code).toBe(0);
    const [original] = copies;
    expect(original).toMatchObject({
      document: {
        inventory: {
          'WafCustomRule/block-a': { key: 'Block a' },
          'WafCustomRule/block-b': { key: 'Block b' },
        },
        hints: { 'AccessList/office': { checksum: 'abc' } },
        rollouts: { 'ContainerApp/storefront': { status: 'succeeded', objectId: 'app1' } },
      },
      notify: '{"failing":{"since":"then"}}\n',
      unclaimed: '{"WafCustomRule/gone":{"since":"then"}}\n',
      digest,
    });
    const document = original?.document as { resources: object; runs: unknown[] } | undefined;
    expect(Object.keys(document?.resources ?? {})).toHaveLength(2);
    expect(document?.runs).toHaveLength(1);
    expect(copies[1]).toEqual(original);
    expect(copies[2]).toEqual(original);
    expect(shown[1]).toEqual(shown[0]);
    expect(shown[2]).toEqual(shown[0]);
    expect(outputs(there, refused, returned, ...shows)).not.toContain(PG_PASSWORD);
  });

  test('two config directories of one name get instances of their own by default (name and a digest of the path); --instance names one', async ({
    emu,
  }) => {
    const url = await pgs.database();
    const [x, y] = [setup(), setup()];
    writeTree(y.config, { 'b.yaml': '' });
    const store = (c: { config: string; passwordFile: string }) => [
      '--config',
      c.config,
      '--state-url',
      url,
      '--state-password-file',
      c.passwordFile,
    ];
    const instanceOf = (config: string) =>
      `config-${createHash('sha256').update(resolve(config)).digest('hex').slice(0, 12)}`;

    const appliedX = await cliAgainst(emu, ['apply', ...store(x)]);
    const appliedY = await cliAgainst(emu, ['apply', ...store(y)]);
    const named = await cliAgainst(emu, ['apply', ...store(y), '--instance', 'named']);
    // X's lease held: X is refused, Y and the named instance are not.
    const holder = await postgresBackend({
      url,
      password: PG_PASSWORD,
      instance: instanceOf(x.config),
    }).acquire('run', { timeoutMs: 0 });
    const [refusedX, againY, againNamed] = [
      await cliAgainst(emu, ['apply', ...store(x)]),
      await cliAgainst(emu, ['apply', ...store(y)]),
      await cliAgainst(emu, ['apply', ...store(y), '--instance', 'named']),
    ];
    await holder.release();
    const shown = await Promise.all(
      [store(x), store(y), [...store(y), '--instance', 'named']].map(
        async (where) =>
          JSON.parse((await cli(['state', 'show', '--json', ...where])).stdout) as {
            location: string;
            inventory: { subject: string }[];
          },
      ),
    );
    const db = new pg.Client({ connectionString: pgs.withPassword(url) });
    await db.connect();
    const instances = (
      await db.query<{ instance: string }>('SELECT instance FROM edgesync_documents ORDER BY instance')
    ).rows.map((r) => r.instance);
    await db.end();

    expect([appliedX.code, appliedY.code, named.code]).toEqual([0, 0, 0]);
    expect(instanceOf(x.config)).not.toBe(instanceOf(y.config));
    expect(shown.map((s) => s.location)).toEqual([
      `${url} (instance ${instanceOf(x.config)})`,
      `${url} (instance ${instanceOf(y.config)})`,
      `${url} (instance named)`,
    ]);
    expect(shown.map((s) => s.inventory.map((e) => e.subject))).toEqual([
      ['WafCustomRule/block-a', 'WafCustomRule/block-b'],
      ['WafCustomRule/block-a'],
      ['WafCustomRule/block-a'],
    ]);
    expect(instances).toEqual([instanceOf(x.config), instanceOf(y.config), 'named'].sort());
    expect(refusedX.code).toBe(1);
    expect(refusedX.stderr).toContain(`instance ${instanceOf(x.config)}) is in use by pid ${process.pid}`);
    expect([againY.code, againNamed.code]).toEqual([0, 0]);
  });
});
