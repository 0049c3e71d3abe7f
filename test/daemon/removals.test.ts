/**
 * Removed documents and the daemon, with the built `edgesync run` (child process, real
 * emulator, its journal): with `--prune` and the default `--settle-ms`, a file absent for 1.5 s
 * and a writer that pauses 1.5 s mid-file delete nothing, and a real removal is applied only
 * once the files have been still for 5 s; with `--prune` off, a removed document's object is
 * logged once (`prune.skipped`), listed in `/status` and counted by a gauge — once across
 * restarts too (the state store's `unclaimed` record).
 */
import { appendFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { daemonArgs, until } from '../helpers/daemon.js';
import { TEST_KEY, TEST_SEED } from '../helpers/emulator.js';
import { spawnRun, useSpawnedDaemons } from '../helpers/spawn-daemon.js';
import { tempDir, writeTree } from '../helpers/temp-dir.js';

useSpawnedDaemons();

let emu: Emulator;
let root: string;
beforeEach(async () => {
  emu = await startEmulator({ accessKey: TEST_KEY, seed: TEST_SEED });
  root = tempDir();
});
afterEach(async () => {
  await emu.close();
});

const ENV = { EDGESYNC_ACCESS_KEY: TEST_KEY };

function rule(name: string, ruleName: string): string {
  return `apiVersion: edgesync/v1
kind: WafCustomRule
metadata: { name: ${name} }
spec:
  shieldZoneId: 42
  ruleName: ${ruleName}
  ruleConfiguration: { actionType: Block, operatorType: BEGINSWITH, variableTypes: { REQUEST_URI: "" }, value: /${name} }
`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const deletes = () => emu.journal.writes().filter((w) => w.method === 'DELETE');
const ruleId = (ruleName: string) => emu.state.customRules(42).find((r) => r.ruleName === ruleName)?.id;

describe('with --prune and the default --settle-ms', () => {
  it('a file absent for 1.5 s and a writer pausing 1.5 s delete nothing; a real removal waits 5 s of quiet', async () => {
    const config = writeTree(join(root, 'config'), {
      'a.yaml': rule('a', 'Rule A'),
      'b.yaml': rule('b', 'Rule B'),
      'pair.yaml': `${rule('c', 'Rule C')}---\n${rule('d', 'Rule D')}`,
    });
    const args = daemonArgs({
      config,
      stateDir: join(root, 'state'),
      baseUrl: emu.url,
      settleMs: 'default',
      extra: ['--prune'],
    });
    const d = spawnRun(args, ENV);
    await until(() => d.events('reconcile.finished')[0], 'the start-up run', 20_000);
    const ids = { b: ruleId('Rule B'), d: ruleId('Rule D') };
    expect(ids.b).toBeDefined();
    emu.journal.clear();

    // A tool replaces b.yaml: gone for 1.5 s, then back as it was.
    await rm(join(config, 'b.yaml'));
    await sleep(1500);
    await writeFile(join(config, 'b.yaml'), rule('b', 'Rule B'));
    // A writer stops after the first document of pair.yaml for 1.5 s.
    await writeFile(join(config, 'pair.yaml'), rule('c', 'Rule C'));
    await sleep(1500);
    await appendFile(join(config, 'pair.yaml'), `---\n${rule('d', 'Rule D')}`);
    // Past the 5 s hold since the last write: every settle run has run.
    await sleep(7000);

    expect(d.events('reconcile.deferred').length).toBeGreaterThan(0);
    expect(deletes()).toEqual([]);
    expect(emu.journal.writes()).toEqual([]);
    expect([ruleId('Rule B'), ruleId('Rule D')]).toEqual([ids.b, ids.d]);

    // A real removal is applied, once the files have been still for 5 s.
    const removed = Date.now();
    await rm(join(config, 'b.yaml'));
    const started = await until(
      () =>
        d
          .events('change.started')
          .find((line) => line.subject === 'WafCustomRule/b' && line.method === 'DELETE'),
      'the deletion sent',
      20_000,
    );
    expect(Date.parse(started.time as string) - removed).toBeGreaterThanOrEqual(5000);
    await until(() => deletes().length === 1 && deletes(), 'the DELETE', 5000);
    expect(deletes().map((w) => w.path)).toEqual([`/shield/waf/custom-rule/${ids.b}`]);
    expect(ruleId('Rule B')).toBeUndefined();
  }, 60_000);
});

describe('with --prune off', () => {
  it('a removed document’s rule is logged once as prune.skipped, listed in /status unclaimed and counted', async () => {
    const config = writeTree(join(root, 'config'), {
      'a.yaml': rule('a', 'Rule A'),
      'b.yaml': rule('b', 'Rule B'),
    });
    const args = daemonArgs({ config, stateDir: join(root, 'state'), baseUrl: emu.url });
    const d = spawnRun(args, ENV);
    const started = await until(() => d.events('daemon.started')[0], 'daemon.started', 20_000);
    const url = String(started.listen);
    await until(() => d.events('reconcile.finished')[0], 'the start-up run', 20_000);
    const id = ruleId('Rule B');
    emu.journal.clear();

    await rm(join(config, 'b.yaml'));
    const skipped = await until(() => d.events('prune.skipped')[0], 'prune.skipped', 20_000);
    // Another edit, then a second look: the same object is not logged again.
    await writeFile(join(config, 'a.yaml'), rule('a', 'Rule A2'));
    await until(
      () => d.events('change.applied').find((line) => line.subject === 'WafCustomRule/a'),
      'the edit applied',
      20_000,
    );
    const status = (await (await fetch(`${url}/status`)).json()) as { unclaimed: unknown[] };
    const metrics = await (await fetch(`${url}/metrics`)).text();

    expect(skipped).toMatchObject({
      event: 'prune.skipped',
      kind: 'WafCustomRule',
      shieldZoneId: 42,
      id,
      key: 'Rule B',
      subject: 'WafCustomRule/b',
      reason: 'not pruned: --prune is off',
    });
    expect(d.events('prune.skipped')).toHaveLength(1);
    expect(status.unclaimed).toEqual([
      {
        kind: 'WafCustomRule',
        shieldZoneId: 42,
        id,
        key: 'Rule B',
        subject: 'WafCustomRule/b',
        reason: 'not pruned: --prune is off',
        since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    ]);
    expect(metrics).toMatch(/^edgesync_unclaimed_objects 1$/m);
    expect(deletes()).toEqual([]);
    expect(ruleId('Rule B')).toBe(id);

    // The document back: claimed again, no longer listed.
    await writeFile(join(config, 'b.yaml'), rule('b', 'Rule B'));
    await until(
      async () => {
        const again = (await (await fetch(`${url}/status`)).json()) as { unclaimed: unknown[] };
        return again.unclaimed.length === 0;
      },
      'the object claimed again',
      20_000,
    );
    expect(await (await fetch(`${url}/metrics`)).text()).toMatch(/^edgesync_unclaimed_objects 0$/m);
  }, 60_000);

  it('a restarted daemon does not log an object a previous one already reported, and keeps its since', async () => {
    const config = writeTree(join(root, 'config'), {
      'a.yaml': rule('a', 'Rule A'),
      'b.yaml': rule('b', 'Rule B'),
      'c.yaml': rule('c', 'Rule C'),
    });
    const stateDir = join(root, 'state');
    const start = async () => {
      const d = spawnRun(daemonArgs({ config, stateDir, baseUrl: emu.url }), ENV);
      const started = await until(() => d.events('daemon.started')[0], 'daemon.started', 20_000);
      await until(() => d.events('reconcile.finished')[0], 'the start-up run', 20_000);
      return { d, url: String(started.listen) };
    };
    const unclaimed = async (url: string) =>
      ((await (await fetch(`${url}/status`)).json()) as { unclaimed: { key: string; since: string }[] })
        .unclaimed;

    const first = await start();
    await rm(join(config, 'b.yaml'));
    await until(() => first.d.events('prune.skipped')[0], 'prune.skipped', 20_000);
    const before = await unclaimed(first.url);
    first.d.child.kill('SIGTERM');
    expect((await first.d.exit).code).toBe(0);

    const second = await start();
    const after = await unclaimed(second.url);
    const metrics = await (await fetch(`${second.url}/metrics`)).text();
    // A new one is still told, once.
    await rm(join(config, 'c.yaml'));
    const newOne = await until(() => second.d.events('prune.skipped')[0], 'prune.skipped of c', 20_000);

    expect(before).toEqual([expect.objectContaining({ key: 'Rule B' })]);
    expect(after).toEqual(before);
    expect(metrics).toMatch(/^edgesync_unclaimed_objects 1$/m);
    expect(newOne).toMatchObject({ key: 'Rule C', subject: 'WafCustomRule/c' });
    expect(second.d.events('prune.skipped')).toHaveLength(1);
    expect(deletes()).toEqual([]);
  }, 60_000);
});
