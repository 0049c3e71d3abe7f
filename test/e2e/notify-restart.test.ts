/**
 * Notification transitions survive a restart (the built binary, `edgesync run`, twice on one
 * state directory): a daemon restarted while the same failure persists does not tell it again
 * (a crash-looping pod would otherwise page on every start), and still tells the recovery.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect } from 'vitest';
import { daemonArgs, dnsYaml, edit, until, writeDaemonConfig } from '../helpers/daemon.js';
import { TEST_KEY, test } from '../helpers/emulator.js';
import { reply, startTestServer, type TestServer } from '../helpers/http-server.js';
import { spawnRun, useSpawnedDaemons } from '../helpers/spawn-daemon.js';
import { tempDir } from '../helpers/temp-dir.js';

useSpawnedDaemons();

let receiver: TestServer | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

describe('notification transitions across a restart (spawned daemons)', () => {
  test('the same failure is not told again by the restarted daemon; its recovery is', async ({ emu }) => {
    const hook = await startTestServer(reply(200, {}));
    receiver = hook;
    const root = tempDir();
    const config = writeDaemonConfig(join(root, 'config'));
    edit(config, 'dns/zones.yaml', 'kind: [');
    const stateDir = join(root, 'state');
    const start = () =>
      spawnRun(
        daemonArgs({
          config,
          stateDir,
          baseUrl: emu.url,
          extra: ['--notify-webhook', `${hook.url}/hook`, '--notify-min-interval', '1ms'],
        }),
        { EDGESYNC_ACCESS_KEY: TEST_KEY },
      );
    const events = () => hook.requests.map((r) => (r.body as { event: string }).event);

    const first = start();
    await until(() => first.events('config.invalid')[0], 'the first daemon sees the invalid config', 20_000);
    await until(() => hook.requests.length === 1, 'reconcile.failed', 20_000);
    process.kill(first.child.pid as number, 'SIGTERM');
    expect((await first.exit).code).toBe(0);
    const remembered = readFileSync(join(stateDir, 'notify.json'), 'utf8');

    const second = start();
    await until(() => second.events('config.invalid')[0], 'the restarted daemon sees it too', 20_000);
    edit(config, 'dns/zones.yaml', dnsYaml());
    await until(() => second.events('config.valid')[0], 'the fixed config', 20_000);
    await until(() => hook.requests.length === 2, 'a second notification', 20_000);
    process.kill(second.child.pid as number, 'SIGTERM');
    expect((await second.exit).code).toBe(0);

    expect(events()).toEqual(['reconcile.failed', 'reconcile.recovered']);
    expect(second.events('notify.event').map((line) => line.notification)).toEqual(['reconcile.recovered']);
    // Digests only: the failure's text is not kept.
    expect(JSON.parse(remembered)).toEqual({
      failing: true,
      lastFailure: { key: expect.stringMatching(/^[0-9a-f]{64}$/), sentAt: expect.any(Number) },
      reportedDrift: {},
    });
    expect(remembered).not.toContain('dns/zones.yaml');
  });
});
