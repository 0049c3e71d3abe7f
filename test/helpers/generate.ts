/**
 * Generates a realistic desired-state repository of any size, for the benchmarks and the tests
 * that need a big one: Shield Zones with many WAF rules and access lists (inline and
 * entriesFile), managed lists, container apps and DNS zones, laid out like `config-examples/`. Deterministic: the same options give the
 * same bytes, so figures from two runs compare like with like.
 *
 * Every resource also carries the live object that matches it, so `emulatorSeed` can build
 * the account an emulator starts with: in sync with the files, or with any number of
 * resources drifted (the changes a reconcile then has to make).
 *
 * This file lays the repository out and writes it; the documents come from
 * `generate-shield-documents.ts` and `generate-app-and-dns-documents.ts`, the live account from
 * `generate-emulator-seed.ts`, the shapes they share from `generated-repository.ts`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';
import { EMULATOR_SEED_PATH, type EmulatorSeed } from '../../src/emulator/index.js';
import { appId, containerApp, dnsZone } from './generate-app-and-dns-documents.js';
import { accessList, entries, managedList, wafRule } from './generate-shield-documents.js';
import type { GeneratedDocument, GeneratedRepository, GeneratedResource } from './generated-repository.js';
import { prng } from './prng.js';

export { emulatorSeed } from './generate-emulator-seed.js';
export type {
  GeneratedRepository,
  GeneratedResource,
} from './generated-repository.js';
export { prng } from './prng.js';

/** How many resources of each kind to write, and how they are spread over files. */
export interface GenerateOptions {
  /** Total resources (default 10,000); split 80 % WAF rules, 6 % access lists, 2 % managed lists, 4 % apps, 8 % DNS zones. */
  readonly resources?: number;
  /** Shield Zones the WAF rules and lists are spread over (default 50). */
  readonly shieldZones?: number;
  /** WAF rules per rules file (default 55: three files per zone, ~32 KB each). */
  readonly rulesPerFile?: number;
  /** Seed of the pseudo-random choices (default 1). */
  readonly seed?: number;
  /**
   * Share of container apps marked `metadata.drift: report` (default 0.1). The benchmarks of
   * reconciles and the fault suite use 0, so that every drifted resource is one change.
   */
  readonly reportOnlyShare?: number;
}

/** The modeline config-examples files carry, for a file `depth` folders deep. */
function schemaModeline(depth: number): string {
  return `# yaml-language-server: $schema=${'../'.repeat(depth)}schema/edgesync.schema.json\n`;
}

/**
 * Writes a repository into `dir` (which should be empty) and describes it. Files are written
 * synchronously: this runs before any measurement starts.
 */
export function generateRepository(dir: string, options: GenerateOptions = {}): GeneratedRepository {
  const total = options.resources ?? 10_000;
  const zones = options.shieldZones ?? 50;
  const rulesPerFile = options.rulesPerFile ?? 55;
  const random = prng(options.seed ?? 1);
  const reportOnlyShare = options.reportOnlyShare ?? 0.1;
  const counts = {
    WafCustomRule: 0,
    AccessList: 0,
    ManagedAccessList: 0,
    ContainerApp: 0,
    DnsZone: 0,
  };
  const wanted = {
    WafCustomRule: Math.round(total * 0.8),
    AccessList: Math.round(total * 0.06),
    ManagedAccessList: Math.round(total * 0.02),
    ContainerApp: Math.round(total * 0.04),
  };
  const dnsZones =
    total - wanted.WafCustomRule - wanted.AccessList - wanted.ManagedAccessList - wanted.ContainerApp;
  const files = new Map<string, string[]>();
  const resources: GeneratedResource[] = [];
  const shieldZoneIds = Array.from({ length: zones }, (_, i) => 4200 + i);

  function add(file: string, written: GeneratedDocument, ids: Record<string, number | string>): void {
    const docs = files.get(file) ?? [];
    docs.push(written.text);
    files.set(file, docs);
    const { kind } = written.live;
    counts[kind] += 1;
    resources.push({
      kind,
      name: written.name,
      file,
      ids,
      reportOnly: written.reportOnly ?? false,
      live: written.live,
    });
  }

  let ruleId = 310_000;
  let listId = 9000;
  for (const [z, zone] of shieldZoneIds.entries()) {
    const share = (n: number): number => Math.floor(n / zones) + (z < n % zones ? 1 : 0);
    const rules = share(wanted.WafCustomRule);
    for (let r = 0; r < rules; r += 1) {
      ruleId += 1 + Math.floor(random() * 3);
      const file = `shield/zone-${zone}/rules-${Math.floor(r / rulesPerFile) + 1}.yaml`;
      add(file, wafRule(random, zone, ruleId, r), { id: ruleId, shieldZoneId: zone });
    }
    const lists = share(wanted.AccessList);
    for (let l = 0; l < lists; l += 1) {
      listId += 1;
      let entriesFile: { path: string; entries: string[] } | undefined;
      if (l % 3 === 0) {
        const listFile = `lists/zone-${zone}-${l}.txt`;
        const body = entries(random, 20 + Math.floor(random() * 40));
        entriesFile = { path: `../../${listFile}`, entries: body };
        writeText(join(dir, listFile), `# partner ranges for zone ${zone}\n\n${body.join('\n')}\n`);
      }
      add(`shield/zone-${zone}/access-lists.yaml`, accessList(random, zone, listId, l, entriesFile), {
        id: listId,
        shieldZoneId: zone,
      });
    }
    const managed = share(wanted.ManagedAccessList);
    for (let m = 0; m < managed; m += 1) {
      add(`shield/zone-${zone}/access-lists.yaml`, managedList(zone, 500 + m, m), {
        listId: 500 + m,
        shieldZoneId: zone,
      });
    }
  }
  for (let a = 0; a < wanted.ContainerApp; a += 1) {
    const id = appId(random);
    add(`apps/team-${(a % 10) + 1}.yaml`, containerApp(random, a, id, reportOnlyShare), {
      appId: id,
    });
  }
  for (let d = 0; d < dnsZones; d += 1) {
    add(`dns/zones-${(d % 4) + 1}.yaml`, dnsZone(random, 700_000 + d, d), { id: 700_000 + d });
  }

  let yamlBytes = 0;
  for (const [file, docs] of files) {
    const text = schemaModeline(file.split('/').length - 1) + docs.join('');
    yamlBytes += Buffer.byteLength(text);
    writeText(join(dir, file), text);
  }
  return {
    dir,
    yamlFiles: [...files.keys()].sort(),
    yamlBytes,
    counts,
    shieldZoneIds,
    resources,
  };
}

/**
 * Writes `seed` under the repository where `edgesync run --emulator` looks for it
 * (EMULATOR_SEED_PATH); returns the file's path.
 */
export function writeEmulatorSeed(dir: string, seed: EmulatorSeed): string {
  const path = join(dir, EMULATOR_SEED_PATH);
  writeText(path, stringify(seed));
  return path;
}

function writeText(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}
