/**
 * Failover on the Postgres store (docs/state.md, Failover): three `edgesync run` processes on
 * one database against the emulator. Exactly one leads. Ten times, the config changes (rule
 * updates, new rules to create, the last round's rules removed: creates and prunes) and the
 * leader is killed with SIGKILL at a random moment while it writes; a standby takes over, and a
 * new process joins so three run again. Each time the account converges: every rule exists
 * once, nothing never-managed is deleted, and at the end the inventory matches the account.
 * The kill-to-leading times are printed (the figure of record is `npm run bench -- --section
 * failover`).
 */
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { cli, cliAgainst } from '../helpers/cli.js';
import { request, until } from '../helpers/daemon.js';
import { TEST_KEY, withEmulator } from '../helpers/emulator.js';
import { PG_PASSWORD, usePostgres } from '../helpers/postgres.js';
import { prng } from '../helpers/prng.js';
import { type Spawned, spawnRun, useSpawnedDaemons } from '../helpers/spawn-daemon.js';
import { tempDir, writeTree } from '../helpers/temp-dir.js';

const pgs = usePostgres();
useSpawnedDaemons();

const RULES = 40;
const CREATES = 5;
const FOREIGN = 3;
const KILLS = 10;
const LEASE_SECONDS = '2';

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

function doc(kind: string, name: string, spec: unknown): string {
  return `apiVersion: edgesync/v1\nkind: ${kind}\nmetadata: { name: ${name} }\nspec: ${JSON.stringify(spec)}\n`;
}

/** Round `round`'s desired state: every rule of zone 42 changed, and zone 43's rules of this round. */
function config(round: number): Record<string, string> {
  return {
    'rules.yaml': Array.from({ length: RULES }, (_, i) =>
      doc('WafCustomRule', `r${i}`, { id: 5000 + i, shieldZoneId: 42, ...rule(i, `round-${round}-${i}`) }),
    ).join('---\n'),
    // Created by one leader, removed in the next round: pruned from the inventory.
    'zone-43.yaml': Array.from({ length: CREATES }, (_, i) =>
      doc('WafCustomRule', `c${round}-${i}`, {
        shieldZoneId: 43,
        ...rule(100 + i, `created-${round}-${i}`),
        ruleName: `created ${round} ${i}`,
      }),
    ).join('---\n'),
  };
}

