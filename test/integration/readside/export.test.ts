/**
 * `edgesync export` against the emulator over real HTTP: the round trip for every kind
 * (export → loadDesiredState → plan with zero changes), the exact YAML, names, warnings,
 * the `--out` layout with its schema modelines and never-overwrite rule, and the failures.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../../src/config/loader.js';
import type { DesiredResource } from '../../../src/config/types.js';
import type { KindName } from '../../../src/kinds/types.js';
import { type CliRun, cli, cliAgainst } from '../../helpers/cli.js';
import { TEST_KEY, withEmulator } from '../../helpers/emulator.js';
import { type EngineFixture, engineFixture } from '../../helpers/engine.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';
import { EXPORT_SEED, PINNED_DIGEST } from './export-seed.js';

const EVERYTHING = [
  ...['--shield-zone', '42', '--shield-zone', '43'],
  ...['--app', 'Go1e5FdmzoQdr3O', '--app', 'pinnedApp01'],
  ...['--dns-zone', '12345', '--dns-zone', '12346'],
];

const NO_VARIABLES_WARNING =
  'edgesync: warning: WafCustomRule 1005 ("No variables") is not exported: the format cannot hold it ' +
  '(spec.ruleConfiguration.variableTypes: needs at least one variable)\n';

let fx: EngineFixture;
beforeEach(async () => {
  fx = await engineFixture(EXPORT_SEED);
});
afterEach(async () => {
  await fx.close();
});

/** Every file under `dir`, relative, sorted. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

async function planOf(resources: readonly DesiredResource[]) {
  fx.emu.journal.clear();
  const { plan } = await fx.run(resources, 'plan');
  return plan;
}

/** Saves `yaml` (an export's stdout) as one file of a new config directory, loads it and plans it. */
async function loadAndPlan(yaml: string) {
  const state = await loadDesiredState(writeTree(tempDir(), { 'export.yaml': yaml }));
  return { state, plan: await planOf(state.resources) };
}

/**
 * Rules and lists whose name is unique in their zone are exported without an id: the first plan
 * adopts them (docs/design.md, Identity: an adoption counts as a change, and sends nothing when the object is
 * as declared); once applied, the plan is empty. The two rules that share a name keep their ids.
 */
/** Exported without an id (rules and lists) or appId (apps whose name is unique): found by name, adopted. */
const ADOPTED = (r: DesiredResource): boolean =>
  ((r.kind === 'WafCustomRule' || r.kind === 'AccessList') && (r.spec as { id?: number }).id === undefined) ||
  (r.kind === 'ContainerApp' && (r.spec as { appId?: string }).appId === undefined);

