/**
 * A paired comparison of the apply phase between two builds: this one (A) and another (B,
 * the `dist` directory of another checkout, e.g. a git worktree built at another commit).
 *
 *   npm run bench:ab -- OTHER_DIST [--rounds N] [--concurrency C] [--b-node-args="FLAGS"]
 *   (BENCH_SIZE=N resources, default 10,000)
 *
 * OTHER_DIST may be this build's own `dist`, with `--b-node-args` giving B's engine extra Node
 * flags (after `BENCH_ENGINE_NODE_ARGS`, which both sides get): one build, two V8 settings.
 *
 * Why it exists: on these shared machines the rate of one apply round swings by ±30 % from
 * minute to minute, so two benchmark runs taken ten minutes apart cannot show a 10 % change.
 * Here each side has its own engine process (loaded once, like the benchmark's), the two run
 * their rounds alternately (A B, B A, A B, …) against a fresh emulator with the same drifted
 * seed, and the figure is the median of each pair's B ÷ A: both sides of a pair ran within
 * seconds of each other. It prints each round's apply-phase changes/s, the whole run's engine
 * CPU per change and the peak RSS, then the paired ratios, their median and how many pairs
 * favour B. No autocannon: the question is which build is faster, not how fast either is.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { startEmulatorHost } from './emulator-host.js';
import { type EngineProcess, nodeArgs, startEngineProcess } from './engine-process.js';
import { emulatorSeed, generateRepository } from './generate.js';
import { applyRound } from './reconcile.js';
import { count, MB, median } from './section.js';

/** One apply round of one side. */
export interface AbRound {
  readonly side: 'A' | 'B';
  /** Pair number, from 0; each pair has one round of each side. */
  readonly pair: number;
  /** Changes ÷ the apply phase's wall time (the benchmark's rated figure, without autocannon). */
  readonly changesPerSecond: number;
  /** The engine process's CPU (all threads) over the whole reconcile, per change. */
  readonly cpuMicrosPerChange: number;
  readonly peakRssBytes: number;
  /** Share of the round the emulator thread was busy. */
  readonly emulatorBusy: number;
}

/** What the rounds say about B against A. */
export interface AbSummary {
  /** B's changes/s ÷ A's, per pair, in pair order. */
  readonly ratios: readonly number[];
  readonly medianRatio: number;
  /** Pairs where B was faster. */
  readonly favouringB: number;
  readonly a: SideSummary;
  readonly b: SideSummary;
}

export interface SideSummary {
  readonly medianChangesPerSecond: number;
  readonly medianCpuMicrosPerChange: number;
  readonly maxPeakRssBytes: number;
}

function side(rounds: readonly AbRound[]): SideSummary {
  return {
    medianChangesPerSecond: median(rounds.map((r) => r.changesPerSecond)),
    medianCpuMicrosPerChange: median(rounds.map((r) => r.cpuMicrosPerChange)),
    maxPeakRssBytes: Math.max(...rounds.map((r) => r.peakRssBytes)),
  };
}

/** Pairs each A round with the B round of the same pair number. Throws on an incomplete pair. */
export function pairedSummary(rounds: readonly AbRound[]): AbSummary {
  const a = rounds.filter((r) => r.side === 'A');
  const b = rounds.filter((r) => r.side === 'B');
  if (a.length === 0) throw new Error('no rounds to compare');
  const ratios = a.map((ra) => {
    const rb = b.find((r) => r.pair === ra.pair);
    if (rb === undefined) throw new Error(`pair ${ra.pair} has no B round`);
    return rb.changesPerSecond / ra.changesPerSecond;
  });
  if (b.length !== a.length) throw new Error(`${a.length} A rounds but ${b.length} B rounds`);
  return {
    ratios,
    medianRatio: median(ratios),
    favouringB: ratios.filter((ratio) => ratio > 1).length,
    a: side(a),
    b: side(b),
  };
}

export interface AbOptions {
  /** B's `dist` directory (holding `bench/engine-child.js`). */
  readonly otherDist: string;
  readonly pairs: number;
  readonly resources: number;
  readonly concurrency: number;
  /** Node flags for B's engine only, after the ones both sides get. */
  readonly bNodeArgs?: readonly string[];
  readonly log: (line: string) => void;
}

