/**
 * Generates a realistic desired-state repository of any size, for the benchmarks and the tests
 * that need a big one: Shield Zones with many WAF rules and access lists (inline and
 * entriesFile), managed lists, container apps and DNS zones, laid out like `config-examples/`. Deterministic: the same options give the
 * same bytes, so figures from two runs compare like with like.
 *
 * Every resource also carries the live object that matches it, so `emulatorSeed` can build
 * the account an emulator starts with: in sync with the files, or with any number of
 * resources drifted (the changes a reconcile then has to make).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';
import { EMULATOR_SEED_PATH, type EmulatorSeed } from '../../src/emulator/index.js';

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

/** What was written: enough for a benchmark to describe the repository and to seed an emulator. */
export interface GeneratedRepository {
  readonly dir: string;
  /** Relative paths of the YAML files written, sorted. */
  readonly yamlFiles: readonly string[];
  /** Total bytes of the YAML files. */
  readonly yamlBytes: number;
  readonly counts: Readonly<Record<GeneratedKind, number>>;
  readonly shieldZoneIds: readonly number[];
  /** Every resource written, by kind and metadata.name, with the live ids it targets. */
  readonly resources: readonly GeneratedResource[];
}

/** The kinds the generator writes (all of them). */
export type GeneratedKind = 'WafCustomRule' | 'AccessList' | 'ManagedAccessList' | 'ContainerApp' | 'DnsZone';

type ZoneSeed = NonNullable<EmulatorSeed['shieldZones']>[number];
type RuleSeed = NonNullable<ZoneSeed['customRules']>[number];
type ListSeed = NonNullable<ZoneSeed['customAccessLists']>[number];
type ManagedSeed = NonNullable<ZoneSeed['managedAccessLists']>[number];
type AppSeed = NonNullable<EmulatorSeed['apps']>[number];
type DnsZoneSeed = NonNullable<EmulatorSeed['dnsZones']>[number];

/** The live object that matches one resource, in the emulator's seed form. */
export type LiveSeed =
  | { readonly kind: 'WafCustomRule'; readonly rule: RuleSeed }
  | { readonly kind: 'AccessList'; readonly list: ListSeed }
  | { readonly kind: 'ManagedAccessList'; readonly list: ManagedSeed }
  | { readonly kind: 'ContainerApp'; readonly app: AppSeed }
  | { readonly kind: 'DnsZone'; readonly zone: DnsZoneSeed };

/** One generated resource: its subject parts, the ids it targets and its matching live object. */
export interface GeneratedResource {
  readonly kind: GeneratedKind;
  readonly name: string;
  readonly file: string;
  readonly ids: Readonly<Record<string, number | string>>;
  /** True for `metadata.drift: report`: edgesync never writes it, so it is never drifted. */
  readonly reportOnly: boolean;
  readonly live: LiveSeed;
}

/** The modeline config-examples files carry, for a file `depth` folders deep. */
function schemaModeline(depth: number): string {
  return `# yaml-language-server: $schema=${'../'.repeat(depth)}schema/edgesync.schema.json\n`;
}

