/**
 * Two `edgesync run` processes on one state directory (docs/state.md, Leadership): one leads,
 * the other stands by — ready, `"role": "standby"` naming the leader in /status,
 * `edgesync_leader 0` — and writes nothing; killed with SIGKILL, the leader's lock (its process
 * gone on this host) is taken over at once and the standby leads: it reads the state again,
 * runs a full reconcile, and applies the next change.
 */
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { daemonArgs, edit, request, ruleYaml, until, writeDaemonConfig } from '../helpers/daemon.js';
import { TEST_KEY, TEST_SEED } from '../helpers/emulator.js';
import { type Spawned, spawnRun, useSpawnedDaemons } from '../helpers/spawn-daemon.js';
import { tempDir } from '../helpers/temp-dir.js';

useSpawnedDaemons();

const urlOf = (daemon: Spawned): string =>
  String((daemon.events('daemon.started')[0] as { listen?: unknown } | undefined)?.listen);

describe('a standby on the file store', () => {
  it('stands by while the leader lives, writes nothing, and leads at once after the leader is killed', async () => {
    const emu = await startEmulator({ accessKey: TEST_KEY, seed: TEST_SEED });
    onTestFinished(() => emu.close());
    const root = tempDir();
    const config = writeDaemonConfig(join(root, 'config'));
    const args = daemonArgs({ config, stateDir: join(root, 'state'), baseUrl: emu.url });
    const env = { EDGESYNC_ACCESS_KEY: TEST_KEY };
    const startedAt = Date.now();
    const leader = spawnRun(args, env);
    await until(() => leader.events('reconcile.finished')[0], 'the leader to reconcile', 20_000);
    const standby = spawnRun(args, env);
    await until(() => standby.events('daemon.started')[0], 'the standby to start', 20_000);

    const status = (await request(`${urlOf(standby)}/status`)).json as Record<string, unknown>;
    const leaderStatus = (await request(`${urlOf(leader)}/status`)).json as Record<string, unknown>;
    const ready = await request(`${urlOf(standby)}/readyz`);
    const standbyMetrics = (await request(`${urlOf(standby)}/metrics`)).text;
    const leaderMetrics = (await request(`${urlOf(leader)}/metrics`)).text;
    edit(config, 'shield/rules.yaml', ruleYaml('Renamed by the leader'));
    await until(() => emu.journal.writes().length === 1, 'the leader to apply the edit', 10_000);
    const killedAt = Date.now();
    leader.child.kill('SIGKILL');
    await leader.exit;
    const elected = await until(() => standby.events('leader.elected')[0], 'the standby to lead', 10_000);
    const finished = await until(() => standby.events('reconcile.finished')[0], 'its full reconcile', 20_000);
    edit(config, 'shield/rules.yaml', ruleYaml('Renamed by the new leader'));
    await until(() => emu.journal.writes().length === 2, 'the new leader to apply the next edit', 10_000);
    const after = (await request(`${urlOf(standby)}/status`)).json as Record<string, unknown>;

    // `since` is when the leader took its lease: the time it logged as leader.elected, the one
    // it shows itself, and (for the next leader) after the old one was killed.
    const leaderSince = String(leader.events('leader.elected')[0]?.since);
    expect(Date.parse(leaderSince)).toBeGreaterThanOrEqual(startedAt);
    expect(Date.parse(leaderSince)).toBeLessThanOrEqual(
      Date.parse(String(leader.events('reconcile.finished')[0]?.time)),
    );
    expect(status).toMatchObject({
      role: 'standby',
      ready: true,
      leader: { pid: leader.child.pid, host: hostname(), term: 1, since: leaderSince },
    });
    expect(leaderStatus).toMatchObject({
      role: 'leader',
      leader: { pid: leader.child.pid, since: leaderSince },
    });
    expect(ready.status).toBe(200);
    expect(standbyMetrics).toMatch(/^edgesync_leader 0$/m);
    expect(leaderMetrics).toMatch(/^edgesync_leader 1$/m);
    // While it stood by, the leader's edit reached its watcher too, but it ran nothing.
    const beforeLeading = (l: { readonly [key: string]: unknown }) =>
      Date.parse(String(l.time)) < Date.parse(String(elected.time));
    expect(standby.events('trigger.received').filter(beforeLeading)).toEqual([]);
    expect(standby.events('reconcile.started').filter(beforeLeading)).toEqual([]);
    expect(standby.events('state.lock.takenOver')).toMatchObject([
      { pid: leader.child.pid, host: hostname(), why: 'its process is gone' },
    ]);
    expect(Date.parse(String(elected.time)) - killedAt).toBeLessThan(5000);
    expect(finished).toMatchObject({ trigger: 'startup', result: 'success' });
    expect(emu.journal.writes().map((w) => (w.requestBody as { ruleName?: string }).ruleName)).toEqual([
      'Renamed by the leader',
      'Renamed by the new leader',
    ]);
    expect(after).toMatchObject({
      role: 'leader',
      leader: { pid: standby.child.pid, term: 2, since: elected.since },
    });
    expect(Date.parse(String(elected.since))).toBeGreaterThanOrEqual(killedAt);
  }, 60_000);
});
