/**
 * Emulator throughput: GET requests per second on loopback, with the journal on and off.
 *
 *   npm run build && node dist/bench/emulator-throughput.js [--duration S] [--connections N]
 *
 * The emulator runs in a worker thread of this process with a seed of a few thousand objects;
 * autocannon drives it from the main thread. The target (design.md §5, the emulator brief) is
 * ≥ 5,000 GET req/s for one emulator.
 */
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import type { WorkerInput } from './emulator-worker.js';

/** The part of autocannon's result the benchmark reads (the package ships no types). */
interface AutocannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

// autocannon is CommonJS without types; require it rather than add a declaration shim.
const autocannon = createRequire(import.meta.url)('autocannon') as (options: {
  url: string;
  connections: number;
  duration: number;
  headers: Record<string, string>;
}) => Promise<AutocannonResult>;

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '8' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const accessKey = 'bench-key';
const input: WorkerInput = { accessKey, zones: 50, rulesPerZone: 100, apps: 500, dnsZones: 500 };

const worker = new Worker(new URL('./emulator-worker.js', import.meta.url), { workerData: input });
const ready = await new Promise<{ journalOn: string; journalOff: string; counts: Record<string, number> }>(
  (resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  },
);

const ROUTES = [
  { name: 'GET /mc/apps/{id}', path: '/mc/apps/app250' },
  { name: 'GET /shield/waf/custom-rules/{sz} (10 per page)', path: '/shield/waf/custom-rules/25?page=3' },
  {
    name: 'GET /shield/waf/custom-rules/{sz} (100 per page)',
    path: '/shield/waf/custom-rules/25?perPage=100',
  },
  { name: 'GET /dnszone/{id}', path: '/dnszone/250' },
];

process.stdout.write(
  `seed: ${JSON.stringify(ready.counts)}\nautocannon: ${connections} connections, ${duration} s per run\n\n`,
);
const rows: string[] = [];
for (const journal of ['on', 'off'] as const) {
  const base = journal === 'on' ? ready.journalOn : ready.journalOff;
  for (const route of ROUTES) {
    const result = await autocannon({
      url: `${base}${route.path}`,
      connections,
      duration,
      headers: { AccessKey: accessKey },
    });
    const failed = result.non2xx + result.errors + result.timeouts;
    const row = `journal ${journal.padEnd(3)}  ${route.name.padEnd(50)} ${Math.round(result.requests.average)
      .toString()
      .padStart(
        7,
      )} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms${failed > 0 ? `  FAILED ${failed}` : ''}`;
    rows.push(row);
    process.stdout.write(`${row}\n`);
  }
}

worker.postMessage('stop');
const stopped = await new Promise<{ journalEntries: number }>((resolve) => worker.once('message', resolve));
process.stdout.write(`\njournal entries recorded by the journal-on emulator: ${stopped.journalEntries}\n`);
await worker.terminate();
