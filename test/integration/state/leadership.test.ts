/**
 * Leadership and fencing of `edgesync run` on a real PostgreSQL (docs/state.md, Leadership,
 * Fencing): real daemon processes against the emulator, whose journal records when each
 * request arrived.
 *
 * - a network cut (the leader's lock session terminated from Postgres): the old leader sends no
 *   further write and a standby leads;
 * - a lease lost while a write waits in the API client's retry backoff: it never goes out;
 * - Postgres restarted under a running leader: it stands by, writes nothing without the lease,
 *   and leads again once the database is back;
 * - `apply`, `forget` and `state migrate` against a led store wait up to `--lock-timeout`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { signBody } from '../../../src/daemon/signatures.js';
import type { Emulator } from '../../../src/emulator/index.js';
import { cli, cliAgainst } from '../../helpers/cli.js';
import { request, until } from '../../helpers/daemon.js';
import { TEST_KEY, withEmulator } from '../../helpers/emulator.js';
import { PG_PASSWORD, usePostgres } from '../../helpers/postgres.js';
import { type Spawned, spawnRun, useSpawnedDaemons } from '../../helpers/spawn-daemon.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';

const pgs = usePostgres();
useSpawnedDaemons();

const RULES = 30;
const INSTANCE = 'prod';

function rule(i: number, value: string) {
  return {
    ruleName: `rule ${i}`,
    ruleConfiguration: {
      actionType: 'Block',
      operatorType: 'CONTAINS',
      severityType: 'WARNING',
      variableTypes: { ARGS: '' },
      value,
    },
  };
}

async function emulator(): Promise<Emulator> {
  const emu = await withEmulator({
    shieldZones: [
      {
        id: 42,
        planType: 'Business',
        customRules: Array.from({ length: RULES }, (_, i) => ({ id: 5000 + i, ...rule(i, 'old') })),
      },
    ],
  });
  onTestFinished(() => emu.close());
  return emu;
}

/** RULES rule documents, each one a change against the emulator's seed. */
function configDir(): string {
  return writeTree(join(tempDir(), 'config'), {
    'rules.yaml': Array.from(
      { length: RULES },
      (_, i) =>
        `apiVersion: edgesync/v1\nkind: WafCustomRule\nmetadata: { name: r${i} }\nspec: ${JSON.stringify({ id: 5000 + i, shieldZoneId: 42, ...rule(i, `new-${i}`) })}\n`,
    ).join('---\n'),
  });
}

interface Cluster {
  readonly url: string;
  readonly config: string;
  readonly store: readonly string[];
  start(extra?: readonly string[]): Promise<Spawned>;
}

async function cluster(emu: Emulator): Promise<Cluster> {
  const url = await pgs.database();
  const config = configDir();
  const store = ['--state-url', url, '--instance', INSTANCE, '--lease-seconds', '2'];
  return {
    url,
    config,
    store,
    async start(extra = []) {
      const daemon = spawnRun(
        [
          ...['--config', config, '--base-url', emu.url, '--listen', '127.0.0.1:0', ...store],
          ...['--schedule', '0 0 1 1 *', '--concurrency', '1', '--max-change-percent', '100'],
          ...extra,
        ],
        { EDGESYNC_ACCESS_KEY: TEST_KEY, PGPASSWORD: PG_PASSWORD },
      );
      await until(() => daemon.events('daemon.started')[0], 'a daemon to start', 30_000);
      return daemon;
    },
  };
}

const timeOf = (line: { readonly [key: string]: unknown } | undefined): number =>
  Date.parse(String(line?.time));

/**
 * The writes the emulator received between `from` and `to` that were not already in flight:
 * a write whose `change.started` the daemon logged before `startedBefore` (when it lost the
 * lease, or froze) may arrive after it — fencing checks before each send and cannot recall a
 * request on the wire — once per path. Anything else, a write started later or a second
 * attempt, is a fencing failure.
 */
