/**
 * Notifications hardened (issue 32), from the built binary (`edgesync run` in a child process)
 * against the emulator, received by real `node:http` servers: webhook URLs given by file and
 * by environment (never in the process list, the logs, /status or /metrics), the flag form
 * with its warning, and a flapping config damped to one notification per
 * `--notify-min-interval` with the final state told.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect } from 'vitest';
import { daemonArgs, daemonConfigIn, dnsYaml, edit, request, ruleYaml, until } from '../helpers/daemon.js';
import { TEST_KEY, test } from '../helpers/emulator.js';
import { reply, startTestServer, type TestServer } from '../helpers/http-server.js';
import { type Spawned, spawnDaemon, spawnRun, useSpawnedDaemons } from '../helpers/spawn-daemon.js';
import { writeTree } from '../helpers/temp-dir.js';

useSpawnedDaemons();

const FILE_TOKEN = 'FileToken-never-print-81c3';
const ENV_TOKEN = 'EnvPathToken-never-print-2f90';
const FLAG_TOKEN = 'FlagQueryToken-never-print-7d44';

const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function receiver(): Promise<TestServer> {
  const server = await startTestServer(reply(200, {}));
  servers.push(server);
  return server;
}

/** `edgesync_notifications_total` samples: `target result` → value. */
function notificationCounts(metrics: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const match of metrics.matchAll(
    /^edgesync_notifications_total\{target="(\w+)",result="(\w+)"\} (\d+)$/gm,
  ))
    counts[`${match[1]} ${match[2]}`] = Number(match[3]);
  return counts;
}

async function urlOf(run: Spawned): Promise<string> {
  return String((await until(() => run.events('daemon.started')[0], 'daemon.started', 20_000)).listen);
}

describe('notification webhooks out of the process list (spawned daemon)', () => {
  test('URLs from --notify-webhook-file and EDGESYNC_NOTIFY_WEBHOOKS are delivered and never shown; the flag form warns', async ({
    emu,
  }) => {
    const fromFile = await receiver();
    const fromEnv = await receiver();
    const fromFlag = await receiver();
    const { root, config } = daemonConfigIn();
    writeTree(root, {
      hooks: `# the ops receiver\n\n${fromFile.url}/hooks/edgesync?token=${FILE_TOKEN}\n`,
    });
    const run = spawnRun(
      daemonArgs({
        config,
        stateDir: join(root, 'state'),
        baseUrl: emu.url,
        extra: [
          '--log-level',
          'debug',
          '--notify-webhook-file',
          join(root, 'hooks'),
          '--notify-webhook',
          `${fromFlag.url}/hook?token=${FLAG_TOKEN}`,
          '--notify-min-interval',
          '1ms',
        ],
      }),
      { EDGESYNC_ACCESS_KEY: TEST_KEY, EDGESYNC_NOTIFY_WEBHOOKS: `${fromEnv.url}/services/${ENV_TOKEN}` },
    );
    const url = await urlOf(run);
    const cmdline = readFileSync(`/proc/${run.child.pid}/cmdline`, 'utf8');

    edit(config, 'shield/rules.yaml', ruleYaml('Renamed by the test'));
    await until(
      () => [fromFile, fromEnv, fromFlag].every((r) => r.requests.length === 1),
      'one notification at each receiver',
      20_000,
    );
    const status = (await request(`${url}/status`)).text;
    const metrics = (await request(`${url}/metrics`)).text;
    process.kill(run.child.pid as number, 'SIGTERM');
    expect((await run.exit).code).toBe(0);

    expect(fromFile.requests[0]?.path).toBe(`/hooks/edgesync?token=${FILE_TOKEN}`);
    expect(fromEnv.requests[0]?.path).toBe(`/services/${ENV_TOKEN}`);
    expect(fromFlag.requests[0]?.path).toBe(`/hook?token=${FLAG_TOKEN}`);
    for (const r of [fromFile, fromEnv, fromFlag])
      expect(r.requests[0]?.body).toMatchObject({ event: 'reconcile.applied' });
    // Only what the command line was given is in it: the file's and the environment's URLs are not.
    expect(cmdline).not.toContain(FILE_TOKEN);
    expect(cmdline).not.toContain(ENV_TOKEN);
    expect(cmdline).toContain(FLAG_TOKEN);
    expect(run.events('notify.warning')).toEqual([
      expect.objectContaining({
        warning: expect.stringContaining('--notify-webhook puts its URL in the process list'),
      }),
    ]);
    expect(notificationCounts(metrics)).toEqual({ 'webhook success': 3 });
    const everything = `${run.output()}\n${status}\n${metrics}`;
    for (const token of [FILE_TOKEN, ENV_TOKEN, FLAG_TOKEN]) expect(everything).not.toContain(token);
  });
});

describe('flapping (spawned daemon)', () => {
  test('a config toggled invalid/valid 10 times sends the first failure only; the final state goes out at shutdown', async ({
    emu,
  }) => {
    const hook = await receiver();
    const { root, config } = daemonConfigIn();
    // The default --notify-min-interval (1 minute): the toggles all fall within it.
    const run = spawnDaemon(root, config, emu.url, ['--notify-webhook', `${hook.url}/hook`]);
    const url = await urlOf(run);
    await until(() => run.events('reconcile.finished')[0], 'the start-up run', 20_000);
    /** Transitions the notifier decided so far: sent or held. */
    const transitions = () => run.events('notify.event').length + run.events('notify.held').length;

    for (let i = 1; i <= 20; i += 1) {
      edit(config, 'dns/zones.yaml', i % 2 === 1 ? 'kind: [' : dnsYaml());
      await until(() => transitions() === i, `transition ${i}`, 20_000);
    }
    const metrics = (await request(`${url}/metrics`)).text;
    const sentWhileToggling = hook.requests.map((r) => r.body);
    process.kill(run.child.pid as number, 'SIGTERM');
    expect((await run.exit).code).toBe(0);

    expect(sentWhileToggling).toEqual([
      expect.objectContaining({ event: 'reconcile.failed', result: 'invalid' }),
    ]);
    expect(notificationCounts(metrics)).toEqual({ 'webhook success': 1, 'webhook superseded': 18 });
    // Nothing lost at the end: the state the daemon ended in, standing for the 18 it replaced.
    expect(hook.requests.map((r) => r.body)).toEqual([
      expect.objectContaining({ event: 'reconcile.failed', result: 'invalid' }),
      expect.objectContaining({ event: 'reconcile.recovered', result: 'reconciled', superseded: 18 }),
    ]);
    expect(run.events('notify.held')).toHaveLength(19);
  });
});
