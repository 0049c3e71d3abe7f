/**
 * A webhook that arrives while a file is half-written: the full run it asks for waits until
 * the file has settled, so it never plans a deletion from the first half (in-process daemon,
 * real files, the emulator's journal).
 */
import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { genericHook, secretFile, until, useDaemonFixture } from '../helpers/daemon.js';
import { writeTree } from '../helpers/temp-dir.js';

const SECRET = 'settle-secret-51ab';
const HEAD = `apiVersion: edgesync/v1
kind: ContainerApp
metadata:
  name: storefront
spec:
  appId: app1
  allowDeletions: true
  autoScaling: { min: 1, max: 4 }
  containerTemplates:
    - name: web
`;
const TAIL = `    - name: worker
`;

const fx = useDaemonFixture();

describe('a webhook during a write', () => {
  it('runs once the file has settled: one PATCH of the whole file, no container deleted', async () => {
    const config = writeTree(join(fx.root, 'config'), {
      'apps/storefront.yaml': (HEAD + TAIL).replace('max: 4', 'max: 3'),
    });
    const d = await fx.start(config, {
      extra: ['--webhook-secret-file', secretFile(SECRET), '--settle-ms', '1000', '--debounce-ms', '600000'],
    });
    const file = join(config, 'apps/storefront.yaml');

    await writeFile(file, HEAD);
    const hook = await genericHook(d.url, '{}', SECRET);
    await new Promise((resolve) => setTimeout(resolve, 600));
    await appendFile(file, TAIL);
    const finished = await until(() => d.events('reconcile.finished')[1], 'the webhook run', 20_000);

    expect(hook.status).toBe(202);
    expect(finished).toMatchObject({ trigger: 'webhook', counts: { applied: 1, failed: 0 } });
    expect(fx.emu.journal.writes().map((w) => [w.method, w.path])).toEqual([['PATCH', '/mc/apps/app1']]);
    expect(fx.emu.state.app('app1')?.containerTemplates.map((c) => [c.name, c.id])).toEqual([
      ['web', 'tpl-web'],
      ['worker', 'tpl-worker'],
    ]);
  }, 30_000);
});
