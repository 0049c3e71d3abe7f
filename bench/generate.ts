/**
 * Generates a realistic desired-state repository of any size, for the benchmarks: Shield Zones
 * with many WAF rules and access lists (inline and entriesFile), managed lists, container apps
 * and DNS zones, laid out like `config-examples/`. Deterministic: the same options give the
 * same bytes, so figures from two runs compare like with like.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

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
}

/** What was written: enough for a benchmark to describe the repository and to seed an emulator. */
export interface GeneratedRepository {
  readonly dir: string;
  /** Relative paths of the YAML files written, sorted. */
  readonly yamlFiles: readonly string[];
  /** Relative paths of the access-list entry files written, sorted. */
  readonly listFiles: readonly string[];
  /** Total bytes of the YAML files. */
  readonly yamlBytes: number;
  readonly counts: Readonly<Record<GeneratedKind, number>>;
  readonly shieldZoneIds: readonly number[];
  /** Every resource written, by kind and metadata.name, with the live ids it targets. */
  readonly resources: readonly GeneratedResource[];
}

/** The kinds the generator writes (all of them). */
export type GeneratedKind = 'WafCustomRule' | 'AccessList' | 'ManagedAccessList' | 'ContainerApp' | 'DnsZone';

/** One generated resource: its subject parts and the ids an emulator seed needs. */
export interface GeneratedResource {
  readonly kind: GeneratedKind;
  readonly name: string;
  readonly file: string;
  readonly ids: Readonly<Record<string, number | string>>;
}

/** The modeline config-examples files carry, for a file `depth` folders deep. */
function schemaModeline(depth: number): string {
  return `# yaml-language-server: $schema=${'../'.repeat(depth)}schema/edgesync.schema.json\n`;
}

