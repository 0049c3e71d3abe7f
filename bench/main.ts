/**
 * `npm run bench`: runs the benchmark sections (docs/performance.md) and prints one table
 * (figure, target, measured, pass), then the details of each section. Not a test: nothing
 * fails on a slow machine; the figures go to docs/performance.md.
 *
 *   BENCH_SIZE=N (default 10,000)  --concurrency C (default 8)  --rate-limit R (default 100)
 *   --section NAME (repeatable: configLoad, reconcile, rateLimited, latency, scale, failover)
 *   --scale-sizes 1000,10000,… (the scale section's repositories; default 1k, 10k, 30k, 100k)
 *   --record (write the figures into bench/results.json)
 *
 * Only a run of record (`--record`) rewrites the tracked bench/results.json, merged by
 * section name (results-file.ts); a run at another size or of one section while working on
 * the code leaves it alone. Adding a benchmark is one more entry in SECTIONS.
 */
import { availableParallelism, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { configLoadSection } from './config-load.js';
import { failoverSection } from './failover.js';
import { latencySection } from './latency.js';
import { rateLimitedSection } from './rate-limited.js';
import { reconcileSection } from './reconcile.js';
import { type SectionResults, saveResults } from './results-file.js';
import { SCALE_SIZES, scaleSection } from './scale.js';
import { type BenchSection, type Figure, markdownTable } from './section.js';

const SECTIONS: readonly BenchSection[] = [
  configLoadSection,
  reconcileSection,
  rateLimitedSection,
  latencySection,
  scaleSection,
  failoverSection,
];

const RESULTS = fileURLToPath(new URL('../../bench/results.json', import.meta.url));

const { values } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '8' },
    'rate-limit': { type: 'string', default: '100' },
    section: { type: 'string', multiple: true },
    'scale-sizes': { type: 'string', default: SCALE_SIZES.join(',') },
    record: { type: 'boolean', default: false },
  },
});
const size = Number(process.env.BENCH_SIZE ?? 10_000);
const concurrency = Number(values.concurrency);
const rateLimit = Number(values['rate-limit']);
if (!Number.isInteger(size) || size < 100) throw new Error('BENCH_SIZE must be an integer ≥ 100');
if (!Number.isInteger(concurrency) || concurrency < 1)
  throw new Error('--concurrency must be a positive integer');
if (!Number.isInteger(rateLimit) || rateLimit < 1) throw new Error('--rate-limit must be a positive integer');
const scaleSizes = (values['scale-sizes'] as string).split(',').map(Number);
if (scaleSizes.some((n) => !Number.isInteger(n) || n < 100))
  throw new Error('--scale-sizes must be integers ≥ 100, separated by commas');
const chosen = values.section ?? SECTIONS.map((s) => s.name);
const unknown = chosen.filter((name) => !SECTIONS.some((s) => s.name === name));
if (unknown.length > 0) throw new Error(`unknown section(s) ${unknown.join(', ')}`);

const context = {
  size,
  concurrency,
  rateLimit,
  scaleSizes,
  progress: (line: string) => process.stderr.write(`bench: ${line}\n`),
};
const machine = `${availableParallelism()} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}`;
const figures: Figure[] = [];
const details: string[] = [];
const results: Record<string, SectionResults> = {};
for (const section of SECTIONS.filter((s) => chosen.includes(s.name))) {
  const result = await section.run(context);
  figures.push(...result.figures);
  details.push(...result.details, '');
  results[section.name] = { measuredAt: new Date().toISOString(), machine, ...result.data };
}

const sections = values.section === undefined ? '' : values.section.map((s) => ` --section ${s}`).join('');
const scale = chosen.includes(scaleSection.name) ? ` --scale-sizes ${scaleSizes.join(',')}` : '';
const record = values.record ? ' --record' : '';
const command = `BENCH_SIZE=${size} npm run bench -- --concurrency ${concurrency} --rate-limit ${rateLimit}${sections}${scale}${record}`;
process.stdout.write(`${markdownTable(figures)}\n\n${details.join('\n')}command: ${command}; ${machine}\n`);
if (!saveResults(RESULTS, results, { record: values.record === true })) {
  process.stderr.write('bench: bench/results.json left as it was (pass --record for a run of record)\n');
}
