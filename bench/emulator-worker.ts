/**
 * Worker thread of the emulator throughput benchmark: builds a large seed, starts two
 * emulators (journal on, journal off) and reports their URLs. Running the emulator in its
 * own thread keeps autocannon's client work off the emulator's event loop, as it would be
 * with a separate process, while staying in one process.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { EmulatorSeed } from '../src/emulator/index.js';
import { startEmulator } from '../src/emulator/index.js';

/** What the main thread sends: the key and the seed size. */
export interface WorkerInput {
  accessKey: string;
  zones: number;
  rulesPerZone: number;
  apps: number;
  dnsZones: number;
}

/** A seed of `zones × rulesPerZone` custom rules, two lists per zone, `apps` apps and `dnsZones` zones. */
export function benchSeed(input: WorkerInput): EmulatorSeed {
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

const input = workerData as WorkerInput;
const seed = benchSeed(input);
const withJournal = await startEmulator({ accessKey: input.accessKey, seed, journal: true });
const withoutJournal = await startEmulator({ accessKey: input.accessKey, seed, journal: false });
parentPort?.postMessage({
  journalOn: withJournal.url,
  journalOff: withoutJournal.url,
  counts: withJournal.state.counts(),
});
parentPort?.on('message', async (message: unknown) => {
  if (message === 'stop') {
    parentPort?.postMessage({ journalEntries: withJournal.journal.count() });
    await withJournal.close();
    await withoutJournal.close();
    parentPort?.close();
  }
});