/** mulberry32: a tiny seeded PRNG, so the repository is the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

const RULE_SHAPES = [
  {
    title: 'Block SQLi on',
    operator: 'DETECTSQLI',
    variables: ['REQUEST_URI', 'ARGS', 'REQUEST_BODY'],
    transformations: '[URLDECODE, LOWERCASE]',
  },
  {
    title: 'Block XSS on',
    operator: 'DETECTXSS',
    variables: ['ARGS', 'REQUEST_COOKIES'],
    transformations: '[URLDECODE, HTMLENTITYDECODE, JSDECODE]',
  },
  {
    title: 'Challenge scanners on',
    operator: 'RX',
    variables: ['REQUEST_HEADERS'],
    transformations: '[LOWERCASE]',
  },
  {
    title: 'Log odd methods on',
    operator: 'WITHIN',
    variables: ['REQUEST_METHOD'],
    transformations: '[]',
  },
  {
    title: 'Block path traversal on',
    operator: 'CONTAINS',
    variables: ['REQUEST_URI_RAW', 'REQUEST_FILENAME'],
    transformations: '[URLDECODEUNI, NORMALIZEPATH]',
  },
] as const;

const PATHS = [
  '/login',
  '/api/v1/orders',
  '/checkout',
  '/admin',
  '/search',
  '/wp-admin',
  '/graphql',
  '/cart',
];
const ACTIONS = ['Block', 'Log', 'Challenge', 'Block', 'Block'];
const SEVERITIES = ['NOTICE', 'WARNING', 'CRITICAL'];
const REGIONS = ['DE', 'NY', 'SG', 'LA', 'UK', 'SYD', 'JP', 'BR'];

function wafRule(random: () => number, zone: number, ruleId: number, index: number): [string, string] {
  const shape = pick(random, RULE_SHAPES);
  const path = pick(random, PATHS);
  const name = `z${zone}-r${index}-${shape.operator.toLowerCase()}`;
  const variables = shape.variables.map((v) => `      ${v}: ""`).join('\n');
  const chained =
    random() < 0.5
      ? `
    chainedRuleConditions:
      - variableTypes: { REQUEST_URI: "" }
        operatorType: BEGINSWITH
        value: ${path}
      - variableTypes: { REQUEST_METHOD: "" }
        operatorType: STREQ
        value: POST
        isNegated: ${random() < 0.3}`
      : '';
  const value =
    shape.operator === 'RX'
      ? `'(?i)(sqlmap|nikto|nmap|masscan)/[0-9.]+'`
      : shape.operator === 'WITHIN'
        ? '"TRACE TRACK DEBUG"'
        : shape.operator === 'CONTAINS'
          ? '"../"'
          : '""';
  const text = `---
apiVersion: edgesync/v1
kind: WafCustomRule
metadata:
  name: ${name}
spec:
  id: ${ruleId}
  shieldZoneId: ${zone}
  ruleName: ${shape.title} ${path} (${index})
  ruleDescription: Managed by edgesync; ${shape.title.toLowerCase()} ${path}
  ruleConfiguration:
    actionType: ${pick(random, ACTIONS)}
    operatorType: ${shape.operator}
    severityType: ${pick(random, SEVERITIES)}
    variableTypes:
${variables}
    transformationTypes: ${shape.transformations}
    value: ${value}
    isNegated: false${chained}
`;
  return [name, text];
}

function ipv4(random: () => number): string {
  const octet = (): number => Math.floor(random() * 254) + 1;
  return random() < 0.3
    ? `${octet()}.${octet()}.${octet()}.0/24`
    : `${octet()}.${octet()}.${octet()}.${octet()}`;
}

function entries(random: () => number, count: number): string[] {
  const seen = new Set<string>();
  while (seen.size < count) seen.add(ipv4(random));
  return [...seen];
}

function accessList(
  random: () => number,
  zone: number,
  listId: number,
  index: number,
  entriesFile: string | undefined,
): [string, string] {
  const name = `z${zone}-list-${index}`;
  const content =
    entriesFile !== undefined
      ? `  entriesFile: ${entriesFile}`
      : `  entries:\n${entries(random, 3 + Math.floor(random() * 8))
          .map((e) => `    - ${e}`)
          .join('\n')}`;
  const text = `---
apiVersion: edgesync/v1
kind: AccessList
metadata:
  name: ${name}
spec:
  shieldZoneId: ${zone}
  id: ${listId}
  name: Partner network ${index}
${content}
  enabled: true
  action: ${pick(random, ['Block', 'Allow', 'Challenge'])}
`;
  return [name, text];
}

function managedList(zone: number, listId: number, index: number): [string, string] {
  const name = `z${zone}-managed-${index}`;
  const text = `---
apiVersion: edgesync/v1
kind: ManagedAccessList
metadata:
  name: ${name}
spec:
  shieldZoneId: ${zone}
  listId: ${listId}
  enabled: true
  action: Block
`;
  return [name, text];
}

function appId(random: () => number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let id = '';
  for (let i = 0; i < 15; i += 1) id += pick(random, [...alphabet]);
  return id;
}

function containerApp(random: () => number, index: number, id: string): [string, string] {
  const name = `app-${index}`;
  const regions = [pick(random, REGIONS), pick(random, REGIONS.slice(0, 4))];
  const allowed = [...new Set(regions)];
  const text = `---
apiVersion: edgesync/v1
kind: ContainerApp
metadata:
  name: ${name}
  drift: ${random() < 0.1 ? 'report' : 'correct'}
spec:
  appId: ${id}
  name: storefront ${index}
  runtimeType: shared
  autoScaling: { min: 1, max: ${2 + Math.floor(random() * 5)} }
  regionSettings:
    allowedRegionIds: [${allowed.join(', ')}, "@optimal"]
    requiredRegionIds: [${allowed[0]}]
    maxAllowedRegions: 3
  containerTemplates:
    - name: web
      imageRegistryId: "${1000 + (index % 7)}"
      imageNamespace: acme
      imageName: storefront-web
      imageTag: "1.${index % 20}.${Math.floor(random() * 10)}"
      imagePullPolicy: ifNotPresent
      environmentVariables:
        - { name: LOG_LEVEL, value: info }
        - { name: API_URL, value: "http://localhost:9000" }
      endpoints:
        - displayName: web-cdn-${index}
          cdn:
            isSslEnabled: true
            portMappings: [{ containerPort: 8080, protocols: [tcp] }]
      probes:
        readiness:
          periodSeconds: 10
          httpGet: { request: { path: /healthz, portNumber: 8080 } }
        liveness:
          initialDelaySeconds: 30
          tcpSocket: { request: { portNumber: 8080 } }
      volumeMounts: [{ name: cache, mountPath: /var/cache/web }]
    - name: api
      imageRegistryId: "${1000 + (index % 7)}"
      imageNamespace: acme
      imageName: storefront-api
      imageTag: "2.${index % 30}.0"
      entryPoint: { command: /app/api, argumentsArray: [--port, "9000"] }
      environmentVariables: [{ name: DATABASE_POOL, value: "20" }]
      endpoints:
        - displayName: api-anycast-${index}
          anycast: { type: iPv4, portMappings: [{ containerPort: 9000, exposedPort: 443, protocols: [tcp, udp] }] }
  volumes: [{ name: cache, size: ${1 + Math.floor(random() * 50)} }]
`;
  return [name, text];
}

function dnsZone(random: () => number, id: number, index: number): [string, string] {
  const name = `zone-${index}-example-com`;
  const text = `---
apiVersion: edgesync/v1
kind: DnsZone
metadata: { name: ${name} }
spec:
  id: ${id}
  dnssec: ${random() < 0.7}
`;
  return [name, text];
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
  const listFiles: string[] = [];
  const resources: GeneratedResource[] = [];
  const shieldZoneIds = Array.from({ length: zones }, (_, i) => 4200 + i);

  function add(
    file: string,
    kind: GeneratedKind,
    [name, text]: [string, string],
    ids: Record<string, number | string>,
  ): void {
    const docs = files.get(file) ?? [];
    docs.push(text);
    files.set(file, docs);
    counts[kind] += 1;
    resources.push({ kind, name, file, ids });
  }

  let ruleId = 310_000;
  let listId = 9000;
  for (const [z, zone] of shieldZoneIds.entries()) {
    const share = (n: number): number => Math.floor(n / zones) + (z < n % zones ? 1 : 0);
    const rules = share(wanted.WafCustomRule);
    for (let r = 0; r < rules; r += 1) {
      ruleId += 1 + Math.floor(random() * 3);
      const file = `shield/zone-${zone}/rules-${Math.floor(r / rulesPerFile) + 1}.yaml`;
      add(file, 'WafCustomRule', wafRule(random, zone, ruleId, r), { id: ruleId, shieldZoneId: zone });
    }
    const lists = share(wanted.AccessList);
    for (let l = 0; l < lists; l += 1) {
      listId += 1;
      let entriesFile: string | undefined;
      if (l % 3 === 0) {
        const listFile = `lists/zone-${zone}-${l}.txt`;
        entriesFile = `../../${listFile}`;
        const body = entries(random, 20 + Math.floor(random() * 40));
        writeText(join(dir, listFile), `# partner ranges for zone ${zone}\n\n${body.join('\n')}\n`);
        listFiles.push(listFile);
      }
      add(
        `shield/zone-${zone}/access-lists.yaml`,
        'AccessList',
        accessList(random, zone, listId, l, entriesFile),
        {
          id: listId,
          shieldZoneId: zone,
        },
      );
    }
    const managed = share(wanted.ManagedAccessList);
    for (let m = 0; m < managed; m += 1) {
      add(`shield/zone-${zone}/access-lists.yaml`, 'ManagedAccessList', managedList(zone, 500 + m, m), {
        listId: 500 + m,
        shieldZoneId: zone,
      });
    }
  }
  for (let a = 0; a < wanted.ContainerApp; a += 1) {
    const id = appId(random);
    add(`apps/team-${(a % 10) + 1}.yaml`, 'ContainerApp', containerApp(random, a, id), { appId: id });
  }
  for (let d = 0; d < dnsZones; d += 1) {
    add(`dns/zones-${(d % 4) + 1}.yaml`, 'DnsZone', dnsZone(random, 700_000 + d, d), { id: 700_000 + d });
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
    listFiles: listFiles.sort(),
    yamlBytes,
    counts,
    shieldZoneIds,
    resources,
  };
}

function writeText(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}