/** mulberry32: a tiny seeded PRNG, so the repository is the same on every run (tests reuse it). */
export function prng(seed: number): () => number {
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
    transformations: ['URLDECODE', 'LOWERCASE'],
  },
  {
    title: 'Block XSS on',
    operator: 'DETECTXSS',
    variables: ['ARGS', 'REQUEST_COOKIES'],
    transformations: ['URLDECODE', 'HTMLENTITYDECODE', 'JSDECODE'],
  },
  {
    title: 'Challenge scanners on',
    operator: 'RX',
    variables: ['REQUEST_HEADERS'],
    transformations: ['LOWERCASE'],
  },
  {
    title: 'Log odd methods on',
    operator: 'WITHIN',
    variables: ['REQUEST_METHOD'],
    transformations: [],
  },
  {
    title: 'Block path traversal on',
    operator: 'CONTAINS',
    variables: ['REQUEST_URI_RAW', 'REQUEST_FILENAME'],
    transformations: ['URLDECODEUNI', 'NORMALIZEPATH'],
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

/** What each kind's writer returns: the metadata name, the YAML document, the live object. */
interface Written {
  readonly name: string;
  readonly text: string;
  readonly live: LiveSeed;
  readonly reportOnly?: boolean;
}

function wafRule(random: () => number, zone: number, ruleId: number, index: number): Written {
  const shape = pick(random, RULE_SHAPES);
  const path = pick(random, PATHS);
  const name = `z${zone}-r${index}-${shape.operator.toLowerCase()}`;
  const variables = shape.variables.map((v) => `      ${v}: ""`).join('\n');
  const chainedNegated = random() < 0.5 ? random() < 0.3 : undefined;
  const chained =
    chainedNegated !== undefined
      ? `
    chainedRuleConditions:
      - variableTypes: { REQUEST_URI: "" }
        operatorType: BEGINSWITH
        value: ${path}
      - variableTypes: { REQUEST_METHOD: "" }
        operatorType: STREQ
        value: POST
        isNegated: ${chainedNegated}`
      : '';
  const value =
    shape.operator === 'RX'
      ? '(?i)(sqlmap|nikto|nmap|masscan)/[0-9.]+'
      : shape.operator === 'WITHIN'
        ? 'TRACE TRACK DEBUG'
        : shape.operator === 'CONTAINS'
          ? '../'
          : '';
  const ruleName = `${shape.title} ${path} (${index})`;
  const ruleDescription = `Managed by edgesync; ${shape.title.toLowerCase()} ${path}`;
  const actionType = pick(random, ACTIONS);
  const severityType = pick(random, SEVERITIES);
  const text = `---
apiVersion: edgesync/v1
kind: WafCustomRule
metadata:
  name: ${name}
spec:
  id: ${ruleId}
  shieldZoneId: ${zone}
  ruleName: ${ruleName}
  ruleDescription: ${ruleDescription}
  ruleConfiguration:
    actionType: ${actionType}
    operatorType: ${shape.operator}
    severityType: ${severityType}
    variableTypes:
${variables}
    transformationTypes: [${shape.transformations.join(', ')}]
    value: ${shape.operator === 'RX' ? `'${value}'` : JSON.stringify(value)}
    isNegated: false${chained}
`;
  const rule: RuleSeed = {
    id: ruleId,
    ruleName,
    ruleDescription,
    ruleConfiguration: {
      actionType,
      operatorType: shape.operator,
      severityType,
      variableTypes: Object.fromEntries(shape.variables.map((v) => [v, ''])),
      transformationTypes: [...shape.transformations],
      value,
      isNegated: false,
      ...(chainedNegated === undefined
        ? {}
        : {
            chainedRuleConditions: [
              { variableTypes: { REQUEST_URI: '' }, operatorType: 'BEGINSWITH', value: path },
              {
                variableTypes: { REQUEST_METHOD: '' },
                operatorType: 'STREQ',
                value: 'POST',
                isNegated: chainedNegated,
              },
            ],
          }),
    },
  };
  return { name, text, live: { kind: 'WafCustomRule', rule } };
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
  entriesFile: { readonly path: string; readonly entries: readonly string[] } | undefined,
): Written {
  const name = `z${zone}-list-${index}`;
  const listEntries = entriesFile?.entries ?? entries(random, 3 + Math.floor(random() * 8));
  const content =
    entriesFile !== undefined
      ? `  entriesFile: ${entriesFile.path}`
      : `  entries:\n${listEntries.map((e) => `    - ${e}`).join('\n')}`;
  const listName = `Partner network ${index}`;
  const action = pick(random, ['Block', 'Allow', 'Challenge']);
  const text = `---
apiVersion: edgesync/v1
kind: AccessList
metadata:
  name: ${name}
spec:
  shieldZoneId: ${zone}
  id: ${listId}
  name: ${listName}
${content}
  enabled: true
  action: ${action}
`;
  const list: ListSeed = {
    id: listId,
    name: listName,
    type: 'CIDR',
    entries: [...listEntries],
    isEnabled: true,
    action,
  };
  return { name, text, live: { kind: 'AccessList', list } };
}

function managedList(zone: number, listId: number, index: number): Written {
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
  const list: ManagedSeed = {
    id: listId,
    name: `Managed list ${index}`,
    category: 'VPNs',
    entryCount: 1000 + index,
    isEnabled: true,
    action: 'Block',
  };
  return { name, text, live: { kind: 'ManagedAccessList', list } };
}

function appId(random: () => number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let id = '';
  for (let i = 0; i < 15; i += 1) id += pick(random, [...alphabet]);
  return id;
}

/** The region E7 answers in the emulator (its default), which `@optimal` resolves to. */
const OPTIMAL_REGION_ID = 'DE';

function containerApp(random: () => number, index: number, id: string, reportOnlyShare: number): Written {
  const name = `app-${index}`;
  const regions = [pick(random, REGIONS), pick(random, REGIONS.slice(0, 4))];
  const allowed = [...new Set(regions)];
  const reportOnly = random() < reportOnlyShare;
  const maxScale = 2 + Math.floor(random() * 5);
  const registry = `${1000 + (index % 7)}`;
  const webTag = `1.${index % 20}.${Math.floor(random() * 10)}`;
  const apiTag = `2.${index % 30}.0`;
  const volumeSize = 1 + Math.floor(random() * 50);
  const text = `---
apiVersion: edgesync/v1
kind: ContainerApp
metadata:
  name: ${name}
  drift: ${reportOnly ? 'report' : 'correct'}
spec:
  appId: ${id}
  name: storefront ${index}
  runtimeType: shared
  autoScaling: { min: 1, max: ${maxScale} }
  regionSettings:
    allowedRegionIds: [${allowed.join(', ')}, "@optimal"]
    requiredRegionIds: [${allowed[0]}]
    maxAllowedRegions: 3
  containerTemplates:
    - name: web
      imageRegistryId: "${registry}"
      imageNamespace: acme
      imageName: storefront-web
      imageTag: "${webTag}"
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
      imageRegistryId: "${registry}"
      imageNamespace: acme
      imageName: storefront-api
      imageTag: "${apiTag}"
      entryPoint: { command: /app/api, argumentsArray: [--port, "9000"] }
      environmentVariables: [{ name: DATABASE_POOL, value: "20" }]
      endpoints:
        - displayName: api-anycast-${index}
          anycast: { type: iPv4, portMappings: [{ containerPort: 9000, exposedPort: 443, protocols: [tcp, udp] }] }
  volumes: [{ name: cache, size: ${volumeSize} }]
`;
  const app: AppSeed = {
    id,
    name: `storefront ${index}`,
    runtimeType: 'shared',
    autoScaling: { min: 1, max: maxScale },
    regionSettings: {
      // "@optimal" resolved the way the plan resolves it: in place, a duplicate dropped.
      allowedRegionIds: [...new Set([...allowed, OPTIMAL_REGION_ID])],
      requiredRegionIds: [allowed[0] as string],
      maxAllowedRegions: 3,
    },
    containerTemplates: [
      {
        name: 'web',
        imageRegistryId: registry,
        imageNamespace: 'acme',
        imageName: 'storefront-web',
        imageTag: webTag,
        imagePullPolicy: 'ifNotPresent',
        environmentVariables: [
          { name: 'LOG_LEVEL', value: 'info' },
          { name: 'API_URL', value: 'http://localhost:9000' },
        ],
        endpoints: [
          {
            displayName: `web-cdn-${index}`,
            cdn: { isSslEnabled: true, portMappings: [{ containerPort: 8080, protocols: ['tcp'] }] },
          },
        ],
        probes: {
          readiness: { periodSeconds: 10, httpGet: { request: { path: '/healthz', portNumber: 8080 } } },
          liveness: { initialDelaySeconds: 30, tcpSocket: { request: { portNumber: 8080 } } },
        },
        volumeMounts: [{ name: 'cache', mountPath: '/var/cache/web' }],
      },
      {
        name: 'api',
        imageRegistryId: registry,
        imageNamespace: 'acme',
        imageName: 'storefront-api',
        imageTag: apiTag,
        entryPoint: { command: '/app/api', argumentsArray: ['--port', '9000'] },
        environmentVariables: [{ name: 'DATABASE_POOL', value: '20' }],
        endpoints: [
          {
            displayName: `api-anycast-${index}`,
            anycast: {
              type: 'iPv4',
              portMappings: [{ containerPort: 9000, exposedPort: 443, protocols: ['tcp', 'udp'] }],
            },
          },
        ],
      },
    ],
    volumes: [{ name: 'cache', size: volumeSize }],
  };
  return { name, text, live: { kind: 'ContainerApp', app }, reportOnly };
}

function dnsZone(random: () => number, id: number, index: number): Written {
  const name = `zone-${index}-example-com`;
  const dnssec = random() < 0.7;
  const text = `---
apiVersion: edgesync/v1
kind: DnsZone
metadata: { name: ${name} }
spec:
  id: ${id}
  dnssec: ${dnssec}
`;
  return {
    name,
    text,
    live: { kind: 'DnsZone', zone: { id, domain: `zone-${index}.example.com`, dnsSecEnabled: dnssec } },
  };
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

  function add(file: string, written: Written, ids: Record<string, number | string>): void {
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

/** How `emulatorSeed` builds the live account. */
export interface SeedOptions {
  /**
   * How many resources differ from their files (default 0: the account is in sync). Spread
   * evenly over the resources edgesync may write (report-only apps never drift), capped at
   * their number. Each drifted resource is exactly one change for the next apply.
   */
  readonly drift?: number;
}

/** The live account for a generated repository, and which resources it drifted. */
export interface GeneratedSeed {
  readonly seed: EmulatorSeed;
  /** Subjects (`kind/name`) whose live object differs from the files, in generation order. */
  readonly drifted: readonly string[];
}

/**
 * The drift of one resource, one change per kind: a rule renamed in the dashboard (E1), a
 * list missing its first entry (E2), a managed list switched off (E3), an app whose `api`
 * container is gone (E4 re-creates it: the path that must never duplicate containers), a
 * zone with DNSSEC flipped (E5 or the enable call).
 */
function drifted(live: LiveSeed): LiveSeed {
  switch (live.kind) {
    case 'WafCustomRule':
      return { kind: live.kind, rule: { ...live.rule, ruleName: `${live.rule.ruleName} (edited live)` } };
    case 'AccessList':
      return { kind: live.kind, list: { ...live.list, entries: (live.list.entries ?? []).slice(1) } };
    case 'ManagedAccessList':
      return { kind: live.kind, list: { ...live.list, isEnabled: !live.list.isEnabled } };
    case 'ContainerApp':
      return {
        kind: live.kind,
        app: { ...live.app, containerTemplates: live.app.containerTemplates.slice(0, 1) },
      };
    case 'DnsZone':
      return { kind: live.kind, zone: { ...live.zone, dnsSecEnabled: live.zone.dnsSecEnabled !== true } };
  }
}

/** Builds the emulator seed matching `repo`, with `options.drift` resources drifted. */
export function emulatorSeed(repo: GeneratedRepository, options: SeedOptions = {}): GeneratedSeed {
  const writable = repo.resources.filter((r) => !r.reportOnly);
  const wanted = Math.min(Math.max(0, Math.floor(options.drift ?? 0)), writable.length);
  const drift = new Set<GeneratedResource>();
  for (const [j, resource] of writable.entries()) {
    // Evenly spread: resource j drifts when the running quota steps up at j.
    if (Math.floor(((j + 1) * wanted) / writable.length) > Math.floor((j * wanted) / writable.length)) {
      drift.add(resource);
    }
  }
  const zones = new Map<
    number,
    Required<Pick<ZoneSeed, 'customRules' | 'customAccessLists' | 'managedAccessLists'>> & ZoneSeed
  >();
  for (const id of repo.shieldZoneIds) {
    // Enterprise: its invented limit of 20 custom lists holds the generator's lists per zone.
    zones.set(id, {
      id,
      planType: 'Enterprise',
      customRules: [],
      customAccessLists: [],
      managedAccessLists: [],
    });
  }
  const apps: AppSeed[] = [];
  const dnsZones: DnsZoneSeed[] = [];
  for (const resource of repo.resources) {
    const live = drift.has(resource) ? drifted(resource.live) : resource.live;
    const zone = zones.get(Number(resource.ids.shieldZoneId));
    switch (live.kind) {
      case 'WafCustomRule':
        zone?.customRules.push(live.rule);
        break;
      case 'AccessList':
        zone?.customAccessLists.push(live.list);
        break;
      case 'ManagedAccessList':
        zone?.managedAccessLists.push(live.list);
        break;
      case 'ContainerApp':
        apps.push(live.app);
        break;
      case 'DnsZone':
        dnsZones.push(live.zone);
        break;
    }
  }
  return {
    seed: { shieldZones: [...zones.values()], apps, dnsZones },
    drifted: [...drift].map((r) => `${r.kind}/${r.name}`),
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
