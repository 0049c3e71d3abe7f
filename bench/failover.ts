/**
 * Failover (docs/design.md, The state store and leadership; docs/state.md, Failover): three
 * `edgesync run` processes (the product build, as deployed) on one PostgreSQL with the default
 * lease settings, against the emulator in a worker thread. The leader is taken away three ways,
 * and each time the figure is from that moment to the `leader.elected` line of the daemon that
 * takes over (it holds the lease; it then reads the state again and reconciles everything, which
 * each trial waits for before the next):
 *
 * - kill -9 of the leader (a crash, an OOM kill): its session ends with its process;
 * - its lock session terminated from Postgres (`pg_terminate_backend`: a network cut as the
 *   server sees it, an administrator, a failover of a database proxy);
 * - the leader frozen with SIGSTOP (a node that vanished, a suspended VM): nothing ends its
 *   session but the server's `idle_session_timeout` of one lease period.
 *
 * After each trial a new process joins, so three run again. The target is ≤ 15 s after the
 * leader's session is gone; the frozen case is measured from the freeze, so it includes the
 * lease period the server waits before it ends the session.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { emulatorSeed, generateRepository } from '../test/helpers/generate.js';
import { PG_PASSWORD, startPostgres } from '../test/helpers/postgres-server.js';
import { ACCESS_KEY, type DaemonProcess, type LogLine, startDaemon } from './daemon-process.js';
import { startEmulatorHost } from './emulator-host.js';
import { type BenchSection, count, median } from './section.js';

/** Resources of the repository the daemons manage (the time to lead hardly depends on it). */
const RESOURCES = 1000;
const KILLS = 10;
const CUTS = 3;
const FREEZES = 3;
const INSTANCE = 'bench';
/** docs/design.md: a standby leads within 15 s of the leader's session ending. */
const TARGET_MS = 15_000;

interface Spread {
  readonly samplesMs: readonly number[];
  readonly minMs: number;
  readonly medianMs: number;
  readonly maxMs: number;
}

function spread(samplesMs: readonly number[]): Spread {
  return {
    samplesMs,
    minMs: Math.min(...samplesMs),
    medianMs: median(samplesMs),
    maxMs: Math.max(...samplesMs),
  };
}

const elected = (line: LogLine) => line.event === 'leader.elected';

