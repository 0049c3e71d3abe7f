/**
 * `npm run bench`: runs the benchmark sections of design §6 and issue 6 and prints one table
 * (figure, target, measured, pass), then the details of each section. Not a test: nothing
 * fails on a slow machine; the figures are for the README.
 *
 *   BENCH_SIZE=N (default 10,000)  --concurrency C (default 8)  --section NAME (repeatable)
 *   --readme (write the table into README.md between its bench markers)
 *
 * Figures are merged into bench/results.json by section name, so a run of one section keeps
 * the others' last figures. Adding a benchmark is one more entry in SECTIONS.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { configLoadSection } from './config-load.js';
import { latencySection } from './latency.js';
import { reconcileSection } from './reconcile.js';
import { type BenchSection, type Figure, markdownTable } from './section.js';

const SECTIONS: readonly BenchSection[] = [configLoadSection, reconcileSection, latencySection];

const RESULTS = fileURLToPath(new URL('../../bench/results.json', import.meta.url));
const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const README_START = '<!-- bench:table:start -->';
const README_END = '<!-- bench:table:end -->';

const { values } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '8' },
    section: { type: 'string', multiple: true },
    readme: { type: 'boolean', default: false },
  },
});
const size = Number(process.env.BENCH_SIZE ?? 10_000);
const concurrency = Number(values.concurrency);
if (!Number.isInteger(size) || size < 100) throw new Error('BENCH_SIZE must be an integer ≥ 100');
if (!Number.isInteger(concurrency) || concurrency < 1)
  throw new Error('--concurrency must be a positive integer');
const chosen = values.section ?? SECTIONS.map((s) => s.name);
const unknown = chosen.filter((name) => !SECTIONS.some((s) => s.name === name));
if (unknown.length > 0) throw new Error(`unknown section(s) ${unknown.join(', ')}`);

const context = {
  size,
  concurrency,
  progress: (line: string) => process.stderr.write(`bench: ${line}\n`),
};
const machine = `${availableParallelism()} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}`;
const figures: Figure[] = [];
const details: string[] = [];
const results: Record<string, unknown> = existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, 'utf8')) : {};
for (const section of SECTIONS.filter((s) => chosen.includes(s.name))) {
  const result = await section.run(context);
  figures.push(...result.figures);
  details.push(...result.details, '');
  results[section.name] = { measuredAt: new Date().toISOString(), machine, ...result.data };
}

const table = markdownTable(figures);
const command = `BENCH_SIZE=${size} npm run bench -- --concurrency ${concurrency}${values.section === undefined ? '' : values.section.map((s) => ` --section ${s}`).join('')}`;
process.stdout.write(`${table}\n\n${details.join('\n')}command: ${command}; ${machine}\n`);
writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);

if (values.readme) {
  const readme = readFileSync(README, 'utf8');
  const start = readme.indexOf(README_START);
  const end = readme.indexOf(README_END);
  if (start < 0 || end < start)
    throw new Error(`README.md lacks the ${README_START} … ${README_END} markers`);
  const block = `${README_START}\n\n${table}\n\n\`${command}\` on ${machine}, ${new Date().toISOString().slice(0, 10)}.\n\n`;
  writeFileSync(README, readme.slice(0, start) + block + readme.slice(end));
}
