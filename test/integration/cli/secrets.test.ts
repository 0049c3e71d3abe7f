/**
 * Container secrets (docs/design.md, Secrets in container apps) through the CLI, in-process against the emulator over real
 * HTTP: `valueFrom` env and file sources and a `sensitive` literal are sent as they are (the
 * emulator's journal), and no secret — desired or live, nor a plain SHA-256 of one — appears
 * in any byte of plan text, Markdown, JSON, apply output, the audit log or the state
 * directory. A rotation is a visible change; every unusable source has its exact message and
 * sends nothing.
 */
import { mkdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../src/emulator/index.js';
import { INSTALL_KEY_FILE } from '../../../src/state/file-backend.js';
import { cli } from '../../helpers/cli.js';
import { TEST_KEY, TEST_SEED, withEmulator } from '../../helpers/emulator.js';
import { writesOf } from '../../helpers/engine.js';
import { filesOf, leaksOf, secretsAppYaml } from '../../helpers/secrets.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';

const DESIRED_DB = 'desired-db-9f3a7c-never-print';
const FILE_KEY = 'file-key-77c2e1-never-print';
const LITERAL = 'literal-5e8d0b-never-print';
const LIVE_DB = 'live-db-4b1d22-never-print';
const LIVE_KEY = 'live-key-0c9e41-never-print';
const ROTATED_DB = 'rotated-db-a61f08-never-print';
const EDITED_KEY = 'edited-key-3d7b55-never-print';
const SECRETS = [DESIRED_DB, FILE_KEY, LITERAL, LIVE_DB, LIVE_KEY, ROTATED_DB, EDITED_KEY];

/** Each secret, and the plain SHA-256 of each, that appears in `text`: none may. */
const leaks = (text: string): string[] => leaksOf(SECRETS, text);

const APP = secretsAppYaml({ stripeKeyFile: 'stripe/key', literal: LITERAL });

const VARIABLE = 'containerTemplates[web].environmentVariables';

function seed() {
  const copy = structuredClone(TEST_SEED);
  const web = copy.apps?.[0]?.containerTemplates?.[0];
  if (web === undefined) throw new Error('TEST_SEED has no web container');
  web.environmentVariables = [
    { name: 'LOG_LEVEL', value: 'info' },
    { name: 'DATABASE_URL', value: LIVE_DB },
    { name: 'STRIPE_KEY', value: LIVE_KEY },
  ];
  return copy;
}

describe('container secrets', () => {
  let emu: Emulator;
  let secretsDir: string;
  let stateDir: string;
  let env: Record<string, string>;
  beforeEach(async () => {
    emu = await withEmulator(seed());
    secretsDir = writeTree(tempDir(), { 'stripe/key': `${FILE_KEY}\r\n` });
    stateDir = tempDir();
    env = {
      EDGESYNC_ACCESS_KEY: TEST_KEY,
      EDGESYNC_BASE_URL: emu.url,
      EDGESYNC_CONFIG: writeTree(tempDir(), { 'storefront.yaml': APP }),
      EDGESYNC_STATE_DIR: stateDir,
      EDGESYNC_SECRETS_DIR: secretsDir,
      EDGESYNC_SECRET_DATABASE_URL: DESIRED_DB,
    };
  });
  afterEach(async () => {
    await emu.close();
  });

  function liveVariables(): Record<string, string | null | undefined> {
    const web = emu.state.app('app1')?.containerTemplates.find((c) => c.name === 'web');
    return Object.fromEntries((web?.environmentVariables ?? []).map((v) => [v.name, v.value]));
  }

  it('plan in text, Markdown and JSON shows every secret as (sensitive), desired and live', async () => {
    const text = await cli(['plan'], { env });
    const markdown = await cli(['plan', '--format', 'markdown'], { env });
    const json = await cli(['plan', '--json'], { env });

    expect(text.stdout).toBe(
      [
        `API: ${emu.url}`,
        '',
        '~ ContainerApp/storefront storefront.yaml:1 (cause: unknown)',
        `    ${VARIABLE}[DATABASE_URL]: (sensitive) → (sensitive)`,
        `    ${VARIABLE}[STRIPE_KEY]: (sensitive) → (sensitive)`,
        `    ${VARIABLE}[LEGACY]: (absent) → (sensitive)`,
        '',
        'Plan: 1 to change, 0 unchanged.',
        '',
      ].join('\n'),
    );
    expect(markdown.stdout).toContain(
      `| ✏️ | \`ContainerApp/storefront\` | \`${VARIABLE}[DATABASE_URL]\` | \`(sensitive)\` | \`(sensitive)\` |`,
    );
    const change = JSON.parse(json.stdout).changes[0];
    expect(change.requests[0].body.containerTemplates[0].environmentVariables).toEqual([
      { name: 'LOG_LEVEL', value: 'info' },
      { name: 'DATABASE_URL', value: '(sensitive)' },
      { name: 'STRIPE_KEY', value: '(sensitive)' },
      { name: 'LEGACY', value: '(sensitive)' },
    ]);
    expect(change.digest).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    for (const run of [text, markdown, json]) {
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');
      expect(leaks(run.stdout)).toEqual([]);
    }
    expect(emu.journal.writes()).toEqual([]);
  });

  it('apply sends the real values, prints none, keeps none in the state, and converges', async () => {
    const applied = await cli(['apply', '--log-level', 'debug'], { env });
    const again = await cli(['apply', '--json', '--log-level', 'debug'], { env });

    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('applied   ContainerApp/storefront');
    // The file's one trailing CRLF is not part of the value.
    expect(liveVariables()).toEqual({
      LOG_LEVEL: 'info',
      DATABASE_URL: DESIRED_DB,
      STRIPE_KEY: FILE_KEY,
      LEGACY: LITERAL,
    });
    const sent = writesOf(emu);
    expect(sent).toHaveLength(1);
    expect(JSON.stringify(sent[0]?.body)).toContain(`{"name":"DATABASE_URL","value":"${DESIRED_DB}"}`);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).counts.applied).toBe(0);
    expect(writesOf(emu)).toHaveLength(1);
    // The audit log went to stderr at debug level: every line, and the outputs, are clean.
    expect(applied.stderr).toContain('"event":"drift.detected"');
    for (const run of [applied, again]) expect(leaks(run.stdout + run.stderr)).toEqual([]);
    expect(leaks(filesOf(stateDir))).toEqual([]);
    const state = JSON.parse(readFileSync(join(stateDir, 'state.json'), 'utf8'));
    expect(state.resources['ContainerApp/storefront'].digest).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(statSync(join(stateDir, INSTALL_KEY_FILE)).mode & 0o777).toBe(0o600);
  });

  it('creates an app from a file without appId: POST /mc/apps carries its endpoint and the real valueFrom value; no plan, audit line or state byte holds it', async () => {
    const config = writeTree(tempDir(), {
      'docs.yaml': `apiVersion: edgesync/v1
kind: ContainerApp
metadata: { name: docs }
spec:
  name: docs site
  regionSettings: { allowedRegionIds: [DE], requiredRegionIds: [DE] }
  containerTemplates:
    - name: web
      imageRegistryId: "1"
      imageNamespace: library
      imageName: nginx
      imageTag: "1.27"
      endpoints:
        - displayName: public
          cdn: { isSslEnabled: true, portMappings: [{ containerPort: 80 }] }
      environmentVariables:
        - { name: LOG_LEVEL, value: info }
        - name: DATABASE_URL
          valueFrom: { env: EDGESYNC_SECRET_DATABASE_URL }
`,
    });
    const creating = { ...env, EDGESYNC_CONFIG: config };

    const text = await cli(['plan'], { env: creating });
    const markdown = await cli(['plan', '--format', 'markdown'], { env: creating });
    const json = await cli(['plan', '--json'], { env: creating });
    const applied = await cli(['apply', '--log-level', 'debug', '--rollout-poll-ms', '20'], {
      env: creating,
    });
    const again = await cli(['plan', '--json'], { env: creating });

    const created = emu.state.apps().filter((a) => a.name === 'docs site');
    const id = created[0]?.id;
    expect(created).toHaveLength(1);
    expect(applied.code).toBe(0);
    expect(writesOf(emu)).toEqual([
      {
        method: 'POST',
        path: '/mc/apps',
        body: {
          name: 'docs site',
          runtimeType: 'shared',
          autoScaling: { min: 1, max: 1 },
          regionSettings: { allowedRegionIds: ['DE'], requiredRegionIds: ['DE'] },
          containerTemplates: [
            {
              name: 'web',
              imageName: 'nginx',
              imageNamespace: 'library',
              imageTag: '1.27',
              imageRegistryId: '1',
              endpoints: [
                { displayName: 'public', cdn: { isSslEnabled: true, portMappings: [{ containerPort: 80 }] } },
              ],
              environmentVariables: [
                { name: 'LOG_LEVEL', value: 'info' },
                { name: 'DATABASE_URL', value: DESIRED_DB },
              ],
            },
          ],
        },
      },
      { method: 'POST', path: `/mc/apps/${id}/deploy`, body: undefined },
    ]);
    expect(text.stdout).toBe(
      [
        `API: ${emu.url}`,
        '',
        '+ ContainerApp/docs docs.yaml:1 (create in the account, cause: unknown)',
        '    name: "" → "docs site"',
        '    regionSettings.allowedRegionIds: [] → ["DE"]',
        '    regionSettings.requiredRegionIds: [] → ["DE"]',
        '    containerTemplates[web]: (absent) → "new container library/nginx:1.27"',
        '',
        'Plan: 1 to change (1 to create), 0 unchanged.',
        '',
      ].join('\n'),
    );
    expect(
      JSON.parse(json.stdout).changes[0].requests[0].body.containerTemplates[0].environmentVariables,
    ).toEqual([
      { name: 'LOG_LEVEL', value: 'info' },
      { name: 'DATABASE_URL', value: '(sensitive)' },
    ]);
    expect(applied.stderr).toContain('"event":"change.applied"');
    expect(JSON.parse(again.stdout).changes.map((c: { action: string }) => c.action)).toEqual(['noop']);
    for (const run of [text, markdown, json, applied, again])
      expect(leaks(run.stdout + run.stderr)).toEqual([]);
    expect(leaks(filesOf(stateDir))).toEqual([]);
  });

  it('shows a rotated secret as a change of its variable (desired-changed), a live edit as out-of-band', async () => {
    await cli(['apply'], { env });
    const rotated = { ...env, EDGESYNC_SECRET_DATABASE_URL: ROTATED_DB };

    const rotation = await cli(['plan'], { env: rotated });
    await cli(['apply'], { env: rotated });
    const web = emu.state.app('app1')?.containerTemplates.find((c) => c.name === 'web');
    const stripe = web?.environmentVariables?.find((v) => v.name === 'STRIPE_KEY');
    if (stripe === undefined) throw new Error('STRIPE_KEY was not applied');
    stripe.value = EDITED_KEY;
    const edit = await cli(['plan'], { env: rotated });

    expect(rotation.stdout).toBe(
      [
        `API: ${emu.url}`,
        '',
        '~ ContainerApp/storefront storefront.yaml:1 (cause: desired-changed)',
        `    ${VARIABLE}[DATABASE_URL]: (sensitive) → (sensitive)`,
        '',
        'Plan: 1 to change, 0 unchanged.',
        '',
      ].join('\n'),
    );
    expect(liveVariables().DATABASE_URL).toBe(ROTATED_DB);
    expect(edit.stdout).toBe(
      [
        `API: ${emu.url}`,
        '',
        '~ ContainerApp/storefront storefront.yaml:1 (cause: out-of-band)',
        `    ${VARIABLE}[STRIPE_KEY]: (sensitive) → (sensitive)`,
        '',
        'Plan: 1 to change, 0 unchanged.',
        '',
      ].join('\n'),
    );
    expect(leaks(rotation.stdout + edit.stdout + filesOf(stateDir))).toEqual([]);
  });

  it('keeps a secret the API quotes in its refusal out of the error, the audit log and the output', async () => {
    emu.faults.script({
      operation: 'patchApp',
      reply: { status: 400, body: { title: 'Bad Request', detail: `value ${DESIRED_DB} is not allowed` } },
    });

    const apply = await cli(['apply', '--log-level', 'info'], { env });

    expect(apply.code).toBe(1);
    // The request carried secrets: the API's words are withheld, status and shape are kept.
    expect(apply.stdout).toContain(
      'failed    ContainerApp/storefront: update app (PATCH /mc/apps/app1) failed: 400 Bad Request: ' +
        '(message not shown: the request carried a sensitive value) (problem details)',
    );
    expect(apply.stderr).toContain('"event":"change.failed"');
    expect(leaks(apply.stdout + apply.stderr + filesOf(stateDir))).toEqual([]);
  });

  const PREFIX = `! ContainerApp/storefront storefront.yaml:1\n    error: environment variable`;
  it.each([
    [
      'an unset variable',
      (e: Record<string, string>) => delete e.EDGESYNC_SECRET_DATABASE_URL,
      "DATABASE_URL of container web: EDGESYNC_SECRET_DATABASE_URL is not set in edgesync's environment",
    ],
    [
      'an empty variable',
      (e: Record<string, string>) => (e.EDGESYNC_SECRET_DATABASE_URL = ''),
      'DATABASE_URL of container web: EDGESYNC_SECRET_DATABASE_URL is empty',
    ],
    [
      'no secrets directory',
      (e: Record<string, string>) => delete e.EDGESYNC_SECRETS_DIR,
      'STRIPE_KEY of container web: secret file "stripe/key" needs a secrets directory: set --secrets-dir or EDGESYNC_SECRETS_DIR',
    ],
    [
      'a missing file',
      (e: Record<string, string>) => (e.EDGESYNC_SECRETS_DIR = tempDir()),
      'STRIPE_KEY of container web: secret file "stripe/key" does not exist in the secrets directory {dir}',
    ],
  ])('sends nothing for the app when a source fails: %s', async (_label, change, message) => {
    change(env);

    const plan = await cli(['plan'], { env });
    const apply = await cli(['apply'], { env });

    const expected = message.replace('{dir}', env.EDGESYNC_SECRETS_DIR ?? '');
    expect(plan.stdout).toBe(
      `API: ${emu.url}\n\n${PREFIX} ${expected}\n\nPlan: 0 to change, 1 failed or refused, 0 unchanged.\n`,
    );
    expect(apply.stdout).toContain(`failed    ContainerApp/storefront: environment variable ${expected}\n`);
    expect([plan.code, apply.code]).toEqual([1, 1]);
    expect(emu.journal.writes()).toEqual([]);
    expect(liveVariables().DATABASE_URL).toBe(LIVE_DB);
  });

  it('refuses a secret file reached through a link that leaves the secrets directory, or too large', async () => {
    const outside = writeTree(tempDir(), { key: `${FILE_KEY}\n` });
    const linked = tempDir();
    mkdirSync(join(linked, 'stripe'));
    symlinkSync(join(outside, 'key'), join(linked, 'stripe/key'));
    const large = writeTree(tempDir(), { 'stripe/key': 'x'.repeat(64 * 1024 + 1) });

    const escaping = await cli(['apply'], { env: { ...env, EDGESYNC_SECRETS_DIR: linked } });
    const oversized = await cli(['apply'], { env: { ...env, EDGESYNC_SECRETS_DIR: large } });

    expect(escaping.stdout).toContain(
      `failed    ContainerApp/storefront: environment variable STRIPE_KEY of container web: secret file "stripe/key" resolves outside the secrets directory ${linked}\n`,
    );
    expect(oversized.stdout).toContain(
      'failed    ContainerApp/storefront: environment variable STRIPE_KEY of container web: secret file "stripe/key" is larger than 64 KiB\n',
    );
    expect(emu.journal.writes()).toEqual([]);
    expect(leaks(escaping.stdout + escaping.stderr)).toEqual([]);
  });

  it('follows a Kubernetes-style link into a ..data folder of the secrets directory', async () => {
    const mounted = writeTree(tempDir(), { '..2026_11_26/key': `${FILE_KEY}\n` });
    symlinkSync('..2026_11_26', join(mounted, '..data'));
    mkdirSync(join(mounted, 'stripe'));
    symlinkSync('../..data/key', join(mounted, 'stripe/key'));

    const applied = await cli(['apply'], { env: { ...env, EDGESYNC_SECRETS_DIR: mounted } });

    expect(applied.code).toBe(0);
    expect(liveVariables().STRIPE_KEY).toBe(FILE_KEY);
  });

  it('validate refuses other variables, paths that leave the directory and value with valueFrom', async () => {
    const config = writeTree(tempDir(), {
      'storefront.yaml': APP.replace('EDGESYNC_SECRET_DATABASE_URL', 'EDGESYNC_ACCESS_KEY')
        .replace('stripe/key', '../state/install.key')
        .replace(`value: ${LITERAL}`, `value: ${LITERAL}\n          valueFrom: { env: EDGESYNC_SECRET_X }`),
    });

    const run = await cli(['validate', '--config', config]);

    const at = (path: string) => ` (at spec.containerTemplates[0].environmentVariables[${path})`;
    expect(run.stdout + run.stderr).toBe(
      [
        `${config}/storefront.yaml:11:29: only variables named EDGESYNC_SECRET_<NAME> (letters, digits, _) may be read, not "EDGESYNC_ACCESS_KEY"${at('1].valueFrom.env')}`,
        `${config}/storefront.yaml:13:30: must stay inside the secrets directory: no empty, ".", ".." or hidden segments ("../state/install.key")${at('2].valueFrom.file')}`,
        `${config}/storefront.yaml:16:22: give either value or valueFrom, not both${at('3].valueFrom')}`,
        `edgesync: CONFIG_INVALID: 3 problems in ${config}`,
        '',
      ].join('\n'),
    );
    expect(run.code).toBe(1);
  });
});

