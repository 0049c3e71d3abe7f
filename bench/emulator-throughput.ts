/**
 * Emulator throughput: GET requests per second on loopback, with the journal on and off.
 *
 *   npm run build && node dist/bench/emulator-throughput.js [--duration S] [--connections N]
 *
 * The emulators (journal on, journal off) run in a worker thread of this process
 * (`emulator-host.ts`) with a seed of a few thousand objects; autocannon drives them from the
 * main thread. The target (design.md §5, the emulator brief) is
 * ≥ 5,000 GET req/s for one emulator.
 */
import { parseArgs } from 'node:util';
import type { EmulatorSeed } from '../src/emulator/index.js';
import { startEmulatorHost } from './emulator-host.js';
import { runLoad } from './load-tool.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '8' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
/** Size of the throughput benchmark's seed. */
interface SeedSize {
  zones: number;
  rulesPerZone: number;
  apps: number;
  dnsZones: number;
}

/** A seed of `zones × rulesPerZone` custom rules, two lists per zone, `apps` apps and `dnsZones` zones. */
function benchSeed(input: SeedSize): EmulatorSeed {
  const shieldZones = [];
  for (let z = 0; z < input.zones; z += 1) {
    const customRules = [];
    for (let r = 0; r < input.rulesPerZone; r += 1) {
      customRules.push({
        id: 100_000 + z * input.rulesPerZone + r,
        ruleName: `rule ${z}-${r}`,
        ruleDescription: 'generated',
        ruleConfiguration: {
          actionType: 1,
          operatorType: 2,
          severityType: 1,
          variableTypes: { REQUEST_URI: '' },
          transformationTypes: [8, 19],
          value: `/path/${r}`,
          isNegated: false,
        },
      });
    }
    shieldZones.push({
      id: 1 + z,
      customRules,
      customAccessLists: [
        { id: 50_000 + z * 2, name: 'ips', type: 'CIDR', content: '192.0.2.0/24\n198.51.100.0/24' },
        { id: 50_001 + z * 2, name: 'countries', type: 'Country', entries: ['KP', 'IR'] },
      ],
    });
  }
  const apps = [];
  for (let a = 0; a < input.apps; a += 1) {
    apps.push({
      id: `app${a}`,
      name: `app ${a}`,
      containerTemplates: [
        {
          name: 'web',
          imageRegistryId: '1',
          imageNamespace: 'acme',
          imageName: 'web',
          imageTag: '1.0.0',
          environmentVariables: [{ name: 'LOG_LEVEL', value: 'info' }],
          endpoints: [
            { displayName: `web-${a}`, cdn: { isSslEnabled: true, portMappings: [{ containerPort: 8080 }] } },
          ],
        },
      ],
      volumes: [{ name: 'data', size: 10 }],
    });
  }
  const dnsZones = [];
  for (let d = 0; d < input.dnsZones; d += 1) dnsZones.push({ id: 1 + d, domain: `zone${d}.example` });
  return { shieldZones, apps, dnsZones };
}

const accessKey = 'bench-key';
const host = startEmulatorHost();
const seed = benchSeed({ zones: 50, rulesPerZone: 100, apps: 500, dnsZones: 500 });
const withJournal = await host.start({ accessKey, seed, journal: true });
const withoutJournal = await host.start({ accessKey, seed, journal: false });

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
  `seed: ${JSON.stringify(withJournal.counts)}\nautocannon: ${connections} connections, ${duration} s per run\n\n`,
);
for (const journal of ['on', 'off'] as const) {
  const base = journal === 'on' ? withJournal.url : withoutJournal.url;
  for (const route of ROUTES) {
    const result = await runLoad({
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
    process.stdout.write(`${row}\n`);
  }
}

const journal = await withJournal.journal();
process.stdout.write(`\njournal entries recorded by the journal-on emulator: ${journal.total}\n`);
await host.close();
