/**
 * `npm run bench`: runs the benchmarks of design §6 that exist so far and writes their
 * figures to bench/results.json (merged by name, so other benchmarks can add theirs).
 * Not a test: nothing here fails on a slow machine; the figures are for the README.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { formatConfigLoadFigures, runConfigLoadBench } from './config-load.js';

const RESULTS = fileURLToPath(new URL('../../bench/results.json', import.meta.url));

const configLoad = await runConfigLoadBench();
process.stdout.write(`${formatConfigLoadFigures(configLoad)}\n`);

const previous: Record<string, unknown> = existsSync(RESULTS)
  ? JSON.parse(readFileSync(RESULTS, 'utf8'))
  : {};
writeFileSync(
  RESULTS,
  `${JSON.stringify({ ...previous, configLoad: { measuredAt: new Date().toISOString(), ...configLoad } }, null, 2)}\n`,
);
