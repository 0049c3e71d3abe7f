/**
 * `plan --only` and `apply --only` (Terraform's `-target`) in-process against the emulator:
 * only the named documents are read, planned and written (the emulator's journal), the plan and
 * stderr say it is partial, nothing outside the selection is pruned, the change threshold counts
 * against every managed resource, the state changes only for the selection, and an unknown
 * subject is an error naming it with nothing read.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator, EmulatorSeed } from '../../../src/emulator/index.js';
import { cli } from '../../helpers/cli.js';
import { cliSession, DNS_ZONES_DOC, DRIFTED_LIST_DOC, DRIFTED_RULE_DOC } from '../../helpers/cli-session.js';
import { withEmulator } from '../../helpers/emulator.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';

const DOC = 'apiVersion: edgesync/v1\n';

/** Three drifted documents (the rule, the list, example-com) and two in sync. */
const CONFIG = {
  'shield/rules.yaml': DRIFTED_RULE_DOC,
  'shield/lists.yaml': DRIFTED_LIST_DOC,
  'dns.yaml': DNS_ZONES_DOC,
};

/** A custom rule document created by name in zone 42. */
function ruleDoc(name: string, ruleName: string): string {
  return `${DOC}kind: WafCustomRule
metadata: { name: ${name} }
spec:
  shieldZoneId: 42
  ruleName: ${ruleName}
  ruleConfiguration: { actionType: Block, operatorType: BEGINSWITH, variableTypes: { REQUEST_URI: "" }, value: /${name} }
`;
}

interface StateFile {
  resources: Record<string, { revision: string }>;
  inventory: Record<string, { id: number }>;
  runs: Array<{ only?: string[]; counts: Record<string, number> }>;
}