describe('export round trip: export → validate → plan shows no field change, and nothing after one apply', () => {
  const EXPECTED: Record<Exclude<KindName, 'ShieldZone'>, string[]> = {
    WafCustomRule: [
      'admin-only-from-the-office',
      'block-sqli-on-login',
      'block-sqli-on-login-2',
      'regle-ete',
      'waf-custom-rule-1004',
    ],
    AccessList: ['cloud-asns', 'countries', 'empty-for-now', 'ipv6-partners', 'office-ips', 'scanners'],
    ManagedAccessList: ['vpn-providers'],
    ContainerApp: ['pinned', 'storefront'],
    DnsZone: ['example-com', 'example-org'],
  };

  // One export of everything, loaded back, serves every kind: each case plans its share
  // against its own freshly seeded emulator (plans only read, so the cases stay independent).
  let run: CliRun;
  let exported: readonly DesiredResource[];
  beforeAll(async () => {
    const emu = await withEmulator(EXPORT_SEED);
    try {
      // tempDir's afterEach removes `out` after the first test; it is read here, before.
      const out = tempDir();
      run = await cliAgainst(emu, ['export', ...EVERYTHING, '--out', out]);
      exported = (await loadDesiredState(out)).resources;
    } finally {
      await emu.close();
    }
  });

  it.each(Object.entries(EXPECTED) as [KindName, string[]][])('%s', async (kind, names) => {
    const ofKind = exported.filter((r) => r.kind === kind);
    const plan = await planOf(ofKind);

    expect(run.code).toBe(0);
    expect(exported).toHaveLength(16);
    expect(ofKind.map((r) => r.name).sort()).toEqual(names);
    const adopted = ofKind.filter(ADOPTED).length;
    expect(plan.changes.map((c) => [c.subject, c.action, c.diffs, c.requests])).toEqual(
      ofKind
        .map((r) => [r.subject, ADOPTED(r) ? 'adopt' : 'noop', [], []])
        .sort(([a], [b]) => String(a).localeCompare(String(b))),
    );
    // Adoptions by name with nothing to change are information, not changes.
    expect(plan.summary).toEqual({
      resources: names.length,
      toUpdate: 0,
      ...(adopted > 0 ? { adopted } : {}),
      unchanged: names.length - adopted,
      skipped: 0,
      errors: 0,
      destructive: 0,
    });
    expect(fx.emu.journal.writes()).toEqual([]);
    // The adoptions send nothing; afterwards the plan is empty.
    await fx.run(ofKind, 'apply');
    const again = await planOf(ofKind);
    expect(again.changes.filter((c) => c.action !== 'noop')).toEqual([]);
    expect(fx.emu.journal.writes()).toEqual([]);
  });

  it('writes without ids only what its name finds alone: the rules that share a name keep theirs', () => {
    const ids = exported
      .filter((r) => r.kind === 'WafCustomRule' || r.kind === 'AccessList')
      .map((r) => [r.subject, (r.spec as { id?: number }).id]);
    expect(
      ids
        .filter(([, id]) => id !== undefined)
        .map(([subject]) => subject)
        .sort(),
    ).toEqual(['WafCustomRule/block-sqli-on-login', 'WafCustomRule/block-sqli-on-login-2']);
  });

  it('writes apps without appId where the account has no other app of their name', () => {
    const apps = exported.filter((r) => r.kind === 'ContainerApp');
    expect(apps.map((r) => [r.subject, (r.spec as { appId?: string }).appId])).toEqual([
      ['ContainerApp/pinned', undefined],
      ['ContainerApp/storefront', undefined],
    ]);
  });

  it('keeps the appId of two apps that share a name, and the round trip still plans no change', async () => {
    const seed = structuredClone(EXPORT_SEED);
    const storefront = seed.apps?.find((a) => a.id === 'Go1e5FdmzoQdr3O');
    if (storefront === undefined) throw new Error('EXPORT_SEED has no storefront');
    seed.apps?.push({ ...structuredClone(storefront), id: 'storefrontTwin1' });
    await fx.close();
    fx = await engineFixture(seed);

    const run = await cliAgainst(fx.emu, [
      'export',
      ...['--app', 'Go1e5FdmzoQdr3O', '--app', 'storefrontTwin1', '--app', 'pinnedApp01'],
    ]);
    const { state, plan } = await loadAndPlan(run.stdout);

    expect(run.code).toBe(0);
    expect(state.resources.map((r) => [r.subject, (r.spec as { appId?: string }).appId])).toEqual([
      ['ContainerApp/storefront', 'Go1e5FdmzoQdr3O'],
      ['ContainerApp/storefront-2', 'storefrontTwin1'],
      ['ContainerApp/pinned', undefined],
    ]);
    expect(plan.changes.map((c) => [c.subject, c.action, c.diffs])).toEqual([
      ['ContainerApp/pinned', 'adopt', []],
      ['ContainerApp/storefront', 'noop', []],
      ['ContainerApp/storefront-2', 'noop', []],
    ]);
    expect(fx.emu.journal.writes()).toEqual([]);
  });

  it('holds through the CLI: export --out, validate, plan --detailed-exitcode exit 0 (adoptions are information), apply records them, plan exit 0', async () => {
    const out = tempDir();
    const stateDir = tempDir();
    const config = ['--config', out, '--state-dir', stateDir];

    const exported = await cliAgainst(fx.emu, ['export', ...EVERYTHING, '--out', out]);
    const validated = await cli(['validate', '--config', out]);
    fx.emu.journal.clear();
    const first = await cliAgainst(fx.emu, ['plan', ...config, '--detailed-exitcode']);
    const strict = await cliAgainst(fx.emu, ['plan', ...config, '--drift-exitcode']);
    const applied = await cliAgainst(fx.emu, ['apply', ...config]);
    const inventory = JSON.parse(readFileSync(join(stateDir, 'state.json'), 'utf8')).inventory;
    const planned = await cliAgainst(fx.emu, ['plan', ...config, '--detailed-exitcode']);

    expect(exported.code).toBe(0);
    expect(validated).toEqual({ code: 0, stderr: '', stdout: '16 resources in 16 files are valid\n' });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('No changes. Live state matches the desired state.\n');
    expect(first.stdout).toContain(
      '  = WafCustomRule/regle-ete #1006 "Règle été" in Shield Zone 42 (waf-custom-rules/regle-ete.yaml:2)\n',
    );
    expect(first.stdout).toContain(
      'Plan: 0 to change, 5 unchanged. Information: 11 adopted by name, no changes.\n',
    );
    expect(strict.code).toBe(0);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain(
      'Plan: 0 to change, 5 unchanged. Information: 11 adopted by name, no changes.',
    );
    // The 11 adoptions (2 of them apps), and the 2 rules pinned by id (a pinned object is owned too).
    expect(Object.keys(inventory)).toHaveLength(13);
    expect(inventory['WafCustomRule/regle-ete']).toEqual({
      kind: 'WafCustomRule',
      shieldZoneId: 42,
      id: 1006,
      key: 'Règle été',
    });
    expect(planned).toEqual({
      code: 0,
      stderr: '',
      stdout: `API: ${fx.emu.url}\n\nNo changes. Live state matches the desired state.\n\nPlan: 0 to change, 16 unchanged.\n`,
    });
    expect(fx.emu.journal.writes()).toEqual([]);
  });

  it('holds for the stdout stream saved as one file', async () => {
    const run = await cliAgainst(fx.emu, ['export', ...EVERYTHING]);
    const { state, plan } = await loadAndPlan(run.stdout);

    expect(run.code).toBe(0);
    expect(run.stderr).toBe(NO_VARIABLES_WARNING);
    expect(state.resources).toHaveLength(16);
    expect(plan.summary).toMatchObject({ resources: 16, toUpdate: 0, adopted: 11, unchanged: 5, errors: 0 });
    expect(plan.changes.flatMap((c) => c.requests)).toEqual([]);
  });

  it('holds when the live app reports the old PascalCase enums', async () => {
    const app = fx.emu.state.app('Go1e5FdmzoQdr3O');
    if (app === undefined) throw new Error('seed app missing');
    app.runtimeType = 'Reserved';
    const [web, api] = app.containerTemplates;
    if (web === undefined || api === undefined) throw new Error('seed containers missing');
    web.imagePullPolicy = 'IfNotPresent';
    const cdn = web.endpoints[0];
    if (cdn === undefined) throw new Error('seed endpoint missing');
    // Older replies spelled the endpoint types this way; the emulator's types know only today's.
    (cdn as { type: string }).type = 'CDN';
    for (const mapping of cdn.portMappings) mapping.protocols = ['Tcp'];
    const anycast = api.endpoints[0];
    if (anycast === undefined) throw new Error('seed endpoint missing');
    (anycast as { type: string }).type = 'Anycast';

    const run = await cliAgainst(fx.emu, ['export', '--app', 'Go1e5FdmzoQdr3O']);
    const { plan } = await loadAndPlan(run.stdout);

    expect(run.stdout).toContain('  runtimeType: reserved\n');
    expect(run.stdout).toContain('      imagePullPolicy: ifNotPresent\n');
    expect(run.stdout).toContain('                protocols: [ tcp ]\n');
    expect(run.stdout).toContain('          anycast:\n            type: iPv4\n');
    expect(plan.summary).toMatchObject({ toUpdate: 0, adopted: 1, unchanged: 0, errors: 0 });
  });
});