async function runFailoverBench(progress: (line: string) => void) {
  const root = mkdtempSync(join(tmpdir(), 'edgesync-bench-failover-'));
  const host = startEmulatorHost();
  const postgres = await startPostgres();
  const daemons: DaemonProcess[] = [];
  try {
    const repoDir = join(root, 'repo');
    mkdirSync(repoDir);
    const repo = generateRepository(repoDir, { resources: RESOURCES, reportOnlyShare: 0 });
    const emulator = await host.start({
      accessKey: ACCESS_KEY,
      seed: emulatorSeed(repo).seed,
      journal: false,
    });
    const url = await postgres.database();
    let started = 0;
    const join_ = async (): Promise<DaemonProcess> => {
      started += 1;
      const daemon = await startDaemon(repoDir, join(root, `state-${started}`), emulator.url, {
        state: ['--state-url', url, '--instance', INSTANCE],
        env: { PGPASSWORD: PG_PASSWORD },
      });
      // A standby never logs a start-up reconcile; its wait ends when it is stopped.
      daemon.startupFinished.catch(() => undefined);
      daemons.push(daemon);
      return daemon;
    };
    const alive = new Set<DaemonProcess>();
    for (const daemon of await Promise.all([join_(), join_(), join_()])) alive.add(daemon);
    let leader = await leaderOf(alive);
    await leader.startupFinished;

    /** Runs that ended other than `success` in a new leader's first reconcile (information). */
    const unsuccessful: string[] = [];
    /** Takes the leader away by `how`; returns ms from then to a survivor's `leader.elected`. */
    const trial = async (how: (gone: DaemonProcess) => Promise<void>): Promise<number> => {
      const survivors = [...alive].filter((d) => d !== leader);
      // Both waits registered before anything happens: the two lines may arrive in one chunk.
      const waits = survivors.map((d) => {
        const finished = d.next((line) => line.event === 'reconcile.finished', 120_000);
        finished.catch(() => undefined);
        return d.next(elected, 60_000).then((at) => ({ d, at, finished }));
      });
      // The survivors that do not lead this time keep waiting until they are stopped.
      for (const wait of waits) wait.catch(() => undefined);
      const next = Promise.race(waits);
      const gone = leader;
      const at = performance.now();
      await how(gone);
      const { d, at: electedAt, finished } = await next;
      alive.delete(gone);
      gone.kill('SIGKILL');
      await gone.exited;
      alive.add(await join_());
      leader = d;
      // It re-read the state and reconciled everything before the next trial takes it away.
      await finished.catch((err: unknown) => {
        const errors = [...alive].flatMap((daemon) =>
          daemon
            .lines()
            .filter((l) => l.event !== 'reconcile.finished')
            .map((l) => `${daemon.pid}: ${JSON.stringify(l)}`),
        );
        throw new Error(`${(err as Error).message}\n${errors.join('\n')}`);
      });
      const result = d.lines().findLast((line) => line.event === 'reconcile.finished')?.result;
      if (result !== 'success') unsuccessful.push(String(result));
      return electedAt - at;
    };

    const kills: number[] = [];
    for (let i = 0; i < KILLS; i += 1) {
      progress(`failover: kill -9 ${i + 1}/${KILLS}`);
      kills.push(await trial(async (gone) => gone.kill('SIGKILL')));
    }
    const admin = new pg.Client({ connectionString: postgres.withPassword(url) });
    await admin.connect();
    const cuts: number[] = [];
    try {
      for (let i = 0; i < CUTS; i += 1) {
        progress(`failover: lock session terminated ${i + 1}/${CUTS}`);
        cuts.push(
          await trial(async () => {
            await admin.query(
              `SELECT pg_terminate_backend(pid) FROM pg_locks
                WHERE locktype = 'advisory' AND granted AND objsubid = 1
                  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                  AND ((classid::bigint << 32) | objid::bigint) = hashtextextended('edgesync:' || $1, 0)`,
              [INSTANCE],
            );
          }),
        );
      }
    } finally {
      await admin.end();
    }
    const freezes: number[] = [];
    for (let i = 0; i < FREEZES; i += 1) {
      progress(`failover: leader frozen (SIGSTOP) ${i + 1}/${FREEZES}`);
      freezes.push(await trial(async (gone) => gone.kill('SIGSTOP')));
    }
    return {
      resources: RESOURCES,
      kill: spread(kills),
      cut: spread(cuts),
      freeze: spread(freezes),
      unsuccessful,
    };
  } finally {
    await Promise.all(daemons.map((d) => d.stop().catch(() => undefined)));
    await host.close();
    await postgres.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

/** The one daemon whose /status says it leads (waiting for the first election). */
async function leaderOf(daemons: ReadonlySet<DaemonProcess>): Promise<DaemonProcess> {
  const deadline = performance.now() + 60_000;
  while (performance.now() < deadline) {
    for (const daemon of daemons) {
      const doc = (await (await fetch(`${daemon.url}/status`)).json()) as { role?: string };
      if (doc.role === 'leader') return daemon;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('no daemon leads after 60 s');
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const line = (s: Spread) => `min ${seconds(s.minMs)}, median ${seconds(s.medianMs)}, max ${seconds(s.maxMs)}`;

export const failoverSection: BenchSection = {
  name: 'failover',
  async run(context) {
    const figures = await runFailoverBench((text) => context.progress(text));
    return {
      figures: [
        {
          figure: `failover after kill -9, ${KILLS} kills (max)`,
          target: '≤ 15 s',
          measured: seconds(figures.kill.maxMs),
          pass: figures.kill.maxMs <= TARGET_MS,
        },
        {
          figure: `failover after the lock session is terminated, ${CUTS} times (max)`,
          target: '≤ 15 s',
          measured: seconds(figures.cut.maxMs),
          pass: figures.cut.maxMs <= TARGET_MS,
        },
        {
          figure: `failover after the leader froze (SIGSTOP), ${FREEZES} times (max, from the freeze)`,
          target: '≤ 15 s',
          measured: seconds(figures.freeze.maxMs),
          pass: figures.freeze.maxMs <= TARGET_MS,
        },
      ],
      details: [
        `failover: three daemons on one PostgreSQL, default lease (10 s), ${count(RESOURCES)} resources; from the leader's loss to a standby's leader.elected`,
        `failover: kill -9: ${line(figures.kill)}`,
        `failover: lock session terminated: ${line(figures.cut)}`,
        `failover: frozen leader: ${line(figures.freeze)}`,
        `failover: new leaders' first reconciles that did not succeed: ${figures.unsuccessful.length === 0 ? 'none' : figures.unsuccessful.join(', ')}`,
      ],
      data: figures,
    };
  },
};