describe('three daemons on one Postgres', () => {
  it(`one leads; after ${KILLS} kills of the leader mid-apply a standby leads each time and the account converges`, async () => {
    const emu = await withEmulator({
      shieldZones: [
        {
          id: 42,
          planType: 'Business',
          customRules: Array.from({ length: RULES }, (_, i) => ({ id: 5000 + i, ...rule(i, 'old') })),
        },
        {
          id: 43,
          planType: 'Enterprise',
          // Never managed: no document claims them and the zone is not exclusive.
          customRules: Array.from({ length: FOREIGN }, (_, i) => ({
            id: 9000 + i,
            ...rule(900 + i, 'foreign'),
            ruleName: `foreign ${i}`,
          })),
        },
      ],
    });
    onTestFinished(() => emu.close());
    emu.faults.set({ latencyMs: [2, 8] });
    const root = tempDir();
    const dir = writeTree(join(root, 'config'), config(0));
    const url = await pgs.database();
    const store = ['--state-url', url, '--instance', 'prod', '--lease-seconds', LEASE_SECONDS];
    const flags = [
      ...['--config', dir, '--base-url', emu.url, '--listen', '127.0.0.1:0', ...store],
      ...['--schedule', '0 0 1 1 *', '--debounce-ms', '50', '--settle-ms', '200'],
      ...['--concurrency', '4', '--max-change-percent', '100', '--prune', '--force'],
    ];
    const env = { EDGESYNC_ACCESS_KEY: TEST_KEY, PGPASSWORD: PG_PASSWORD };
    const daemons: Spawned[] = [];
    const join_ = async (): Promise<Spawned> => {
      const daemon = spawnRun(flags, env);
      daemons.push(daemon);
      await until(() => daemon.events('daemon.started')[0], 'a daemon to start', 30_000);
      return daemon;
    };
    const alive = () => daemons.filter((d) => d.child.exitCode === null && d.child.signalCode === null);
    const roles = async () =>
      Promise.all(
        alive().map(async (d) => {
          const started = d.events('daemon.started')[0] as unknown as { listen: string };
          const doc = (await request(`${started.listen}/status`)).json as { role: string };
          return { daemon: d, role: doc.role };
        }),
      );
    /** The one leader, once exactly one of the live daemons says it leads and it has reconciled. */
    const theLeader = () =>
      until(
        async () => {
          const all = await roles();
          const leaders = all.filter((r) => r.role === 'leader');
          if (leaders.length !== 1 || all.length !== 3) return undefined;
          const leader = leaders[0]?.daemon as Spawned;
          return leader.events('reconcile.finished').some((line) => line.result === 'success')
            ? leader
            : undefined;
        },
        'exactly one leader that has reconciled',
        30_000,
      );
    const random = prng(33);
    const failoverMs: number[] = [];
    const writesAtKill: number[] = [];

    await Promise.all([join_(), join_(), join_()]);
    let leader = await theLeader();
    for (let round = 1; round <= KILLS; round += 1) {
      const writesBefore = emu.journal.writes().length;
      writeTree(dir, config(round));
      // Kill while it writes this round's changes: after its first write, at a random moment.
      await until(() => emu.journal.writes().length > writesBefore, 'the leader writing', 30_000);
      await new Promise((r) => setTimeout(r, Math.floor(random() * 120)));
      const killedAt = Date.now();
      leader.child.kill('SIGKILL');
      await leader.exit;
      writesAtKill.push(emu.journal.writes().length - writesBefore);
      const replacement = join_();
      const next = await until(
        () =>
          alive().find((d) => d.events('leader.elected').some((e) => Date.parse(String(e.time)) > killedAt)),
        'a standby to lead',
        20_000,
      );
      const elected = next.events('leader.elected').find((e) => Date.parse(String(e.time)) > killedAt);
      failoverMs.push(Date.parse(String(elected?.time)) - killedAt);
      await replacement;
      leader = await theLeader();
      // Converged on this round's config: the new leader's full run found nothing left, or did it.
      const zone43 = emu.state
        .customRules(43)
        .map((r) => r.ruleName)
        .sort();
      expect(zone43).toEqual(
        [
          ...Array.from({ length: CREATES }, (_, i) => `created ${round} ${i}`),
          ...Array.from({ length: FOREIGN }, (_, i) => `foreign ${i}`),
        ].sort(),
      );
    }
    await Promise.all(
      alive().map((d) => {
        d.child.kill('SIGTERM');
        return d.exit;
      }),
    );
    const where = ['--config', dir, ...store];
    const plan = await cliAgainst(emu, ['plan', '--detailed-exitcode', '--prune', ...where], {
      env: { PGPASSWORD: PG_PASSWORD },
    });
    const shown = await cli(['state', 'show', '--json', ...where], { env: { PGPASSWORD: PG_PASSWORD } });
    const sorted = [...failoverMs].sort((a, b) => a - b);
    console.log(
      `failover (kill -9 → leader.elected) over ${KILLS} kills, lease ${LEASE_SECONDS} s: min ${sorted[0]} ms, median ${sorted[Math.floor(sorted.length / 2)]} ms, max ${sorted.at(-1)} ms`,
    );

    // The kills landed mid-apply: some of each round's writes were out, not all of them.
    expect(
      writesAtKill.filter((n) => n < RULES + 2 * CREATES).length,
      JSON.stringify(writesAtKill),
    ).toBeGreaterThan(KILLS / 2);
    expect(plan.stdout).toContain('Plan: 0 to change');
    expect(plan.code).toBe(0);
    expect(emu.state.customRules(42).map((r) => r.ruleConfiguration?.value)).toEqual(
      Array.from({ length: RULES }, (_, i) => `round-${KILLS}-${i}`),
    );
    // A blind retry of a create that had landed would be refused as a duplicate name (400).
    expect(emu.journal.writes().filter((w) => w.status === 400)).toEqual([]);
    // Never managed: never deleted.
    const foreign = Array.from({ length: FOREIGN }, (_, i) => `/shield/waf/custom-rule/${9000 + i}`);
    expect(emu.journal.writes().filter((w) => w.method === 'DELETE' && foreign.includes(w.path))).toEqual([]);
    // The inventory is the account: every document's rule, by its live id and name, nothing else.
    const inventory = (
      JSON.parse(shown.stdout) as {
        inventory: { subject: string; shieldZoneId: number; id: number; key: string }[];
      }
    ).inventory;
    const liveRules = [42, 43].flatMap((zone) =>
      emu.state.customRules(zone).map((r) => ({ zone, id: r.id, name: r.ruleName })),
    );
    const subjects = [
      ...Array.from({ length: RULES }, (_, i) => `WafCustomRule/r${i}`),
      ...Array.from({ length: CREATES }, (_, i) => `WafCustomRule/c${KILLS}-${i}`),
    ];
    expect(inventory.map((e) => e.subject).sort()).toEqual(subjects.sort());
    for (const entry of inventory) {
      expect(liveRules.filter((r) => r.id === entry.id)).toEqual([
        { zone: entry.shieldZoneId, id: entry.id, name: entry.key },
      ]);
    }
    expect(sorted.at(-1)).toBeLessThan(15_000);
  }, 120_000);
});