describe('export output', () => {
  it('writes WAF rules whole: enums by name, negation, regex variables, chained conditions', async () => {
    const run = await cliAgainst(fx.emu, ['export', '--shield-zone', '42']);

    const documents = run.stdout.split('---\n');
    expect(documents[0]).toBe(
      [
        '# yaml-language-server: $schema=schema/edgesync.schema.json',
        'apiVersion: edgesync/v1',
        'kind: WafCustomRule',
        'metadata:',
        '  name: block-sqli-on-login',
        'spec:',
        '  id: 1001',
        '  shieldZoneId: 42',
        '  ruleName: Block SQLi on login',
        '  ruleDescription: SQL injection attempts on POST /login',
        '  ruleConfiguration:',
        '    actionType: Block',
        '    operatorType: DETECTSQLI',
        '    severityType: CRITICAL',
        '    variableTypes: { ARGS: "", REQUEST_BODY: "" }',
        '    transformationTypes: [ URLDECODE, LOWERCASE ]',
        '    value: ""',
        '    isNegated: false',
        '    isRegexVariable: false',
        '    chainedRuleConditions:',
        '      - variableTypes: { REQUEST_URI: "" }',
        '        operatorType: BEGINSWITH',
        '        value: /login',
        '      - variableTypes: { REQUEST_METHOD: "" }',
        '        operatorType: STREQ',
        '        value: POST',
        '',
      ].join('\n'),
    );
    expect(documents[1]).toBe(
      [
        'apiVersion: edgesync/v1',
        'kind: WafCustomRule',
        'metadata:',
        '  name: admin-only-from-the-office',
        'spec:',
        '  shieldZoneId: 42',
        '  ruleName: Admin only from the office',
        '  ruleConfiguration:',
        '    actionType: Challenge',
        '    operatorType: RX',
        '    severityType: WARNING',
        '    variableTypes: { REQUEST_HEADERS: X-Forwarded-For }',
        '    transformationTypes: [ COMPRESSWHITESPACE ]',
        '    value: ^(203\\.0\\.113\\.|198\\.51\\.100\\.7$)',
        '    isNegated: true',
        '    isRegexVariable: true',
        '    chainedRuleConditions:',
        '      - variableTypes: { REQUEST_COOKIES: session }',
        '        operatorType: CONTAINS',
        '        value: "admin: yes # not a comment"',
        '        isNegated: true',
        '        isRegexVariable: true',
        '',
      ].join('\n'),
    );
  });

  it('writes access lists as canonical entries with their configuration, and enabled managed lists only', async () => {
    const run = await cliAgainst(fx.emu, ['export', '--shield-zone', '42']);

    const documents = run.stdout.split('---\n');
    const kinds = documents.map((d) => /^kind: (\w+)$/m.exec(d)?.[1]);
    expect(kinds).toEqual([
      ...Array(5).fill('WafCustomRule'),
      ...Array(6).fill('AccessList'),
      'ManagedAccessList',
    ]);
    expect(documents[5]).toBe(
      [
        'apiVersion: edgesync/v1',
        'kind: AccessList',
        'metadata:',
        '  name: office-ips',
        'spec:',
        '  shieldZoneId: 42',
        '  name: Office IPs',
        // No type: 198.51.100.7 is not a CIDR block, and a declared type is checked.
        '  entries:',
        '    - 203.0.113.0/24',
        '    - 198.51.100.7',
        '  enabled: true',
        '  action: Allow',
        '',
      ].join('\n'),
    );
    expect(documents[8]).toContain('  entries: []\n  enabled: true\n  action: Log\n');
    expect(documents[10]).toContain(
      '  name: Cloud ASNs\n  type: ASN\n  entries:\n    - "13335"\n    - "15169"\n',
    );
    expect(documents[11]).toBe(
      [
        'apiVersion: edgesync/v1',
        'kind: ManagedAccessList',
        'metadata:',
        '  name: vpn-providers',
        'spec:',
        '  shieldZoneId: 42',
        '  listId: 5',
        '  enabled: true',
        '  action: Block',
        '',
      ].join('\n'),
    );
  });

  it('writes an app without server-owned fields; a digest only where the image reference pins it', async () => {
    const run = await cliAgainst(fx.emu, ['export', '--app', 'pinnedApp01', '--app', 'Go1e5FdmzoQdr3O']);

    // Kind order, then the order of the selection.
    const [pinned, storefront] = run.stdout.split('---\n');
    expect(run.code).toBe(0);
    expect(storefront).toContain(
      [
        '      endpoints:',
        '        - displayName: web-cdn',
        '          cdn:',
        '            isSslEnabled: true',
        '            stickySessions:',
        '              enabled: true',
        '              sessionHeaders: [ X-Session-Id, X-Cart ]',
        '              cookieName: _bunny_sticky',
        '            portMappings:',
        '              - containerPort: 8080',
        '                exposedPort: 8080',
        '                protocols: [ tcp ]',
      ].join('\n'),
    );
    for (const serverOwned of [
      'pullZoneId',
      'publicHost',
      'packageId',
      'image:',
      '  id: ',
      'nodeSelectors',
    ]) {
      expect(storefront).not.toContain(serverOwned);
    }
    expect(pinned).toBe(
      [
        '# yaml-language-server: $schema=schema/edgesync.schema.json',
        'apiVersion: edgesync/v1',
        'kind: ContainerApp',
        'metadata:',
        '  name: pinned',
        'spec:',
        '  name: pinned',
        '  runtimeType: shared',
        '  autoScaling: { min: 1, max: 1 }',
        '  regionSettings:',
        '    allowedRegionIds: [ SG ]',
        '    requiredRegionIds: []',
        '  containerTemplates:',
        '    - name: pinned',
        '      imageRegistryId: "1"',
        '      imageNamespace: acme',
        '      imageName: pinned',
        '      imageTag: 3.0.0',
        `      imageDigest: ${PINNED_DIGEST}`,
        '      imagePullPolicy: ifNotPresent',
        '    - name: digest-only',
        '      imageRegistryId: "1"',
        '      imageNamespace: acme',
        '      imageName: other',
        '      imageTag: 1.0.0',
        '      imagePullPolicy: ifNotPresent',
        '',
      ].join('\n'),
    );
  });

  it('writes a DNS zone named after its domain', async () => {
    const run = await cliAgainst(fx.emu, ['export', '--dns-zone', '12346']);

    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        '# yaml-language-server: $schema=schema/edgesync.schema.json',
        'apiVersion: edgesync/v1',
        'kind: DnsZone',
        'metadata:',
        '  name: example-org',
        'spec:',
        '  id: 12346',
        '  dnssec: false',
        '',
      ].join('\n'),
    });
  });

  it('--schema-path is used as given on stdout', async () => {
    const run = await cliAgainst(fx.emu, [
      'export',
      '--dns-zone',
      '12345',
      '--schema-path',
      'https://example.com/edgesync.schema.json',
    ]);

    expect(run.stdout.split('\n')[0]).toBe(
      '# yaml-language-server: $schema=https://example.com/edgesync.schema.json',
    );
  });
});

