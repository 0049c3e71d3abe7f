/**
 * The reconcile engine against the emulator (docs/design.md, Targets):
 *
 * - no-change reconcile of the headline repository against an account in sync: one cold run
 *   (empty state: every access list's content is read) and one warm run (the checksum hints
 *   the first left settle the contents), wall time and requests by operation, zero writes;
 * - information only: the same repository against an account where every resource drifted,
 *   one `reconcile(mode: 'apply')`; the writes' rate (the apply phase, first write to last)
 *   beside autocannon's req/s replaying the engine's E1 bodies on the same emulator at the
 *   same concurrency. The rate-limited section carries the throughput target.
 *
 * The emulator runs in a worker thread (`emulator-host.ts`), the engine and autocannon in this
 * thread, one after the other.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDesiredState } from '../src/config/loader.js';
import { emulatorSeed, generateRepository } from '../test/helpers/generate.js';
import { startEmulatorHost } from './emulator-host.js';
import { benchEngine, type EngineRun, e1Requests, operations, seconds } from './engine.js';
import { runLoad } from './load-tool.js';
import { type BenchSection, count } from './section.js';

const ACCESS_KEY = 'bench-access-key';
/** E1 requests of the engine's apply that autocannon replays. */
const REPLAYED_E1 = 1000;

/** What the section measured (bench/results.json keeps it). */
interface ReconcileFigures {
  readonly resources: number;
  readonly concurrency: number;
  readonly loadMs: number;
  readonly noChange: {
    readonly cold: Omit<EngineRun, 'plan'>;
    readonly warm: Omit<EngineRun, 'plan'>;
    /** Writes the emulator's journal saw over both runs. */
    readonly emulatorWrites: number;
  };
  readonly apply: {
    readonly changes: number;
    readonly failed: number;
    readonly wallMs: number;
    readonly applyMs: number;
    /** Changes per second of the apply phase. */
    readonly writesPerSecond: number;
    readonly autocannonRequestsPerSecond: number;
  };
}

function withoutPlan({ plan: _plan, ...run }: EngineRun): Omit<EngineRun, 'plan'> {
  return run;
}

async function runReconcileBench(
  resources: number,
  concurrency: number,
  progress: (line: string) => void,
): Promise<ReconcileFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'edgesync-bench-reconcile-'));
  const host = startEmulatorHost();
  try {
    // Every app writable: each drifted resource is then exactly one change.
    const repo = generateRepository(dir, { resources, reportOnlyShare: 0 });
    const loadStarted = performance.now();
    const desired = await loadDesiredState(dir);
    const loadMs = performance.now() - loadStarted;

    progress(`reconcile: no-change, ${count(resources)} resources`);
    const synced = await host.start({ accessKey: ACCESS_KEY, seed: emulatorSeed(repo).seed, journal: true });
    const engine = benchEngine(desired, { url: synced.url, accessKey: ACCESS_KEY, concurrency });
    const cold = await engine.run();
    const warm = await engine.run();
    await engine.close();
    const journal = await synced.journal();
    await synced.stop();
    if (journal.total !== cold.requests.total + warm.requests.total) {
      throw new Error(`the emulator saw ${journal.total} requests, the client counted otherwise`);
    }

    progress(`reconcile: apply, every resource drifted, then autocannon`);
    const drifted = emulatorSeed(repo, { drift: repo.resources.length });
    const emu = await host.start({ accessKey: ACCESS_KEY, seed: drifted.seed, journal: false });
    const applier = benchEngine(desired, { url: emu.url, accessKey: ACCESS_KEY, concurrency });
    const applied = await applier.run();
    await applier.close();
    const changes = applied.counts.applied ?? 0;
    // The same emulator, now in sync: the engine's E1 bodies, at the same concurrency, for as
    // long as its writes took (at least 3 s: autocannon needs a second to reach its pace).
    const load = await runLoad({
      url: emu.url,
      connections: concurrency,
      duration: Math.max(3, Math.ceil(applied.writesMs / 1000)),
      headers: { AccessKey: ACCESS_KEY },
      requests: e1Requests(applied.plan, REPLAYED_E1),
    });
    await emu.stop();
    return {
      resources: desired.resources.length,
      concurrency,
      loadMs,
      noChange: { cold: withoutPlan(cold), warm: withoutPlan(warm), emulatorWrites: journal.writes },
      apply: {
        changes,
        failed: applied.counts.failed ?? 0,
        wallMs: applied.wallMs,
        applyMs: applied.writesMs,
        writesPerSecond: changes / (applied.writesMs / 1000),
        autocannonRequestsPerSecond: load.requests.total / load.duration,
      },
    };
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** True when the warm no-change reads were batched: no per-rule or per-list GET. */
function batched(run: Omit<EngineRun, 'plan'>): boolean {
  const ops = run.requests.byOperation;
  return (ops.getCustomWafRule ?? 0) === 0 && (ops.getCustomAccessList ?? 0) === 0;
}

export const reconcileSection: BenchSection = {
  name: 'reconcile',
  async run(context) {
    const f = await runReconcileBench(context.size, context.concurrency, context.progress);
    const { cold, warm } = f.noChange;
    const n = count(f.resources);
    const ops = warm.requests.byOperation;
    const a = f.apply;
    return {
      figures: [
        {
          figure: `no-change reconcile of ${n} resources, warm (2nd run: checksum hints from the 1st)`,
          target: '≤ 2 s',
          measured: seconds(warm.wallMs),
          pass: warm.wallMs <= 2000,
        },
        {
          figure: 'no-change reconcile, cold (1st run, empty state: every list content read)',
          target: '',
          measured: seconds(cold.wallMs),
        },
        {
          figure: 'no-change reconcile: writes seen by the emulator (both runs); requests, warm',
          target: '0; batched',
          measured: `${f.noChange.emulatorWrites}; ${count(warm.requests.total)}: ${ops.listCustomWafRules ?? 0} rule listings, ${ops.listAccessLists ?? 0} list listings, ${ops.getApp ?? 0} app + ${ops.getDnsZone ?? 0} DNS GETs`,
          pass: f.noChange.emulatorWrites === 0 && batched(warm),
        },
        {
          figure: `information: apply ${count(a.changes)} changes, unlimited emulator, the writes' changes/s beside autocannon's req/s (E1, ${f.concurrency} connections)`,
          target: '',
          measured: `${count(a.writesPerSecond)} changes/s, autocannon ${count(a.autocannonRequestsPerSecond)} req/s (${(a.writesPerSecond / a.autocannonRequestsPerSecond).toFixed(2)})`,
        },
      ],
      details: [
        `reconcile: ${n} resources (load ${seconds(f.loadMs)}), concurrency ${f.concurrency}; emulator in a worker thread`,
        `  no-change cold ${seconds(cold.wallMs)}: ${cold.requests.total} requests (${operations(cold.requests.byOperation)})`,
        `  no-change warm ${seconds(warm.wallMs)}: ${warm.requests.total} requests (${operations(warm.requests.byOperation)})`,
        `  apply: ${count(a.changes)} applied, ${a.failed} failed in ${seconds(a.wallMs)} (writes ${seconds(a.applyMs)})`,
      ],
      data: f,
    };
  },
};
