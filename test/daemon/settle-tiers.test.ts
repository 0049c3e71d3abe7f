/**
 * The two tiers of the settle check (docs/design.md, Safety invariants) with the built `edgesync run` (child process, real emulator):
 * an edit that deletes nothing is applied once the debounce has passed, long before
 * --settle-ms; a deletion written in one step is deferred until the files stayed unchanged for
 * --settle-ms (a file that has just changed may be a writer's first step).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { daemonArgs, ruleYaml, until, writeDaemonConfig } from '../helpers/daemon.js';
import { TEST_KEY, TEST_SEED } from '../helpers/emulator.js';
import { APP_TAIL, appHead } from '../helpers/half-written-app.js';
import { spawnRun, useSpawnedDaemons } from '../helpers/spawn-daemon.js';
import { tempDir } from '../helpers/temp-dir.js';

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

const SETTLE_MS = 3000;
/** The seed's app with both containers (in sync), and the same app without `worker`. */
const APP_WEB_ONLY = appHead(3);
const APP_BOTH = APP_WEB_ONLY + APP_TAIL;

describe('--settle-ms holds deletions, not edits', () => {
  it('applies an edit within the debounce and a deletion only after settleMs of quiet', async () => {
    const config = writeDaemonConfig(join(root, 'config'));
    await writeFile(join(config, 'app.yaml'), APP_BOTH);
    const args = daemonArgs({ config, stateDir: join(root, 'state'), baseUrl: emu.url, settleMs: SETTLE_MS });
    const d = spawnRun(args, { EDGESYNC_ACCESS_KEY: TEST_KEY });
    await until(() => d.events('reconcile.finished')[0], 'the start-up run', 20_000);
    expect(emu.journal.writes()).toEqual([]);

    // Tier 1: a rename deletes nothing; it is applied once the debounce has passed.
    const edited = Date.now();
    await writeFile(join(config, 'shield/rules.yaml'), ruleYaml('Block SQLi v2'));
    const applied = await until(() => d.events('change.applied')[0], 'the edit applied', 20_000);
    const editMs = Date.parse(applied.time as string) - edited;
    expect(applied).toMatchObject({ subject: 'WafCustomRule/block-sqli', action: 'update' });
    expect(d.events('reconcile.deferred')).toEqual([]);
    expect(editMs).toBeLessThan(1500);

    // Tier 2: the app without its worker, written in one step: the run that reads it defers.
    const deleting = Date.now();
    await writeFile(join(config, 'app.yaml'), APP_WEB_ONLY);
    const deferred = await until(() => d.events('reconcile.deferred')[0], 'the deferred run', 20_000);
    expect(deferred).toMatchObject({
      trigger: 'file-change',
      subjects: ['ContainerApp/storefront'],
      settleMs: SETTLE_MS,
    });
    expect(deferred.waitMs as number).toBeGreaterThan(SETTLE_MS / 2);
    const started = await until(
      () => d.events('change.started').find((line) => line.subject === 'ContainerApp/storefront'),
      'the deletion sent',
      20_000,
    );
    const deleteMs = Date.parse(started.time as string) - deleting;
    expect(deleteMs).toBeGreaterThanOrEqual(SETTLE_MS);
    await until(
      () => d.events('change.applied').find((line) => line.subject === 'ContainerApp/storefront'),
      'the deletion applied',
      20_000,
    );
    expect(emu.state.app('app1')?.containerTemplates.map((c) => c.name)).toEqual(['web']);
    // The rule's PATCH, then the app's: nothing of the deferred plan went out early.
    expect(emu.journal.writes().map((w) => w.path)).toEqual([
      expect.stringContaining('/shield/'),
      '/mc/apps/app1',
    ]);
  }, 40_000);
});