describe('export warnings', () => {
  it('writes repeated entries once and says the plan will remove the copies', async () => {
    fx.emu.state.setAccessListContent(42, 9003, '10.0.0.1\n10.0.0.2\n10.0.0.1\n10.0.0.1');

    const run = await cliAgainst(fx.emu, ['export', '--shield-zone', '42']);
    const { plan } = await loadAndPlan(run.stdout);

    expect(run.stderr).toBe(
      `${NO_VARIABLES_WARNING}edgesync: warning: access list 9003 ("Scanners") repeats 2 of its entries; the export lists each once, so its plan removes the copies\n`,
    );
    expect(run.stdout).toContain('  entries:\n    - 10.0.0.1\n    - 10.0.0.2\n  enabled: true\n');
    expect(plan.changes.filter((c) => c.diffs.length > 0).map((c) => [c.subject, c.diffs])).toEqual([
      [
        'AccessList/scanners',
        [
          {
            path: 'entries',
            live: ['10.0.0.1', '10.0.0.2', '10.0.0.1', '10.0.0.1'],
            desired: ['10.0.0.1', '10.0.0.2'],
          },
        ],
      ],
    ]);
  });

  it('leaves out endpoints the format cannot express, and still plans no change', async () => {
    const web = fx.emu.state.app('Go1e5FdmzoQdr3O')?.containerTemplates[0];
    const endpoint = web?.endpoints[0];
    if (endpoint === undefined) throw new Error('seed endpoint missing');
    endpoint.type = 'publicIp';

    const run = await cliAgainst(fx.emu, ['export', '--app', 'Go1e5FdmzoQdr3O']);
    const { plan } = await loadAndPlan(run.stdout);

    expect(run.stderr).toBe(
      'edgesync: warning: app Go1e5FdmzoQdr3O, container web: endpoints web-cdn are of a type the format cannot express (publicIp, internalIp); its endpoints are left out (unmanaged)\n',
    );
    expect(run.stdout).not.toContain('web-cdn');
    expect(plan.summary).toMatchObject({ toUpdate: 0, adopted: 1, unchanged: 0, errors: 0 });
  });

  it('a zone with nothing in it exports nothing, and says so', async () => {
    const run = await cliAgainst(fx.emu, ['export', '--shield-zone', '43']);

    expect(run).toEqual({ code: 0, stdout: '', stderr: 'edgesync: nothing found to export\n' });
  });
});

