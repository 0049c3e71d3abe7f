/**
 * Container secrets in the daemon: the start-up run sends the real values (the emulator's
 * journal), a rotated secret file is applied on the next run and audited as a change of its
 * variable, a vanished one fails the app with nothing sent — and no secret, desired or live,
 * nor a plain SHA-256 of one, appears in any log line (at debug), /status, /metrics or any
 * byte of the state directory.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { genericHook, request, secretFile, until, useDaemonFixture } from '../helpers/daemon.js';
import { TEST_KEY, TEST_SEED } from '../helpers/emulator.js';
import { filesOf, leaksOf, secretsAppYaml } from '../helpers/secrets.js';
import { writeTree } from '../helpers/temp-dir.js';

const DESIRED_DB = 'daemon-desired-db-2c8e51-never-print';
const FILE_KEY = 'daemon-file-key-b04d19-never-print';
const ROTATED_KEY = 'daemon-rotated-key-67fa3e-never-print';
const LITERAL = 'daemon-literal-e1c9a4-never-print';
const LIVE_DB = 'daemon-live-db-58b7d0-never-print';
const SECRETS = [DESIRED_DB, FILE_KEY, ROTATED_KEY, LITERAL, LIVE_DB];
const HOOK = 'hook-secret-for-this-test';

/** Each secret, and the plain SHA-256 of each, that appears in `text`: none may. */
const leaks = (text: string): string[] => leaksOf(SECRETS, text);

const seed = structuredClone(TEST_SEED);
const web = seed.apps?.[0]?.containerTemplates?.[0];
if (web !== undefined) {
  web.environmentVariables = [
    { name: 'LOG_LEVEL', value: 'info' },
    { name: 'DATABASE_URL', value: LIVE_DB },
  ];
}

const APP = secretsAppYaml({ stripeKeyFile: 'stripe-key', literal: LITERAL });

const fx = useDaemonFixture(seed);

describe('container secrets in the daemon', () => {
  it('are sent as they are, rotated, refused when gone, and never printed or stored', async () => {
    const config = writeTree(join(fx.root, 'config'), { 'apps/storefront.yaml': APP });
    const secrets = writeTree(join(fx.root, 'secrets'), { 'stripe-key': `${FILE_KEY}\n` });
    const state = join(fx.root, 'state');
    const d = await fx.start(config, {
      extra: ['--log-level', 'debug', '--secrets-dir', secrets, '--webhook-secret-file', secretFile(HOOK)],
      env: { EDGESYNC_ACCESS_KEY: TEST_KEY, EDGESYNC_SECRET_DATABASE_URL: DESIRED_DB },
    });
    const first = await d.waitForEvent('change.applied', (l) => l.subject === 'ContainerApp/storefront');

    writeFileSync(join(secrets, 'stripe-key'), `${ROTATED_KEY}\n`);
    await genericHook(d.url, '{}', HOOK);
    await d.waitForEvent('change.applied', (l) => l.subject === 'ContainerApp/storefront', 2);
    rmSync(join(secrets, 'stripe-key'));
    await genericHook(d.url, '{}', HOOK);
    const failed = await d.waitForEvent('change.failed', (l) => l.subject === 'ContainerApp/storefront');
    // The status is recorded when the run ends, just after its audit lines. The run record (in
    // `runs`, with each change's error) lands a moment before the resource's own record, so wait
    // for the resource: any SECRET_UNAVAILABLE in the text is not yet the resource's.
    const status = await until(async () => {
      const text = (await request(`${d.url}/status`)).text;
      const resources = (
        JSON.parse(text) as { resources: { subject: string; lastError: { code: string } | null }[] }
      ).resources;
      const app = resources.find((r) => r.subject === 'ContainerApp/storefront');
      return app?.lastError?.code === 'SECRET_UNAVAILABLE' && text;
    }, 'the failure in /status');
    const metrics = (await request(`${d.url}/metrics`)).text;
    await d.stop();

    const sent = fx.emu.journal.writes().map((w) => JSON.stringify(w.requestBody));
    expect(sent).toHaveLength(2);
    expect(sent[0]).toContain(`{"name":"DATABASE_URL","value":"${DESIRED_DB}"}`);
    expect(sent[0]).toContain(`{"name":"STRIPE_KEY","value":"${FILE_KEY}"}`);
    expect(sent[0]).toContain(`{"name":"LEGACY","value":"${LITERAL}"}`);
    expect(sent[1]).toContain(`{"name":"STRIPE_KEY","value":"${ROTATED_KEY}"}`);
    expect(first.requests).toEqual([{ operation: 'patchApp', method: 'PATCH', path: '/mc/apps/app1' }]);
    const rotation = d.events('drift.detected').filter((l) => l.subject === 'ContainerApp/storefront')[1];
    expect(rotation?.cause).toBe('desired-changed');
    expect(rotation?.fields).toEqual([
      {
        path: 'containerTemplates[web].environmentVariables[STRIPE_KEY]',
        live: '(sensitive)',
        desired: '(sensitive)',
        cause: 'desired-changed',
      },
    ]);
    expect(failed.error).toEqual({
      code: 'SECRET_UNAVAILABLE',
      message: `environment variable STRIPE_KEY of container web: secret file "stripe-key" does not exist in the secrets directory ${secrets}`,
    });
    expect(JSON.parse(status).resources).toContainEqual(
      expect.objectContaining({
        subject: 'ContainerApp/storefront',
        lastError: expect.objectContaining({ code: 'SECRET_UNAVAILABLE' }),
      }),
    );
    expect(d.lines().some((line) => line.level === 'debug')).toBe(true);
    expect(leaks(d.output())).toEqual([]);
    expect(leaks(status)).toEqual([]);
    expect(leaks(metrics)).toEqual([]);
    const stored = readdirSync(state).map((file) => readFileSync(join(state, file), 'latin1'));
    expect(stored.length).toBeGreaterThanOrEqual(2);
    expect(leaks(filesOf(state))).toEqual([]);
  });
});
