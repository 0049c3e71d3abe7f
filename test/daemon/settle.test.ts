/**
 * A webhook that arrives while a file is half-written: the full run it asks for reads the first
 * half once the debounce has passed and plans a deletion from it, but applies nothing, since the
 * file changed less than --settle-ms ago; the whole file is applied later, with no container
 * deleted (in-process daemon, real files, the emulator's journal).
 */
import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { genericHook, secretFile, until, useDaemonFixture } from '../helpers/daemon.js';
import { APP_HEAD, APP_TAIL } from '../helpers/half-written-app.js';
import { writeTree } from '../helpers/temp-dir.js';

const SECRET = 'settle-secret-51ab';

const fx = useDaemonFixture();

describe('a webhook during a write', () => {
  it('defers the plan it read mid-write: one PATCH of the whole file, no container deleted', async () => {
    const config = writeTree(join(fx.root, 'config'), {
      'apps/storefront.yaml': (APP_HEAD + APP_TAIL).replace('max: 4', 'max: 3'),
    });
    const d = await fx.start(config, {
      extra: ['--webhook-secret-file', secretFile(SECRET), '--settle-ms', '1000', '--debounce-ms', '100'],
    });
    const file = join(config, 'apps/storefront.yaml');

    await writeFile(file, APP_HEAD);
    const hook = await genericHook(d.url, '{}', SECRET);
    await new Promise((resolve) => setTimeout(resolve, 600));
    await appendFile(file, APP_TAIL);
    const deferred = await until(() => d.events('reconcile.deferred')[0], 'the deferred webhook run', 20_000);
    await until(
      () =>
        d.events('reconcile.finished').find((line) => (line.counts as { applied?: number }).applied === 1),
      'the run that applies the whole file',
      20_000,
    );
    // The settle run the deferral asked for (full: a webhook's) ends too, changing nothing.
    await until(
      () => d.events('trigger.received').find((line) => line.reason === 'settle'),
      'the settle run',
      20_000,
    );
    await d.waitForEvent('reconcile.finished', (line) => line.trigger === 'settle', 1, 20_000);

    expect(hook.status).toBe(202);
    // The webhook's run reads the half-written file; on a loaded host the watcher's run (100 ms
    // debounce) may read it first: either is deferred, and neither deletes anything.
    expect(['webhook', 'file-change']).toContain(deferred.trigger);
    expect(deferred).toMatchObject({ subjects: ['ContainerApp/storefront'], settleMs: 1000 });
    expect(fx.emu.journal.writes().map((w) => [w.method, w.path])).toEqual([['PATCH', '/mc/apps/app1']]);
    expect(fx.emu.state.app('app1')?.containerTemplates.map((c) => [c.name, c.id])).toEqual([
      ['web', 'tpl-web'],
      ['worker', 'tpl-worker'],
    ]);
  }, 30_000);
});