describe('export --out', () => {
  it('writes one file per resource under <kind-dir>/<name>.yaml with relative modelines', async () => {
    const cwd = tempDir();

    const run = await cliAgainst(
      fx.emu,
      ['export', '--shield-zone', '42', '--dns-zone', '12345', '--out', 'live'],
      {
        cwd,
      },
    );

    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      `${NO_VARIABLES_WARNING}edgesync: note: the files' modelines point at live/schema/edgesync.schema.json; create it with: mkdir -p live/schema && edgesync schema > live/schema/edgesync.schema.json\n`,
    );
    const files = [
      'waf-custom-rules/block-sqli-on-login.yaml',
      'waf-custom-rules/admin-only-from-the-office.yaml',
      'waf-custom-rules/block-sqli-on-login-2.yaml',
      'waf-custom-rules/waf-custom-rule-1004.yaml',
      'waf-custom-rules/regle-ete.yaml',
      'access-lists/office-ips.yaml',
      'access-lists/countries.yaml',
      'access-lists/scanners.yaml',
      'access-lists/empty-for-now.yaml',
      'access-lists/ipv6-partners.yaml',
      'access-lists/cloud-asns.yaml',
      'managed-access-lists/vpn-providers.yaml',
      'dns-zones/example-com.yaml',
    ];
    expect(run.stdout).toBe(`${files.map((f) => `live/${f}`).join('\n')}\nExported 13 resources to live.\n`);
    expect(tree(join(cwd, 'live'))).toEqual([...files].sort());
    expect(readFileSync(join(cwd, 'live/dns-zones/example-com.yaml'), 'utf8')).toBe(
      [
        '# yaml-language-server: $schema=../schema/edgesync.schema.json',
        'apiVersion: edgesync/v1',
        'kind: DnsZone',
        'metadata:',
        '  name: example-com',
        'spec:',
        '  id: 12345',
        '  dnssec: true',
        '',
      ].join('\n'),
    );
  });

  it('--schema-path makes each modeline relative to its file; a URL stays as given; no note', async () => {
    const cwd = writeTree(tempDir(), { 'repo/schema/edgesync.schema.json': '{}' });

    const relativeRun = await cliAgainst(
      fx.emu,
      [
        'export',
        '--dns-zone',
        '12345',
        '--out',
        'repo/config',
        '--schema-path',
        'repo/schema/edgesync.schema.json',
      ],
      { cwd },
    );
    const urlRun = await cliAgainst(
      fx.emu,
      [
        'export',
        '--dns-zone',
        '12346',
        '--out',
        'repo/config',
        '--schema-path',
        'https://example.com/s.json',
      ],
      { cwd },
    );
    const defaultRun = await cliAgainst(fx.emu, ['export', '--app', 'pinnedApp01', '--out', 'repo'], { cwd });

    expect(relativeRun.stderr).toBe('');
    expect(readFileSync(join(cwd, 'repo/config/dns-zones/example-com.yaml'), 'utf8').split('\n')[0]).toBe(
      '# yaml-language-server: $schema=../../schema/edgesync.schema.json',
    );
    expect(urlRun.stderr).toBe('');
    expect(readFileSync(join(cwd, 'repo/config/dns-zones/example-org.yaml'), 'utf8').split('\n')[0]).toBe(
      '# yaml-language-server: $schema=https://example.com/s.json',
    );
    // The default schema location exists here (repo/schema): no note.
    expect(defaultRun.stderr).toBe('');
    expect(readFileSync(join(cwd, 'repo/container-apps/pinned.yaml'), 'utf8').split('\n')[0]).toBe(
      '# yaml-language-server: $schema=../schema/edgesync.schema.json',
    );
  });

  it('refuses to overwrite without --force: lists the files, writes nothing, exit 1', async () => {
    const out = writeTree(tempDir(), {
      'dns-zones/example-com.yaml': 'hand-edited\n',
      'dns-zones/example-org.yaml': 'hand-edited too\n',
    });

    const refused = await cliAgainst(fx.emu, [
      'export',
      '--dns-zone',
      '12345',
      '--dns-zone',
      '12346',
      '--app',
      'pinnedApp01',
      '--out',
      out,
    ]);

    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr: [
        `${out}/dns-zones/example-com.yaml: exists`,
        `${out}/dns-zones/example-org.yaml: exists`,
        'edgesync: USAGE: refusing to overwrite 2 existing files without --force; nothing was written',
        '',
      ].join('\n'),
    });
    expect(tree(out)).toEqual(['dns-zones/example-com.yaml', 'dns-zones/example-org.yaml']);
    expect(readFileSync(join(out, 'dns-zones/example-com.yaml'), 'utf8')).toBe('hand-edited\n');
  });

  it('--force overwrites', async () => {
    const out = writeTree(tempDir(), { 'dns-zones/example-com.yaml': 'hand-edited\n' });

    const run = await cliAgainst(fx.emu, ['export', '--dns-zone', '12345', '--out', out, '--force']);

    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${out}/dns-zones/example-com.yaml\nExported 1 resource to ${out}.\n`);
    expect(readFileSync(join(out, 'dns-zones/example-com.yaml'), 'utf8')).toContain('  dnssec: true\n');
  });
});

describe('export failures', () => {
  it.each([
    [[], 'edgesync: USAGE: nothing to export: give --shield-zone N, --app ID or --dns-zone N\n'],
    [['--dns-zone', '12345', '--force'], 'edgesync: USAGE: --force only applies with --out\n'],
  ])('%j is a usage line, and nothing is read', async (argv, stderr) => {
    const run = await cliAgainst(fx.emu, ['export', ...argv]);

    expect(run).toEqual({ code: 1, stdout: '', stderr });
    expect(fx.emu.journal.count()).toBe(0);
  });

  it('one failed read fails the whole export: one line, nothing written', async () => {
    const out = tempDir();

    const run = await cliAgainst(fx.emu, ['export', '--dns-zone', '12345', '--app', 'nope', '--out', out]);

    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr:
        "edgesync: API_NOT_FOUND: read app (GET /mc/apps/nope) failed: 404 Not Found: Application 'nope' was not found. (extended error)\n",
    });
    expect(tree(out)).toEqual([]);
  });

  it('an unknown Shield Zone, a 5xx and a 401 are one line each; the key never shows', async () => {
    fx.emu.faults.script({
      pathPrefix: '/shield/shield-zone/42/access-lists/9003',
      times: 6,
      reply: { status: 503, body: { title: 'Busy', status: 503, detail: `busy ${TEST_KEY}` } },
    });

    const unknownZone = await cliAgainst(fx.emu, ['export', '--shield-zone', '99']);
    const unavailable = await cliAgainst(fx.emu, ['export', '--shield-zone', '42']);
    const unauthorized = await cliAgainst(fx.emu, ['export', '--dns-zone', '12345'], { key: 'wrong' });

    // Both listings of the zone are asked at once: the line is the 404 that came first.
    fx.emu.faults.script({ operation: 'listAccessLists', reply: { delayMs: 150 } });
    const wafFirst = await cliAgainst(fx.emu, ['export', '--shield-zone', '99']);
    fx.emu.faults.script({ operation: 'listCustomWafRules', reply: { delayMs: 150 } });
    const listsFirst = await cliAgainst(fx.emu, ['export', '--shield-zone', '99']);
    const wafLine =
      'edgesync: API_NOT_FOUND: list custom WAF rules (GET /shield/waf/custom-rules/99?page=1&perPage=1000) failed: 404 Not Found (status only)\n';
    expect(wafFirst.stderr).toBe(wafLine);
    expect(listsFirst.stderr).toBe(
      'edgesync: API_NOT_FOUND: list access lists (GET /shield/shield-zone/99/access-lists) failed: 404 Not Found: Shield Zone 99 was not found. (problem details)\n',
    );
    expect([wafLine, listsFirst.stderr]).toContain(unknownZone.stderr);
    expect(unavailable.stderr).toMatch(
      /^edgesync: API_UNAVAILABLE: read custom access list \(GET \/shield\/shield-zone\/42\/access-lists\/9003\) failed: 503 Service Unavailable: busy \[redacted\] \(problem details\); gave up after 6 attempts\n$/,
    );
    expect(unauthorized.stderr).toBe(
      'edgesync: API_AUTH: read DNS zone (GET /dnszone/12345) failed: 401 Unauthorized (empty body); check the access key (EDGESYNC_ACCESS_KEY or --access-key-file)\n',
    );
    for (const run of [unknownZone, unavailable, unauthorized]) {
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).not.toContain(TEST_KEY);
    }
  });
});
