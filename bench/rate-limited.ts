/**
 * Applying against a rate-limited API (docs/design.md, Targets): the emulator admits R requests a second
 * per key (`--rate-limit R`: a token bucket, burst R, 429 + Retry-After beyond it), and one
 * `reconcile(mode: 'apply')` of a repository of 1,000 resources, every one drifted, makes
 * 1,000 changes with the CLI's client settings and no `--max-rps`: the client has to learn
 * the pace from the 429s. Rated: the writes' rate (the apply phase, first write to last) ÷ R,
 * the failed changes, and the share of all requests the emulator refused with 429. The reads
 * before the writes count against the same limit; the whole run's rate is shown beside.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDesiredState } from '../src/config/loader.js';
import { emulatorSeed, generateRepository } from '../test/helpers/generate.js';
import { startEmulatorHost } from './emulator-host.js';
import { benchEngine, operations, seconds } from './engine.js';
import { type BenchSection, count } from './section.js';

const ACCESS_KEY = 'bench-access-key';
const CHANGES = 1000;

/** What the section measured (bench/results.json keeps it). */
interface RateLimitedFigures {
  readonly rateLimit: number;
  readonly concurrency: number;
  readonly changes: number;
  readonly failed: number;
  readonly wallMs: number;
  readonly applyMs: number;
  /** Changes per second of the apply phase ÷ the rate limit: the target is ≥ 0.9. */
  readonly writeRatio: number;
  /** Changes per second of the whole run (reads included) ÷ the rate limit. */
  readonly wholeRunRatio: number;
  /** Requests the emulator admitted and refused over the run. */
  readonly admitted: number;
  readonly limited: number;
  /** limited ÷ (admitted + limited): the target is ≤ 5 %. */
  readonly limitedShare: number;
  /** The client's pace at the end (requests a second; undefined: unpaced). */
  readonly finalPaceRps: number | undefined;
  readonly byOperation: Readonly<Record<string, number>>;
}

async function runRateLimitedBench(
  rateLimit: number,
  concurrency: number,
  progress: (line: string) => void,
): Promise<RateLimitedFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'edgesync-bench-rate-'));
  const host = startEmulatorHost();
  try {
    const repo = generateRepository(dir, { resources: CHANGES, reportOnlyShare: 0 });
    const desired = await loadDesiredState(dir);
    const drifted = emulatorSeed(repo, { drift: repo.resources.length });
    progress(`rate-limited apply: ${count(CHANGES)} changes, emulator --rate-limit ${rateLimit}`);
    const emu = await host.start({ accessKey: ACCESS_KEY, seed: drifted.seed, journal: false, rateLimit });
    const engine = benchEngine(desired, { url: emu.url, accessKey: ACCESS_KEY, concurrency });
    const run = await engine.run();
    await engine.close();
    const { admitted, limited } = await emu.rateLimitCounts();
    await emu.stop();
    const changes = run.counts.applied ?? 0;
    return {
      rateLimit,
      concurrency,
      changes,
      failed: run.counts.failed ?? 0,
      wallMs: run.wallMs,
      applyMs: run.writesMs,
      writeRatio: changes / (run.writesMs / 1000) / rateLimit,
      wholeRunRatio: changes / (run.wallMs / 1000) / rateLimit,
      admitted,
      limited,
      limitedShare: limited / (admitted + limited),
      finalPaceRps: run.pace.rps,
      byOperation: run.requests.byOperation,
    };
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export const rateLimitedSection: BenchSection = {
  name: 'rateLimited',
  async run(context) {
    const f = await runRateLimitedBench(context.rateLimit, context.concurrency, context.progress);
    const percent = (share: number) => `${(share * 100).toFixed(1)} %`;
    return {
      figures: [
        {
          figure: `apply ${count(f.changes)} changes against an emulator limited to R = ${f.rateLimit} req/s (no --max-rps): the writes' changes/s ÷ R`,
          target: '≥ 0.90',
          measured: `${f.writeRatio.toFixed(2)} (whole run, reads included: ${f.wholeRunRatio.toFixed(2)})`,
          pass: f.writeRatio >= 0.9,
        },
        {
          figure: 'the same: failed changes; requests answered 429',
          target: '0; ≤ 5 %',
          measured: `${f.failed}; ${percent(f.limitedShare)} (${count(f.limited)} of ${count(f.admitted + f.limited)})`,
          pass: f.failed === 0 && f.limitedShare <= 0.05,
        },
      ],
      details: [
        `rate-limited apply: R = ${f.rateLimit} req/s, concurrency ${f.concurrency}: ${count(f.changes)} applied, ${f.failed} failed in ${seconds(f.wallMs)} (writes ${seconds(f.applyMs)}); pace at the end ${f.finalPaceRps === undefined ? 'none' : `${f.finalPaceRps.toFixed(1)} req/s`}`,
        `  requests sent: ${operations(f.byOperation)}; emulator admitted ${count(f.admitted)}, refused ${count(f.limited)}`,
      ],
      data: f,
    };
  },
};