function writesNotInFlight(
  emu: Emulator,
  daemon: Spawned,
  window: { startedBefore: number; from: number; to: number },
): unknown[] {
  const inFlight = new Set(
    daemon
      .events('change.started')
      .filter((l) => timeOf(l) <= window.startedBefore)
      .map((l) => String(l.path)),
  );
  const late = emu.journal.writes().filter((w) => w.receivedAt > window.from && w.receivedAt < window.to);
  return late.filter((w, i) => !inFlight.has(w.path) || late.findIndex((o) => o.path === w.path) !== i);
}

interface LeaderStatus {
  role: string;
  leader: { pid: number; since: string } | null;
}

async function statusOf(daemon: Spawned): Promise<LeaderStatus> {
  const started = daemon.events('daemon.started')[0] as unknown as { listen: string };
  return (await request(`${started.listen}/status`)).json as LeaderStatus;
}

/** A client of the test's database (advisory locks are per database). */
async function sessionOf(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: pgs.withPassword(url) });
  await client.connect();
  onTestFinished(() => client.end().catch(() => undefined));
  return client;
}

/** Terminates the session that holds the instance's advisory lock (a network cut, as the server sees it). */
async function cutLockSession(session: pg.Client): Promise<void> {
  const cut = await session.query<{ done: boolean }>(
    `SELECT pg_terminate_backend(pid) AS done FROM pg_locks
      WHERE locktype = 'advisory' AND granted AND objsubid = 1
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND ((classid::bigint << 32) | objid::bigint) = hashtextextended('edgesync:' || $1, 0)`,
    [INSTANCE],
  );
  expect(cut.rows).toEqual([{ done: true }]);
}

/** Every write of zone 42 applied, each rule's value the desired one. */
function converged(emu: Emulator): boolean {
  return emu.state.customRules(42).every((r, i) => r.ruleConfiguration?.value === `new-${i}`);
}