describe('export of secret-looking variables', () => {
  let emu: Emulator;
  beforeEach(async () => {
    emu = await withEmulator(seed());
  });
  afterEach(async () => {
    await emu.close();
  });
  const env = () => ({ EDGESYNC_ACCESS_KEY: TEST_KEY, EDGESYNC_BASE_URL: emu.url });

  it('writes them as valueFrom placeholders and says so; --include-secret-values writes them as they are', async () => {
    const placeholders = await cli(['export', '--app', 'app1'], { env: env() });
    const values = await cli(['export', '--app', 'app1', '--include-secret-values'], { env: env() });

    expect(placeholders.code).toBe(0);
    expect(placeholders.stdout).toContain(
      ['        - name: STRIPE_KEY', '          valueFrom: { env: EDGESYNC_SECRET_STRIPE_KEY }'].join('\n'),
    );
    expect(placeholders.stderr).toBe(
      'edgesync: warning: app app1, container web: STRIPE_KEY looks secret and is written as valueFrom: ' +
        '{ env: EDGESYNC_SECRET_STRIPE_KEY }; set EDGESYNC_SECRET_STRIPE_KEY where edgesync runs, or re-run with --include-secret-values\n',
    );
    expect(placeholders.stdout).not.toContain(LIVE_KEY);
    // DATABASE_URL does not look secret: written as it is (docs/secrets.md says to review exports).
    expect(placeholders.stdout).toContain(LIVE_DB);
    expect(values.stdout).toContain(`value: ${LIVE_KEY}`);
    expect(values.stderr).toBe('');
  });

  it('round-trips: the exported placeholders, with their variables set, plan no change', async () => {
    const exported = await cli(['export', '--app', 'app1'], { env: env() });
    const config = writeTree(tempDir(), { 'app.yaml': exported.stdout });

    const plan = await cli(['plan', '--detailed-exitcode'], {
      env: {
        ...env(),
        EDGESYNC_CONFIG: config,
        EDGESYNC_STATE_DIR: tempDir(),
        EDGESYNC_SECRET_STRIPE_KEY: LIVE_KEY,
      },
    });

    // With no state yet the app is found by name: an adoption with nothing to change, which is
    // information, not a change; apply only records it (see docs/reconcile.md, Exit codes).
    expect(plan.stdout).toBe(
      `API: ${emu.url}\n\nNo changes. Live state matches the desired state.\n\n` +
        'Adopted by name, no changes (information: apply records them as managed):\n' +
        '  = ContainerApp/storefront #app1 "storefront" in the account (app.yaml:2)\n\n' +
        'Plan: 0 to change, 0 unchanged. Information: 1 adopted by name, no changes.\n',
    );
    expect(plan.code).toBe(0);
  });
});