/** Runs the pairs and returns every round and the summary. */
export async function runAb(options: AbOptions): Promise<{ rounds: AbRound[]; summary: AbSummary }> {
  const dir = mkdtempSync(join(tmpdir(), 'edgesync-bench-ab-'));
  const host = startEmulatorHost();
  const engines: Record<'A' | 'B', EngineProcess> = {
    A: startEngineProcess(),
    B: startEngineProcess(
      pathToFileURL(join(options.otherDist, 'bench', 'engine-child.js')),
      options.bNodeArgs ?? [],
    ),
  };
  try {
    // Every app writable, every resource drifted: one change per resource, as in the benchmark.
    const repo = generateRepository(dir, { resources: options.resources, reportOnlyShare: 0 });
    const drifted = emulatorSeed(repo, { drift: repo.resources.length });
    const changes = drifted.drifted.length;
    // Which Node and flags each side runs on: with --b-node-args the flags are the difference.
    options.log(`A: ${(await engines.A.load(dir)).node}`);
    options.log(`B: ${(await engines.B.load(dir)).node}`);

    const rounds: AbRound[] = [];
    for (let pair = 0; pair < options.pairs; pair += 1) {
      // Alternate which side goes first, so neither always runs on a host just warmed or slowed.
      const order: ('A' | 'B')[] = pair % 2 === 0 ? ['A', 'B'] : ['B', 'A'];
      for (const name of order) {
        const { emu, run, emulatorBusy } = await applyRound(host, engines[name], {
          seed: drifted.seed,
          changes,
          concurrency: options.concurrency,
          who: `side ${name}`,
        });
        await emu.stop();
        const round: AbRound = {
          side: name,
          pair,
          changesPerSecond: changes / (run.phases.applyMs / 1000),
          cpuMicrosPerChange: (run.cpuMs * 1000) / changes,
          peakRssBytes: run.peakRssBytes,
          emulatorBusy,
        };
        rounds.push(round);
        options.log(
          `${name} pair ${pair + 1}: ${count(round.changesPerSecond)} changes/s (apply phase), ${count(round.cpuMicrosPerChange)} µs CPU/change (whole run), peak RSS ${count(round.peakRssBytes / MB)} MB, emulator busy ${(round.emulatorBusy * 100).toFixed(0)} %`,
        );
      }
    }
    return { rounds, summary: pairedSummary(rounds) };
  } finally {
    await Promise.all([engines.A, engines.B].map((engine) => engine.exit().catch(() => 0)));
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The summary as the command prints it. */
export function summaryLines(summary: AbSummary): string[] {
  const sideLine = (name: string, s: SideSummary) =>
    `${name}: median ${count(s.medianChangesPerSecond)} changes/s, ${count(s.medianCpuMicrosPerChange)} µs CPU/change, peak RSS up to ${count(s.maxPeakRssBytes / MB)} MB`;
  return [
    sideLine('A (this build)', summary.a),
    sideLine('B (other build)', summary.b),
    `B ÷ A per pair: ${summary.ratios.map((ratio) => ratio.toFixed(2)).join(' ')}`,
    `median B ÷ A ${summary.medianRatio.toFixed(3)}; B faster in ${summary.favouringB} of ${summary.ratios.length} pairs`,
  ];
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      rounds: { type: 'string', default: '10' },
      concurrency: { type: 'string', default: '8' },
      'b-node-args': { type: 'string', default: '' },
    },
  });
  const otherDist = positionals[0];
  if (otherDist === undefined)
    throw new Error(
      'usage: node dist/bench/ab.js OTHER_DIST [--rounds N] [--concurrency C] [--b-node-args="FLAGS"]',
    );
  const resources = Number(process.env.BENCH_SIZE ?? 10_000);
  const { summary } = await runAb({
    otherDist,
    pairs: Number(values.rounds),
    resources,
    concurrency: Number(values.concurrency),
    bNodeArgs: nodeArgs(values['b-node-args']),
    log: (line) => console.log(line),
  });
  for (const line of summaryLines(summary)) console.log(line);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