describe('--only', () => {
  let emu: Emulator;
  let config: string;
  let stateDir: string;
  let env: Record<string, string>;
  beforeEach(async () => {
    ({ emu, config, stateDir, env } = await cliSession(CONFIG));
  });
  afterEach(async () => {
    await emu.close();
  });

  const state = (): StateFile => JSON.parse(readFileSync(join(stateDir, 'state.json'), 'utf8'));

  it('plan --only reads and plans the named documents only, and says it is partial', async () => {
    const result = await cli(['plan', '--only', 'DnsZone/example-com', '--detailed-exitcode'], { env });

    expect(result.code).toBe(2);
    expect(result.stdout).toBe(
      [
        `API: ${emu.url}`,
        '',
        'Partial plan (--only): 1 of 4 documents; nothing else was read, planned or pruned.',
        '',
        '~ DnsZone/example-com dns.yaml:1 (cause: unknown)',
        '    dnssec: true → false',
        '',
        'Plan: 1 to change, 0 unchanged.',
        '',
      ].join('\n'),
    );
    expect(result.stderr).toBe(
      'edgesync: warning: --only: this plan covers 1 of 4 documents (DnsZone/example-com); the other documents were not read or planned and nothing outside the selection is pruned, so it may not show every difference. Use --only for exceptions, then run a full plan.\n',
    );
    expect(emu.journal.entries().map((e) => `${e.method} ${e.path}`)).toEqual(['GET /dnszone/12345']);
  });

  it('apply --only writes the named documents only; the state records them alone, and a full plan shows the rest', async () => {
    const applied = await cli(
      ['apply', '--only', 'WafCustomRule/block-sqli', '--only', 'DnsZone/example-com'],
      { env },
    );
    const writes = emu.journal.writes().map((e) => `${e.method} ${e.path}`);
    const after = state();
    const full = await cli(['plan'], { env });

    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Apply: 2 applied, 0 failed, 0 skipped, 0 unchanged.');
    expect(applied.stderr).toBe(
      'edgesync: warning: --only: this apply was partial, 2 of 4 documents (WafCustomRule/block-sqli, DnsZone/example-com); the other documents were not read or applied, nothing outside the selection was pruned, and they may still differ from the files. Run a full plan next.\n',
    );
    expect(writes).toEqual(['PATCH /shield/waf/custom-rule/1234', 'DELETE /dnszone/12345/dnssec']);
    expect(Object.keys(after.resources).sort()).toEqual(['DnsZone/example-com', 'WafCustomRule/block-sqli']);
    expect(after.runs.at(-1)?.only).toEqual(['WafCustomRule/block-sqli', 'DnsZone/example-com']);
    expect(full.stdout).toContain('Plan: 1 to change, 3 unchanged.');
    expect(full.stdout).toContain('~ AccessList/office shield/lists.yaml:1');
    expect(full.stderr).toBe('');
  });

  it('prunes only the named object whose document is gone; the other stays, and a full plan still lists it', async () => {
    const docs = ['old-a', 'old-b', 'old-c', 'old-d'].map((n) => ruleDoc(n, `Old ${n}`)).join('---\n');
    writeTree(config, { 'shield/old.yaml': docs });
    const created = await cli(['apply', '--max-change-percent', '100'], { env });
    const ids = state().inventory;
    writeTree(config, {
      'shield/old.yaml': `${ruleDoc('old-c', 'Old old-c')}---\n${ruleDoc('old-d', 'Old old-d')}`,
    });
    emu.journal.clear();

    const pruned = await cli(['apply', '--prune', '--only', 'WafCustomRule/old-a'], { env });
    const writes = emu.journal.writes().map((e) => `${e.method} ${e.path}`);
    const full = await cli(['plan'], { env });

    expect(created.code).toBe(0);
    expect(pruned.code).toBe(0);
    expect(pruned.stdout).toContain(`- WafCustomRule/old-a (no document)`);
    expect(pruned.stderr).toContain(
      'this apply was partial, 0 of 6 documents and 1 owned object without a document',
    );
    expect(writes).toEqual([`DELETE /shield/waf/custom-rule/${ids['WafCustomRule/old-a']?.id}`]);
    expect(state().inventory['WafCustomRule/old-a']).toBeUndefined();
    expect(state().inventory['WafCustomRule/old-b']).toEqual(ids['WafCustomRule/old-b']);
    expect(full.stdout).toContain(`(was WafCustomRule/old-b)`);
  });

  it('the change threshold counts the selection against every managed resource', async () => {
    const zones = Array.from({ length: 10 }, (_, i) => ({
      id: 500 + i,
      domain: `z${i}.example`,
      dnsSecEnabled: i < 4,
    }));
    await emu.close();
    emu = await withEmulator({ dnsZones: zones } satisfies EmulatorSeed);
    const dir = writeTree(tempDir(), {
      'dns.yaml': zones
        .map(
          (z) => `${DOC}kind: DnsZone\nmetadata: { name: z${z.id} }\nspec: { id: ${z.id}, dnssec: false }\n`,
        )
        .join('---\n'),
    });
    const zoneEnv = { ...env, EDGESYNC_BASE_URL: emu.url, EDGESYNC_CONFIG: dir };

    const refused = await cli(
      ['apply', '--only', 'DnsZone/z500', '--only', 'DnsZone/z501', '--max-change-percent', '10'],
      { env: zoneEnv },
    );

    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      'error: the plan changes 2 of 10 managed resources (20%), more than --max-change-percent 10; re-run with --force if this is intended',
    );
    expect(emu.journal.writes()).toEqual([]);
  });

  it.each([
    [
      ['--only', 'WafCustomRule/nope', '--only', 'DnsZone/example-com', '--only', 'DnsZone/gone'],
      'edgesync: USAGE: --only WafCustomRule/nope, DnsZone/gone: no document has these subjects, and edgesync owns no object under them (a subject is Kind/metadata.name, e.g. WafCustomRule/block-sqli); nothing was read\n',
    ],
    [
      ['--only', 'block-sqli'],
      'edgesync: USAGE: --only "block-sqli": a subject is Kind/name (the document\'s kind and metadata.name), e.g. WafCustomRule/block-sqli\n',
    ],
    [
      ['--only', 'CustomWafRule/block-sqli'],
      'edgesync: USAGE: --only CustomWafRule/block-sqli: unknown kind "CustomWafRule" (kinds: WafCustomRule, AccessList, ManagedAccessList, ContainerApp, DnsZone, ShieldZone)\n',
    ],
  ])('an unknown subject is one line naming it, and nothing is read: %j', async (flags, message) => {
    const planned = await cli(['plan', ...flags], { env });
    const applied = await cli(['apply', ...flags], { env });

    expect([planned.code, planned.stdout, planned.stderr]).toEqual([1, '', message]);
    expect([applied.code, applied.stdout, applied.stderr]).toEqual([1, '', message]);
    expect(emu.journal.entries()).toEqual([]);
  });

  it('plan --out keeps the selection; apply FILE applies it as reviewed, and refuses --only beside it', async () => {
    const file = join(tempDir(), 'plan.json');
    await cli(['plan', '--only', 'DnsZone/example-com', '--out', file], { env });
    const beside = await cli(['apply', file, '--only', 'DnsZone/example-org'], { env });
    const applied = await cli(['apply', file], { env });

    expect(beside.stderr).toBe(
      'edgesync: USAGE: --only cannot be given with a saved plan: it is applied with the options it was made with\n',
    );
    expect(applied.code).toBe(0);
    expect(applied.stderr).toContain('this apply was partial, 1 of 4 documents (DnsZone/example-com)');
    expect(emu.journal.writes().map((e) => `${e.method} ${e.path}`)).toEqual([
      'DELETE /dnszone/12345/dnssec',
    ]);
  });
});
