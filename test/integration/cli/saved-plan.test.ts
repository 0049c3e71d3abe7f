/**
 * Saved plans (docs/ci.md, Saved plans) in-process against the emulator over real HTTP:
 * `plan --out` writes the revision, live digests and exact requests; `apply FILE` sends exactly
 * those requests (the emulator's journal), and sends nothing — naming the resources — when a
 * live object changed since or the config is at another revision. Secrets are references in
 * the file, never values nor their plain hashes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../src/emulator/index.js';
import { cli } from '../../helpers/cli.js';
import { cliSession, DNS_ZONES_DOC, DRIFTED_RULE_DOC } from '../../helpers/cli-session.js';
import { call, TEST_KEY, TEST_SEED, withEmulator } from '../../helpers/emulator.js';
import { writesOf } from '../../helpers/engine.js';
import { filesOf, leaksOf, secretsAppYaml } from '../../helpers/secrets.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';

const DOC = 'apiVersion: edgesync/v1\n';

const CONFIG = {
  'shield/rules.yaml': DRIFTED_RULE_DOC,
  'dns.yaml': DNS_ZONES_DOC,
};

interface SavedRequest {
  method: string;
  path: string;
  body?: unknown;
}

describe('saved plans', () => {
  let emu: Emulator;
  let config: string;
  let work: string;
  let env: Record<string, string>;
  beforeEach(async () => {
    ({ emu, config, env } = await cliSession(CONFIG));
    work = tempDir();
  });
  afterEach(async () => {
    await emu.close();
  });

  function plannedRequests(file: string): SavedRequest[] {
    const saved = JSON.parse(readFileSync(join(work, file), 'utf8'));
    return saved.plan.changes.flatMap((c: { requests: SavedRequest[] }) =>
      c.requests.map((r) => ({ method: r.method, path: r.path, body: r.body })),
    );
  }

  it('plan --out saves revision, live digests and requests; apply FILE sends exactly those', async () => {
    const planned = await cli(['plan', '--out', 'plan.json', '--detailed-exitcode'], { env, cwd: work });
    const saved = JSON.parse(readFileSync(join(work, 'plan.json'), 'utf8'));
    emu.journal.clear();

    const applied = await cli(['apply', 'plan.json', '--detailed-exitcode'], { env, cwd: work });

    expect(planned.code).toBe(2);
    expect(planned.stdout).toContain('Plan: 2 to change, 1 unchanged.');
    expect(saved.format).toBe('edgesync-plan');
    expect(saved.revision).toMatch(/^config:[0-9a-f]{12}$/);
    expect(saved.configDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.keys(saved.live).sort()).toEqual([
      'DnsZone/example-com',
      'DnsZone/example-org',
      'WafCustomRule/block-sqli',
    ]);
    expect(applied.code).toBe(2);
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toContain('Apply: 2 applied, 0 failed, 0 skipped, 1 unchanged.');
    const sent = writesOf(emu).map((w) => ({ method: w.method, path: w.path, body: w.body }));
    const expected = plannedRequests('plan.json');
    expect(expected).toHaveLength(2);
    expect(sent.sort(byPath)).toEqual(expected.sort(byPath));
    expect(emu.state.dnsZone(12345)?.DnsSecEnabled).toBe(false);
  });

  it('refuses a plan whose live objects changed since, naming them, and sends nothing', async () => {
    await cli(['plan', '--out', 'plan.json'], { env, cwd: work });
    // Out of band: someone edits a rule the plan changes, and one it leaves alone.
    const edits = [
      await call(emu, 'PATCH', '/shield/waf/custom-rule/1234', {
        body: { ruleDescription: 'edited by hand' },
      }),
      await call(emu, 'POST', '/dnszone/12346/dnssec'),
    ];
    emu.journal.clear();

    const applied = await cli(['apply', 'plan.json'], { env, cwd: work });

    expect(edits.map((e) => e.status)).toEqual([200, 200]);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toBe(
      'edgesync: PLAN_STALE: live state changed since the plan was made: DnsZone/example-org, WafCustomRule/block-sqli; nothing was sent: plan again and review\n',
    );
    expect(emu.journal.writes()).toEqual([]);
    expect(emu.state.dnsZone(12345)?.DnsSecEnabled).toBe(true);
  });

  it('refuses a plan once it has been applied: the live objects it was made from are gone', async () => {
    await cli(['plan', '--out', 'plan.json'], { env, cwd: work });
    await cli(['apply', 'plan.json'], { env, cwd: work });
    emu.journal.clear();

    const again = await cli(['apply', 'plan.json'], { env, cwd: work });

    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      'live state changed since the plan was made: DnsZone/example-com, WafCustomRule/block-sqli;',
    );
    expect(emu.journal.writes()).toEqual([]);
  });

  it('refuses a plan made at another revision before reading anything', async () => {
    await cli(['plan', '--out', 'plan.json'], { env, cwd: work });
    const saved = JSON.parse(readFileSync(join(work, 'plan.json'), 'utf8'));
    writeFileSync(
      join(config, 'dns.yaml'),
      `${DOC}kind: DnsZone\nmetadata: { name: example-com }\nspec: { id: 12345, dnssec: true }\n`,
    );
    emu.journal.clear();

    const applied = await cli(['apply', 'plan.json'], { env, cwd: work });

    expect(applied.code).toBe(1);
    expect(applied.stderr).toMatch(
      new RegExp(
        `^edgesync: PLAN_STALE: the saved plan was made at revision ${saved.revision}, but the config is now at revision config:[0-9a-f]{12}; nothing was sent: plan again\\n$`,
      ),
    );
    expect(emu.journal.count()).toBe(0);
  });

  it('applies a saved plan that prunes with the options it was made with, and refuses it once an object is gone', async () => {
    writeTree(config, {
      'shield/zone.yaml': `${DOC}kind: ShieldZone\nmetadata: { name: main }\nspec: { shieldZoneId: 42, customWafRules: exclusive }\n`,
    });
    await cli(['plan', '--prune', '--force', '--out', 'prune.json'], { env, cwd: work });
    await cli(['plan', '--prune', '--force', '--out', 'again.json'], { env, cwd: work });
    const saved = JSON.parse(readFileSync(join(work, 'prune.json'), 'utf8'));
    emu.journal.clear();

    // No --prune, no --force here: the file holds them.
    const applied = await cli(['apply', 'prune.json'], { env, cwd: work });
    const deletes = writesOf(emu).filter((w) => w.method === 'DELETE' && w.path.startsWith('/shield/'));
    emu.journal.clear();
    const stale = await cli(['apply', 'again.json'], { env, cwd: work });

    expect(saved.options).toEqual({ prune: true, force: true, driftMode: 'correct', maxChangePercent: 30 });
    expect(applied.code).toBe(0);
    expect(deletes.map((d) => d.path).sort()).toEqual([
      '/shield/waf/custom-rule/1235',
      '/shield/waf/custom-rule/1236',
    ]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('WafCustomRule/#1235');
    expect(emu.journal.writes()).toEqual([]);
  });

  it('refuses a file that is not a saved plan, and plan-changing flags beside one', async () => {
    writeFileSync(join(work, 'other.json'), '{"version":1}');
    await cli(['plan', '--out', 'plan.json'], { env, cwd: work });
    emu.journal.clear();

    const other = await cli(['apply', 'other.json'], { env, cwd: work });
    const missing = await cli(['apply', 'missing.json'], { env, cwd: work });
    const forced = await cli(['apply', 'plan.json', '--force', '--prune'], { env, cwd: work });

    expect(other.stderr).toBe(
      'edgesync: PLAN_FILE_INVALID: other.json: not a plan saved by edgesync plan --out at format: Invalid input: expected "edgesync-plan"\n',
    );
    expect(missing.stderr).toBe('edgesync: PLAN_FILE_INVALID: cannot read missing.json: ENOENT\n');
    expect(forced.stderr).toBe(
      'edgesync: USAGE: --force, --prune cannot be given with a saved plan: it is applied with the options it was made with\n',
    );
    expect([other.code, missing.code, forced.code]).toEqual([1, 1, 1]);
    expect(emu.journal.count()).toBe(0);
  });
});

describe('saved plans with container secrets', () => {
  const DESIRED_DB = 'desired-db-51c0ee-never-print';
  const FILE_KEY = 'file-key-a0d4f2-never-print';
  const LITERAL = 'literal-7b3e19-never-print';
  const LIVE_DB = 'live-db-c2f5a8-never-print';
  const LIVE_KEY = 'live-key-93b6d1-never-print';
  const SECRETS = [DESIRED_DB, FILE_KEY, LITERAL, LIVE_DB, LIVE_KEY];

  it('writes every secret as a reference and applies the real values', async () => {
    const seed = structuredClone(TEST_SEED);
    const web = seed.apps?.[0]?.containerTemplates?.[0];
    if (web === undefined) throw new Error('TEST_SEED has no web container');
    web.environmentVariables = [
      { name: 'DATABASE_URL', value: LIVE_DB },
      { name: 'STRIPE_KEY', value: LIVE_KEY },
    ];
    const emu = await withEmulator(seed);
    try {
      const work = tempDir();
      const env = {
        EDGESYNC_ACCESS_KEY: TEST_KEY,
        EDGESYNC_BASE_URL: emu.url,
        EDGESYNC_CONFIG: writeTree(tempDir(), {
          'app.yaml': secretsAppYaml({ stripeKeyFile: 'stripe/key', literal: LITERAL }),
        }),
        EDGESYNC_STATE_DIR: tempDir(),
        EDGESYNC_SECRETS_DIR: writeTree(tempDir(), { 'stripe/key': `${FILE_KEY}\n` }),
        EDGESYNC_SECRET_DATABASE_URL: DESIRED_DB,
      };

      const planned = await cli(['plan', '--out', 'plan.json'], { env, cwd: work });
      const file = readFileSync(join(work, 'plan.json'), 'latin1');
      const applied = await cli(['apply', 'plan.json'], { env, cwd: work });

      expect(planned.code).toBe(0);
      expect(leaksOf(SECRETS, filesOf(work))).toEqual([]);
      const variables =
        JSON.parse(file).plan.changes[0].requests[0].body.containerTemplates[0].environmentVariables;
      expect(variables).toEqual([
        { name: 'LOG_LEVEL', value: 'info' },
        { name: 'DATABASE_URL', value: { $sensitive: 'env:EDGESYNC_SECRET_DATABASE_URL' } },
        { name: 'STRIPE_KEY', value: { $sensitive: 'file:stripe/key' } },
        { name: 'LEGACY', value: { $sensitive: 'config' } },
      ]);
      expect(applied.code).toBe(0);
      expect(leaksOf(SECRETS, applied.stdout + applied.stderr)).toEqual([]);
      const live = emu.state.app('app1')?.containerTemplates.find((c) => c.name === 'web');
      expect(Object.fromEntries((live?.environmentVariables ?? []).map((v) => [v.name, v.value]))).toEqual({
        LOG_LEVEL: 'info',
        DATABASE_URL: DESIRED_DB,
        STRIPE_KEY: FILE_KEY,
        LEGACY: LITERAL,
      });
    } finally {
      await emu.close();
    }
  });
});

function byPath(a: SavedRequest, b: SavedRequest): number {
  return a.path.localeCompare(b.path);
}
