/**
 * The desired-state loader (docs/design.md, Targets): a cold load + validate of the generated repository, in
 * one process, against the floor, which is the `yaml` package alone parsing the same files in
 * one thread, measured in the same run; and the re-validation after one file changed, through
 * the daemon's incremental loader. Each round measures the floor and then the loader back to
 * back, and the figure is the median of the rounds' ratios: a shared host slows down in
 * bursts of seconds, which such a pair mostly shares, where a ratio of two medians mixes the
 * rounds of a quiet moment with those of a busy one.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LineCounter, parseAllDocuments } from 'yaml';
import { createDesiredStateLoader } from '../src/config/loader.js';
import { generateRepository } from '../test/helpers/generate.js';
import { type BenchSection, count, median } from './section.js';

/** What the config-load benchmark measured (milliseconds unless named otherwise). */
interface ConfigLoadFigures {
  readonly resources: number;
  readonly files: number;
  readonly yamlBytes: number;
  readonly rounds: number;
  /** `yaml` alone: read + parseAllDocuments (with a LineCounter) of every file, one thread. */
  readonly yamlParseMs: number;
  /** createDesiredStateLoader().load(): walk, read, parse, validate, canonicalise, rules. */
  readonly coldLoadMs: number;
  /** Median over the rounds of load ÷ floor measured back to back: the target is ≤ 1.5. */
  readonly ratio: number;
  /** Each round's ratio, in order. */
  readonly roundRatios: readonly number[];
  /** Median re-validation after one rules file changed (the daemon's loader, warm cache). */
  readonly incrementalMs: number;
  readonly incrementalSamples: number;
}

function yamlFloor(dir: string, files: readonly string[]): number {
  const started = performance.now();
  for (const file of files) {
    parseAllDocuments(readFileSync(join(dir, file), 'utf8'), { lineCounter: new LineCounter() });
  }
  return performance.now() - started;
}

async function timeLoad(dir: string): Promise<number> {
  const started = performance.now();
  await createDesiredStateLoader().load(dir);
  return performance.now() - started;
}

/**
 * Generates a repository of `resources` resources in a temp dir, measures, removes it.
 * `rounds` cold measurements of each variant, `incrementalSamples` one-file reloads.
 */
async function runConfigLoadBench(
  resources = 10_000,
  rounds = 9,
  incrementalSamples = 20,
): Promise<ConfigLoadFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'edgesync-bench-config-'));
  try {
    const repo = generateRepository(dir, { resources });
    // Warm-up: JIT and file cache, for both sides alike.
    yamlFloor(dir, repo.yamlFiles);
    await timeLoad(dir);

    const floor: number[] = [];
    const cold: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      floor.push(yamlFloor(dir, repo.yamlFiles));
      cold.push(await timeLoad(dir));
    }

    const loader = createDesiredStateLoader();
    await loader.load(dir);
    const edited = repo.yamlFiles.find((file) => file.includes('/rules-')) as string;
    const original = readFileSync(join(dir, edited), 'utf8');
    const incremental: number[] = [];
    for (let sample = 0; sample < incrementalSamples; sample += 1) {
      // A one-rule edit, as a commit touching one rule would make.
      writeFileSync(join(dir, edited), original.replace('ruleName: ', `ruleName: v${sample} `));
      const started = performance.now();
      const result = await loader.load(dir);
      incremental.push(performance.now() - started);
      if (result.stats.parsed !== 1 || result.changes.changed.length !== 1) {
        throw new Error(
          `incremental load did not re-parse exactly one file: ${JSON.stringify(result.stats)}`,
        );
      }
    }

    const roundRatios = cold.map((ms, round) => ms / (floor[round] as number));
    return {
      resources,
      files: repo.yamlFiles.length,
      yamlBytes: repo.yamlBytes,
      rounds,
      yamlParseMs: median(floor),
      coldLoadMs: median(cold),
      ratio: median(roundRatios),
      roundRatios,
      incrementalMs: median(incremental),
      incrementalSamples,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The loader against the `yaml` floor, and the incremental reload. */
export const configLoadSection: BenchSection = {
  name: 'configLoad',
  async run(context) {
    context.progress(`config load: ${context.size} resources`);
    const f = await runConfigLoadBench(context.size);
    const ms = (value: number): string => `${value.toFixed(0)} ms`;
    return {
      figures: [
        {
          figure: `load + validate ${count(f.resources)} resources, cold, one process, ÷ \`yaml\` parse alone (one thread)`,
          target: '≤ 1.50',
          measured: `${f.ratio.toFixed(2)} (medians ${ms(f.coldLoadMs)} ÷ ${ms(f.yamlParseMs)})`,
          pass: f.ratio <= 1.5,
        },
        {
          figure: `re-validation after one file changed (median of ${f.incrementalSamples})`,
          target: '≤ 50 ms',
          measured: `${f.incrementalMs.toFixed(1)} ms`,
          pass: f.incrementalMs <= 50,
        },
      ],
      details: [
        `config load: ${count(f.resources)} resources, ${f.files} files, ${(f.yamlBytes / 1e6).toFixed(2)} MB of YAML, median of ${f.rounds} rounds; each round's load ÷ floor: ${f.roundRatios.map((r) => r.toFixed(2)).join(' ')}`,
      ],
      data: f,
    };
  },
};
