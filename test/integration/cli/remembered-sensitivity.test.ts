/**
 * Sensitivity is remembered (docs/secrets.md, What is printed): once edgesync applied
 * DATABASE_URL from `valueFrom` and LEGACY as a `sensitive` literal, a pull request that
 * deletes the entry, replaces it by `value: x`, renames it or drops `sensitive: true` must
 * not print the production value — not in `plan` text, `--json` or `--format markdown`, with
 * the state or without it (a CI checkout), and not in the daemon's `drift.detected` lines or
 * /status (`edgesync run` as a child process). Every byte of every output is searched.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../src/emulator/index.js';
import { cli } from '../../helpers/cli.js';
import { daemonArgs, request, until } from '../../helpers/daemon.js';
import { TEST_KEY, TEST_SEED, withEmulator } from '../../helpers/emulator.js';
import { filesOf, leaksOf, storefrontYaml } from '../../helpers/secrets.js';
import { spawnRun, useSpawnedDaemons } from '../../helpers/spawn-daemon.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';

useSpawnedDaemons();

const PROD_DB = 'postgres://app:prod-pw-8c21e7@db/prod';
const LEGACY = 'legacy-literal-4a9d03-never-print';
const SECRETS = [PROD_DB, LEGACY, 'prod-pw-8c21e7'];
const leaks = (text: string): string[] => leaksOf(SECRETS, text);

const VARIABLE = 'containerTemplates[web].environmentVariables';

/** What main holds: the secret from valueFrom, LEGACY a sensitive literal, LOG_LEVEL a plain one. */
const APPLIED = storefrontYaml(`        - { name: LOG_LEVEL, value: info }
        - name: DATABASE_URL
          valueFrom: { env: EDGESYNC_SECRET_DATABASE_URL }
        - { name: LEGACY, value: ${LEGACY}, sensitive: true }`);

/** The pull requests: each removes what would need the secret, and would print the live value. */
const PULL_REQUESTS: Record<string, { yaml: string; lines: string[] }> = {
  'entry deleted': {
    yaml: storefrontYaml(`        - { name: LOG_LEVEL, value: debug }
        - { name: LEGACY, value: ${LEGACY}, sensitive: true }`),
    lines: [
      `    ${VARIABLE}[LOG_LEVEL]: "info" → "debug"`,
      `    ${VARIABLE}[DATABASE_URL]: (sensitive) → (deleted)`,
    ],
  },
  'replaced by value: x': {
    yaml: storefrontYaml(`        - { name: LOG_LEVEL, value: info }
        - { name: DATABASE_URL, value: x }
        - { name: LEGACY, value: ${LEGACY}, sensitive: true }`),
    lines: [`    ${VARIABLE}[DATABASE_URL]: (sensitive) → "x"`],
  },
  renamed: {
    yaml: storefrontYaml(`        - { name: LOG_LEVEL, value: info }
        - { name: DB_URL, value: postgres://public }
        - { name: LEGACY, value: ${LEGACY}, sensitive: true }`),
    lines: [
      `    ${VARIABLE}[DB_URL]: (absent) → "postgres://public"`,
      `    ${VARIABLE}[DATABASE_URL]: (sensitive) → (deleted)`,
    ],
  },
  'sensitive: true dropped': {
    yaml: storefrontYaml(`        - { name: LOG_LEVEL, value: info }
        - { name: DATABASE_URL, sensitive: true }
        - { name: LEGACY, value: now-public }`),
    lines: [`    ${VARIABLE}[LEGACY]: (sensitive) → "now-public"`],
  },
};

