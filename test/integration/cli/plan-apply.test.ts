/**
 * `edgesync plan` and `apply` in-process against the emulator over real HTTP: exact output,
 * exit codes, failures surfaced per change, the change threshold, one clear line for the
 * common failures, and the access key never printed.
 */

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/domain/checksum.js';
import { type Emulator, type EmulatorSeed, startEmulator } from '../../../src/emulator/index.js';
import { cli } from '../../helpers/cli.js';
import { cliSession, DNS_ZONES_DOC, DRIFTED_LIST_DOC, DRIFTED_RULE_DOC } from '../../helpers/cli-session.js';
import { TEST_SEED, withEmulator } from '../../helpers/emulator.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';

const DOC = 'apiVersion: edgesync/v1\n';
const KEY_HINT = '; check the access key (EDGESYNC_ACCESS_KEY or --access-key-file)';

const CONFIG = {
  'shield/rules.yaml': DRIFTED_RULE_DOC,
  'shield/lists.yaml': `${DRIFTED_LIST_DOC}---
${DOC}kind: ManagedAccessList
metadata: { name: vpn }
spec: { shieldZoneId: 42, name: VPN Providers, enabled: false }
`,
  'dns.yaml': DNS_ZONES_DOC,
};

describe('plan and apply', () => {
  let emu: Emulator;
  let config: string;
  let env: Record<string, string>;
  beforeEach(async () => {
    ({ emu, config, env } = await cliSession(CONFIG));
  });
  afterEach(async () => {
    await emu.close();
  });

  it('plan prints one block per changed resource and writes nothing', async () => {
    const plain = await cli(['plan'], { env });
    const detailed = await cli(['plan', '--detailed-exitcode'], { env });

    expect(plain.stderr).toBe('');
    expect(plain.stdout).toBe(
      [
        `API: ${emu.url}`,
        '',
        '~ WafCustomRule/block-sqli shield/rules.yaml:1 (cause: unknown)',
        '    ruleConfiguration.operatorType: "DETECTSQLI" → "RX"',
        '~ AccessList/office shield/lists.yaml:1 (cause: unknown)',
        '    entries: +1 -0',
        '      + 192.0.2.10',
        '~ DnsZone/example-com dns.yaml:1 (cause: unknown)',
        '    dnssec: true → false',
        '',
        'Plan: 3 to change, 2 unchanged.',
        '',
      ].join('\n'),
    );
    expect([plain.code, detailed.code]).toEqual([0, 2]);
    expect(emu.journal.writes()).toEqual([]);
  });

  it('plan --json holds the exact requests; --format markdown a table', async () => {
    const json = await cli(['plan', '--json'], { env });
    const markdown = await cli(['plan', '--format', 'markdown'], { env });

    const plan = JSON.parse(json.stdout);
    expect(plan.summary).toEqual({
      resources: 5,
      toUpdate: 3,
      unchanged: 2,
      skipped: 0,
      errors: 0,
      destructive: 0,
    });
    const office = plan.changes.find((c: { subject: string }) => c.subject === 'AccessList/office');
    expect(office.requests).toEqual([
      {
        operation: 'updateCustomAccessList',
        method: 'PATCH',
        path: '/shield/shield-zone/42/access-lists/9001',
        body: {
          content: '203.0.113.0/24\n198.51.100.7\n192.0.2.10',
          checksum: sha256Hex('203.0.113.0/24\n198.51.100.7\n192.0.2.10'),
        },
      },
    ]);
    expect(markdown.stdout).toContain('| ✏️ | `DnsZone/example-com` | `dnssec` | `true` | `false` |');
    expect(markdown.stdout).toContain('**Plan: 3 to change, 2 unchanged.**');
  });

  it('apply applies, lists every outcome, and a second apply writes nothing', async () => {
    const first = await cli(['apply'], { env });
    const writes = emu.journal.writes().length;
    const second = await cli(['apply'], { env });
    const after = await cli(['plan', '--detailed-exitcode'], { env });

    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      'applied   WafCustomRule/block-sqli\napplied   AccessList/office\napplied   DnsZone/example-com\n',
    );
    expect(first.stdout).toContain('Apply: 3 applied, 0 failed, 0 skipped, 2 unchanged.');
    expect(writes).toBe(3);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('Apply: 0 applied, 0 failed, 0 skipped, 5 unchanged.');
    expect(emu.journal.writes()).toHaveLength(3);
    expect(after.code).toBe(0);
    expect(emu.state.dnsZone(12345)?.DnsSecEnabled).toBe(false);
  });

  it('reports every outcome when some changes fail: Shield 202, checksum mismatch, 500', async () => {
    emu.faults.script({
      operation: 'updateCustomWafRule',
      reply: {
        status: 202,
        body: {
          statusCode: 202,
          success: false,
          message: 'Not on the free tier',
          errorKey: 'waf.plan_limit',
        },
      },
    });
    emu.faults.script({
      operation: 'updateCustomAccessList',
      reply: {
        status: 200,
        body: {
          data: { id: 9001, content: 'x', checksum: sha256Hex('x'), entryCount: 1 },
          error: { statusCode: 200, success: true },
        },
      },
    });
    emu.faults.script({ operation: 'disableDnssec', times: 6, reply: { status: 500 } });

    const result = await cli(['apply'], { env });

    expect(result.code).toBe(1);
    const lines = result.stdout.split('\n').filter((l) => /^(applied|failed|skipped) /.test(l));
    expect(lines).toEqual([
      expect.stringMatching(
        /^failed {4}WafCustomRule\/block-sqli: update custom WAF rule \(PATCH \/shield\/waf\/custom-rule\/1234\) failed: 202 Accepted.*Not on the free tier.*\[waf\.plan_limit\]/,
      ),
      `failed    AccessList/office: the API returned checksum ${sha256Hex('x')} for list 9001, expected ${sha256Hex('203.0.113.0/24\n198.51.100.7\n192.0.2.10')}`,
      expect.stringMatching(
        /^failed {4}DnsZone\/example-com: disable DNSSEC \(DELETE \/dnszone\/12345\/dnssec\) failed: 500 Internal Server Error.*gave up after 6 attempts/,
      ),
    ]);
    expect(result.stdout).toContain('Apply: 0 applied, 3 failed, 0 skipped, 2 unchanged.');
  });

  it('refuses a plan that changes more than --max-change-percent of at least 10 resources, unless --force', async () => {
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
    // The state dir stays env's: this test's own, and unused until now.
    const zoneEnv = { ...env, EDGESYNC_BASE_URL: emu.url, EDGESYNC_CONFIG: dir };

    const refused = await cli(['apply'], { env: zoneEnv });
    const writesAfterRefusal = emu.journal.writes().length;
    const allowedByFlag = await cli(['plan', '--max-change-percent', '40'], { env: zoneEnv });
    const forced = await cli(['apply', '--force'], { env: zoneEnv });

    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      'error: the plan changes 4 of 10 managed resources (40%), more than --max-change-percent 30; re-run with --force if this is intended',
    );
    expect(writesAfterRefusal).toBe(0);
    expect(allowedByFlag.code).toBe(0);
    expect(forced.code).toBe(0);
    expect(emu.journal.writes()).toHaveLength(4);
  });

  it('apply --max-rps spaces every request it sends; EDGESYNC_MAX_RPS must be a number > 0', async () => {
    const started = performance.now();
    const capped = await cli(['apply', '--max-rps', '8'], { env });
    const elapsed = performance.now() - started;
    const bad = await cli(['plan'], { env: { ...env, EDGESYNC_MAX_RPS: 'fast' } });
    const zero = await cli(['plan', '--max-rps', '0'], { env });

    expect(capped.code).toBe(0);
    const sent = emu.journal.entries().length;
    expect(sent).toBeGreaterThan(5);
    expect(elapsed).toBeGreaterThanOrEqual((sent - 1) * 125);
    expect([bad.code, bad.stdout + bad.stderr]).toEqual([
      1,
      'edgesync: USAGE: EDGESYNC_MAX_RPS must be a number > 0, not "fast"\n',
    ]);
    expect(zero.code).toBe(1);
    expect(zero.stderr).toContain('--max-rps must be a number > 0');
  });

  it('an invalid config prints every issue with file:line:col and sends no request', async () => {
    writeTree(config, {
      'dns.yaml': `${DOC}kind: DnsZone\nmetadata: { name: example-com }\nspec: { id: 12345, dnssec: maybe }\n`,
    });

    const result = await cli(['apply'], { env });

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^dns\.yaml:4:\d+: .*\(at spec\.dnssec\)\nedgesync: CONFIG_INVALID: 1 problem/m,
    );
    expect(emu.journal.entries()).toEqual([]);
  });

  it.each([
    [
      'no key',
      { EDGESYNC_ACCESS_KEY: '' },
      'edgesync: USAGE: no access key: set EDGESYNC_ACCESS_KEY or pass --access-key-file FILE\n',
    ],
    [
      'a wrong key',
      { EDGESYNC_ACCESS_KEY: 'wrong-key' },
      /^edgesync: [^\n]*401 Unauthorized[^\n]*; check the access key \(EDGESYNC_ACCESS_KEY or --access-key-file\)\n$/,
    ],
    [
      'an unreachable API',
      { EDGESYNC_BASE_URL: 'http://127.0.0.1:9' },
      /^edgesync: [^\n]*connection refused[^\n]*\n$/,
    ],
  ])('%s is one clear line and exit 1', async (_name, overrides, expected) => {
    const result = await cli(['plan'], { env: { ...env, ...overrides } });

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    if (typeof expected === 'string') expect(result.stderr).toBe(expected);
    else expect(result.stderr).toMatch(expected);
  });

  it('a wrong key on apply is one line that says where the key comes from, and nothing is written', async () => {
    const result = await cli(['apply'], { env: { ...env, EDGESYNC_ACCESS_KEY: 'wrong-key' } });

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^edgesync: [^\n]*401 Unauthorized[^\n]*\n$/);
    expect(result.stderr.trimEnd().endsWith(KEY_HINT)).toBe(true);
    expect(emu.journal.writes()).toEqual([]);
  });

  it('an empty EDGESYNC_CONFIG means ./config, as for validate', async () => {
    const cwd = writeTree(tempDir(), {
      ...Object.fromEntries(Object.entries(CONFIG).map(([file, text]) => [`config/${file}`, text])),
      // Read only if the working directory itself were taken as the config directory.
      'stray.yaml': 'not: a document\n',
    });

    const fromDefault = await cli(['plan'], { cwd, env: { ...env, EDGESYNC_CONFIG: '' } });
    const fromFlag = await cli(['plan', '--config', config], { env });

    expect(fromDefault.code).toBe(0);
    expect(fromDefault.stderr).toBe('');
    expect(fromDefault.stdout).toBe(fromFlag.stdout);
  });

  it('never prints the access key, even at debug level', async () => {
    const key = 'SUPER-SECRET-ACCESS-KEY-3f9a';
    await emu.close();
    emu = await startEmulator({ accessKey: key, seed: TEST_SEED });
    const keyEnv = { ...env, EDGESYNC_ACCESS_KEY: key, EDGESYNC_BASE_URL: emu.url };
    emu.faults.script({ operation: 'disableDnssec', reply: { status: 500, body: { echoed: key } } });

    const runs = [
      await cli(['plan', '--log-level', 'debug', '--log-format', 'json'], { env: keyEnv }),
      await cli(['apply', '--log-level', 'debug', '--log-format', 'json'], { env: keyEnv }),
      await cli(['plan', '--json', '--log-level', 'trace'], { env: keyEnv }),
      await cli(['apply', '--json', '--log-level', 'debug'], {
        env: { ...keyEnv, EDGESYNC_BASE_URL: 'http://127.0.0.1:9' },
      }),
    ];

    const output = runs.map((r) => r.stdout + r.stderr).join('\n');
    expect(output).toContain('"component":"api"');
    expect(output).toContain('"event":"change.applied"');
    expect(output).not.toContain(key);
  });
});