describe('leadership on the Postgres store', () => {
  it('a network cut: the old leader sends no further write, and the standby leads', async () => {
    const emu = await emulator();
    emu.faults.set({ latencyMs: 30 });
    const c = await cluster(emu);
    const first = await c.start();
    const second = await c.start();
    await until(() => emu.journal.writes().length >= 3, 'the leader writing', 20_000);
    const leader = (await statusOf(first)).role === 'leader' ? first : second;
    const standby = leader === first ? second : first;
    const standbyStatus = await statusOf(standby);
    const ready = await request(
      `${(standby.events('daemon.started')[0] as unknown as { listen: string }).listen}/readyz`,
    );
    const metrics = await request(
      `${(standby.events('daemon.started')[0] as unknown as { listen: string }).listen}/metrics`,
    );

    await cutLockSession(await sessionOf(c.url));
    const lost = await until(() => leader.events('leader.lost')[0], 'leader.lost', 10_000);
    const elected = await until(() => standby.events('leader.elected')[0], 'the standby to lead', 10_000);
    await until(() => converged(emu), 'the account to converge', 20_000);
    // It waits before it competes again (docs/state.md, Leadership), then sees who leads.
    const oldLeader = await until(
      async () => {
        const seen = await statusOf(leader);
        return seen.leader?.pid === standby.child.pid ? seen : undefined;
      },
      'the old leader to stand by behind the new one',
      40_000,
    );

    // The standby names the leader and when it took the lease (its own leader.elected).
    expect(standbyStatus).toMatchObject({
      role: 'standby',
      leader: { pid: leader.child.pid, since: leader.events('leader.elected')[0]?.since },
    });
    expect(ready.status).toBe(200);
    expect(metrics.text).toMatch(/^edgesync_leader 0$/m);
    expect(lost.reason).toMatch(/database session/);
    // The journal: nothing arrived between the old leader's loss and the new leader's start
    // but what was on the wire when the loss was noticed.
    expect(
      writesNotInFlight(emu, leader, {
        startedBefore: timeOf(lost),
        from: timeOf(lost),
        to: timeOf(elected),
      }),
    ).toEqual([]);
    // And the old leader started no write after its loss.
    expect(leader.events('change.started').filter((l) => timeOf(l) > timeOf(lost))).toEqual([]);
    expect(oldLeader).toMatchObject({ role: 'standby', leader: { pid: standby.child.pid } });
    expect(emu.journal.writes().filter((w) => w.status >= 400)).toEqual([]);
  }, 90_000);

  it('a frozen leader (SIGSTOP mid-apply) is ended by the server, a standby leads, and on waking it sends nothing', async () => {
    const emu = await emulator();
    emu.faults.set({ latencyMs: 30 });
    const c = await cluster(emu);
    const first = await c.start();
    const second = await c.start();
    await until(() => emu.journal.writes().length >= 3, 'the leader writing', 20_000);
    const leader = (await statusOf(first)).role === 'leader' ? first : second;
    const standby = leader === first ? second : first;

    leader.child.kill('SIGSTOP');
    const frozenAt = Date.now();
    const elected = await until(() => standby.events('leader.elected')[0], 'the standby to lead', 20_000);
    await until(() => converged(emu), 'the account to converge', 20_000);
    await until(
      async () =>
        (await statusOf(standby)).role === 'leader' && standby.events('reconcile.finished').length > 0,
      'the new leader idle',
    );
    const woken = Date.now();
    leader.child.kill('SIGCONT');
    const lost = await until(
      () => leader.events('leader.lost')[0],
      'the woken leader to find its lease lost',
      10_000,
    );

    // Within a lease period and a poll (2 s + 0.2 s), with slack for a loaded host.
    expect(timeOf(elected) - frozenAt).toBeLessThan(10_000);
    // A write it had checked the lease for just before the freeze may still go out on waking
    // (docs/state.md, Fencing): once, for a change it had started; nothing it started after.
    expect(
      writesNotInFlight(emu, leader, { startedBefore: frozenAt, from: woken, to: Number.POSITIVE_INFINITY }),
    ).toEqual([]);
    expect(leader.events('change.started').filter((l) => timeOf(l) >= woken)).toEqual([]);
    expect(timeOf(lost)).toBeGreaterThanOrEqual(woken - 1);
  }, 60_000);

  it('a webhook that reaches the standby is run by the leader (relayed through the database)', async () => {
    const emu = await emulator();
    const c = await cluster(emu);
    const secretFile = join(tempDir(), 'webhook-secret');
    writeFileSync(secretFile, 'relay-secret\n');
    const hooks = ['--webhook-secret-file', secretFile];
    const first = await c.start(hooks);
    await until(() => first.events('reconcile.finished')[0], 'the leader to reconcile', 20_000);
    const second = await c.start(hooks);
    const body = JSON.stringify({ reason: 'deploy' });

    const reply = await fetch(
      `${(second.events('daemon.started')[0] as unknown as { listen: string }).listen}/hooks/generic`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-signature': signBody('relay-secret', body) },
        body,
      },
    );
    const run = await until(
      () => first.events('reconcile.started').find((line) => line.trigger === 'webhook'),
      'the leader to run the relayed webhook',
      10_000,
    );

    expect(reply.status).toBe(202);
    expect(second.events('trigger.relayed')).toMatchObject([{ hook: 'generic' }]);
    expect(first.events('trigger.received').filter((l) => l.reason === 'webhook')).toMatchObject([
      { hook: 'generic', relayed: true },
    ]);
    expect(run.trigger).toBe('webhook');
    expect(second.events('reconcile.started')).toEqual([]);
  }, 60_000);

  it('a lease lost while a write waits in the retry backoff: that write never goes out', async () => {
    const emu = await emulator();
    // The first write is throttled: the client waits the Retry-After (3 s) before it tries again.
    emu.faults.script({
      method: 'PATCH',
      reply: { status: 429, headers: { 'Retry-After': '3' }, body: { message: 'slow down' } },
    });
    const c = await cluster(emu);
    const daemon = await c.start();
    await until(() => emu.journal.writes().length === 1, 'the throttled write', 20_000);
    const throttledAt = Date.now();

    // The test's own session takes the lock the moment the leader's session is cut: no one leads.
    const session = await sessionOf(c.url);
    await cutLockSession(await sessionOf(c.url));
    await session.query("SELECT pg_advisory_lock(hashtextextended('edgesync:' || $1, 0))", [INSTANCE]);
    const lost = await until(() => daemon.events('leader.lost')[0], 'leader.lost', 10_000);
    // Past the Retry-After: the retry would have gone out by now.
    await until(() => Date.now() > throttledAt + 4000, 'the end of the backoff', 10_000);
    const writesWithoutLease = emu.journal.writes().length;
    await session.query("SELECT pg_advisory_unlock(hashtextextended('edgesync:' || $1, 0))", [INSTANCE]);
    const again = await until(() => daemon.events('leader.elected')[1], 'leading again', 10_000);
    await until(() => converged(emu), 'the account to converge', 20_000);

    expect(timeOf(lost)).toBeLessThan(throttledAt + 3000);
    expect(writesWithoutLease).toBe(1);
    expect(
      writesNotInFlight(emu, daemon, { startedBefore: timeOf(lost), from: timeOf(lost), to: timeOf(again) }),
    ).toEqual([]);
    expect(daemon.events('reconcile.aborted')).toMatchObject([{ by: 'lease-lost' }]);
  }, 60_000);

  it('Postgres restarted under a running leader: it stands by, writes nothing without the lease, and leads again', async () => {
    const emu = await emulator();
    emu.faults.set({ latencyMs: 30 });
    const c = await cluster(emu);
    const daemon = await c.start();
    await until(() => emu.journal.writes().length >= 3, 'the leader writing', 20_000);

    const restarted = pgs.restart();
    const lost = await until(() => daemon.events('leader.lost')[0], 'leader.lost', 20_000);
    await restarted;
    const again = await until(() => daemon.events('leader.elected')[1], 'leading again', 30_000).catch(
      (err) => {
        console.log(daemon.output());
        throw err;
      },
    );
    await until(() => converged(emu), 'the account to converge', 30_000);
    const status = await statusOf(daemon);

    expect(
      writesNotInFlight(emu, daemon, { startedBefore: timeOf(lost), from: timeOf(lost), to: timeOf(again) }),
    ).toEqual([]);
    expect(
      daemon.events('change.started').filter((l) => timeOf(l) > timeOf(lost) && timeOf(l) < timeOf(again)),
    ).toEqual([]);
    expect(status).toMatchObject({ role: 'leader', leader: { pid: daemon.child.pid } });
    expect(again.term).toBeGreaterThan(Number(daemon.events('leader.elected')[0]?.term));
  }, 90_000);

  it.each([
    [
      'apply',
      (c: Cluster, emu: Emulator, wait: string[]) =>
        cliAgainst(emu, ['apply', '--config', c.config, ...c.store, ...wait], {
          env: { PGPASSWORD: PG_PASSWORD },
        }),
    ],
    [
      'forget',
      (c: Cluster, _emu: Emulator, wait: string[]) =>
        cli(['forget', 'WafCustomRule/r0', '--config', c.config, ...c.store, ...wait], {
          env: { PGPASSWORD: PG_PASSWORD },
        }),
    ],
    [
      'state migrate',
      (c: Cluster, _emu: Emulator, wait: string[]) =>
        cli(
          ['state', 'migrate', '--to', join(tempDir(), 'copy'), '--config', c.config, ...c.store, ...wait],
          { env: { PGPASSWORD: PG_PASSWORD } },
        ),
    ],
  ])(
    '%s against a led store refuses at once naming the holder, and waits with --lock-timeout',
    async (_name, command) => {
      const emu = await emulator();
      const c = await cluster(emu);
      const daemon = await c.start();
      await until(() => converged(emu), 'the daemon to converge', 20_000);

      const refused = await command(c, emu, []);
      const waiting = command(c, emu, ['--lock-timeout', '20']);
      await new Promise((r) => setTimeout(r, 500));
      daemon.child.kill('SIGTERM');
      const waited = await waiting;

      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`is in use by pid ${daemon.child.pid} on host`);
      expect(refused.stderr).toContain('(edgesync run, since ');
      expect(waited.stderr).not.toContain('in use');
      expect(waited.code).toBe(0);
    },
    60_000,
  );
});