describe('a pull request against an app whose secrets edgesync applied', () => {
  let emu: Emulator;
  let stateDir: string;
  let env: Record<string, string>;
  beforeEach(async () => {
    emu = await withEmulator(TEST_SEED);
    stateDir = tempDir();
    env = {
      EDGESYNC_ACCESS_KEY: TEST_KEY,
      EDGESYNC_BASE_URL: emu.url,
      EDGESYNC_STATE_DIR: stateDir,
      EDGESYNC_SECRET_DATABASE_URL: PROD_DB,
    };
    const applied = await cli(['apply'], {
      env: { ...env, EDGESYNC_CONFIG: writeTree(tempDir(), { 'storefront.yaml': APPLIED }) },
    });
    expect(applied.code).toBe(0);
    const web = emu.state.app('app1')?.containerTemplates.find((c) => c.name === 'web');
    expect(web?.environmentVariables?.find((v) => v.name === 'DATABASE_URL')?.value).toBe(PROD_DB);
  });
  afterEach(async () => {
    await emu.close();
  });

  for (const [name, pr] of Object.entries(PULL_REQUESTS)) {
    it(`${name}: plan text, JSON and Markdown print (sensitive), with the state and without it`, async () => {
      const config = writeTree(tempDir(), { 'storefront.yaml': pr.yaml });
      // The CI checkout has no secret and, in the second set, no state either.
      const ci: Record<string, string> = {
        ...env,
        EDGESYNC_CONFIG: config,
        EDGESYNC_SECRET_DATABASE_URL: '',
      };
      const { EDGESYNC_STATE_DIR: _state, ...stateless } = ci;
      const outputs: string[] = [];
      for (const runEnv of [ci, stateless]) {
        const text = await cli(['plan'], { env: runEnv });
        const json = await cli(['plan', '--json'], { env: runEnv });
        const markdown = await cli(['plan', '--format', 'markdown'], { env: runEnv });
        for (const run of [text, json, markdown]) outputs.push(run.stdout, run.stderr);
        expect(text.stdout).toContain(`(cause: ${runEnv === ci ? 'desired-changed' : 'unknown'})`);
        expect(markdown.stdout).toContain('(sensitive)');
        expect(JSON.stringify(JSON.parse(json.stdout).changes[0].diffs)).toContain('(sensitive)');
        if (runEnv === ci) {
          for (const line of pr.lines) expect(text.stdout).toContain(line);
        } else {
          // Without a state no live value is known to be a plain literal: LOG_LEVEL hides too.
          for (const line of pr.lines) {
            expect(text.stdout).toContain(line.replace(/: "info" →/, ': (sensitive) →'));
          }
        }
      }
      expect(leaks(outputs.join('\n'))).toEqual([]);
      expect(leaks(filesOf(stateDir))).toEqual([]);
      expect(emu.journal.writes()).toHaveLength(1);
    });
  }

  it('export writes what the last apply sent as secrets as placeholders, and the export plans no change', async () => {
    const exported = await cli(['export', '--app', 'app1'], { env });
    const stateless = await cli(['export', '--app', 'app1', '--state-dir', tempDir()], {
      env: { EDGESYNC_ACCESS_KEY: TEST_KEY, EDGESYNC_BASE_URL: emu.url },
    });

    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain(
      [
        '        - { name: LOG_LEVEL, value: info }',
        '        - name: DATABASE_URL',
        '          valueFrom: { env: EDGESYNC_SECRET_DATABASE_URL }',
        '        - name: LEGACY',
        '          valueFrom: { env: EDGESYNC_SECRET_LEGACY }',
      ].join('\n'),
    );
    expect(exported.stderr).toContain(
      'edgesync: warning: app app1, container web: LEGACY was applied as a secret and is written as valueFrom: { env: EDGESYNC_SECRET_LEGACY }',
    );
    expect(leaks(exported.stdout + exported.stderr)).toEqual([]);
    // Without the state's record nothing says these were secrets (docs/secrets.md, `export`).
    expect(stateless.stdout).toContain(LEGACY);

    const config = writeTree(tempDir(), { 'app.yaml': exported.stdout });
    const plan = await cli(['plan', '--detailed-exitcode'], {
      env: { ...env, EDGESYNC_CONFIG: config, EDGESYNC_SECRET_LEGACY: LEGACY },
    });
    expect(plan.stdout).toContain('Plan: 0 to change');
    expect(plan.code).toBe(0);
    expect(leaks(plan.stdout + plan.stderr)).toEqual([]);
  });

  it('a daemon reporting the drift of every such pull request logs and shows no secret', async () => {
    const config = writeTree(tempDir(), {
      'storefront.yaml': PULL_REQUESTS['entry deleted']?.yaml ?? '',
    });
    const d = spawnRun(
      daemonArgs({
        config,
        stateDir,
        baseUrl: emu.url,
        extra: ['--drift', 'report', '--log-level', 'debug'],
      }),
      { EDGESYNC_ACCESS_KEY: TEST_KEY, EDGESYNC_SECRET_DATABASE_URL: PROD_DB },
    );
    const drift = await until(
      () => d.events('drift.detected').find((l) => l.subject === 'ContainerApp/storefront'),
      'drift.detected of the app',
      20_000,
    );
    const url = String((await until(() => d.events('daemon.started')[0], 'daemon.started')).listen);
    await until(() => d.events('reconcile.finished')[0], 'the start-up run', 20_000);
    const status = (await request(`${url}/status`)).text;
    d.child.kill('SIGTERM');
    await d.exit;

    expect(drift.fields).toEqual([
      { path: `${VARIABLE}[LOG_LEVEL]`, live: 'info', desired: 'debug', cause: 'desired-changed' },
      {
        path: `${VARIABLE}[DATABASE_URL]`,
        live: '(sensitive)',
        desired: undefined,
        cause: 'desired-changed',
      },
    ]);
    expect(status).toContain('storefront');
    expect(leaks(d.output())).toEqual([]);
    expect(leaks(status)).toEqual([]);
    expect(leaks(filesOf(stateDir))).toEqual([]);
    expect(emu.journal.writes()).toHaveLength(1);
  }, 40_000);
});

describe('the state', () => {
  it('records per variable literal or sensitive, never a value', async () => {
    const emu = await withEmulator(TEST_SEED);
    try {
      const stateDir = tempDir();
      const applied = await cli(['apply'], {
        env: {
          EDGESYNC_ACCESS_KEY: TEST_KEY,
          EDGESYNC_BASE_URL: emu.url,
          EDGESYNC_STATE_DIR: stateDir,
          EDGESYNC_SECRET_DATABASE_URL: PROD_DB,
          EDGESYNC_CONFIG: writeTree(tempDir(), { 'storefront.yaml': APPLIED }),
        },
      });
      expect(applied.code).toBe(0);
      const state = JSON.parse(readFileSync(join(stateDir, 'state.json'), 'utf8'));
      expect(state.resources['ContainerApp/storefront'].remember).toEqual({
        environment: { web: { LOG_LEVEL: 'literal', DATABASE_URL: 'sensitive', LEGACY: 'sensitive' } },
        appId: 'app1',
      });
    } finally {
      await emu.close();
    }
  });
});
