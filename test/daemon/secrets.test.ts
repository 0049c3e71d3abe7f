/**
 * Neither the access key nor a webhook secret appears anywhere the daemon writes — stdout,
 * stderr, /status, /metrics — at `--log-level debug`, through every path that logs: hooks
 * (good, bad, oversized), a file change, a failed write, an invalid config and its fix.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  dnsYaml,
  edit,
  genericHook,
  githubHook,
  request,
  ruleYaml,
  secretFile,
  useDaemonFixture,
  writeDaemonConfig,
} from '../helpers/daemon.js';
import { TEST_SEED } from '../helpers/emulator.js';
import { writeTree } from '../helpers/temp-dir.js';

const KEY = 'AK-3f9c1e7b-never-print-this-key';
const SECRETS = ['WH-first-b81d-never-print', 'WH-second-94aa-never-print'];

const fx = useDaemonFixture(TEST_SEED, KEY);

function leaks(text: string): string[] {
  return [KEY, ...SECRETS].filter((secret) => text.includes(secret));
}

describe('secrets', () => {
  it.each([
    ['--access-key-file', 'file'],
    ['EDGESYNC_ACCESS_KEY', 'env'],
  ])('never appear in any output (key from %s)', async (_label, source) => {
    const config = writeDaemonConfig(join(fx.root, 'config'));
    writeTree(fx.root, { 'key.txt': `${KEY}\n` });
    const d = await fx.start(config, {
      extra: [
        '--log-level',
        'debug',
        '--webhook-secret-file',
        secretFile(...SECRETS),
        ...(source === 'file' ? ['--access-key-file', join(fx.root, 'key.txt')] : []),
      ],
      env: source === 'env' ? { EDGESYNC_ACCESS_KEY: KEY } : {},
    });

    await genericHook(d.url, '{}', SECRETS[0] as string);
    await githubHook(d.url, 'push', JSON.stringify({ ref: 'refs/heads/main' }), SECRETS[1] as string);
    await genericHook(d.url, '{}', 'wrong');
    await genericHook(d.url, 'x'.repeat(1024 * 1024 + 1), SECRETS[0] as string);
    fx.emu.faults.script({
      operation: 'updateCustomWafRule',
      reply: { status: 400, body: { success: false, message: 'rejected for the test', errorKey: 'test' } },
    });
    edit(config, 'shield/rules.yaml', ruleYaml('Leak check'));
    await d.waitForEvent('change.failed');
    edit(config, 'dns/zones.yaml', 'kind: [');
    await d.waitForEvent('config.invalid');
    edit(config, 'dns/zones.yaml', dnsYaml());
    await d.waitForEvent('config.valid');
    // The rejected write is not retried by itself (API_REJECTED); a full run sends it again.
    await genericHook(d.url, '{}', SECRETS[1] as string);
    await d.waitForEvent('change.applied', (line) => line.subject === 'WafCustomRule/block-sqli');
    const status = (await request(`${d.url}/status`)).text;
    const metrics = (await request(`${d.url}/metrics`)).text;
    const code = await d.stop();

    expect(code).toBe(0);
    expect(d.lines().some((line) => line.level === 'debug')).toBe(true);
    expect(d.events('change.failed')).toHaveLength(1);
    expect(leaks(d.output())).toEqual([]);
    expect(leaks(status)).toEqual([]);
    expect(leaks(metrics)).toEqual([]);
  });
});
