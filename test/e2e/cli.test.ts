/**
 * The built binary, as users run it: `node dist/src/main.js` in real processes (npm test
 * builds first). The emulator runs as its own process too, seeded with the demo account.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIN, REPO, requireBuild, runBinary } from '../helpers/spawn-daemon.js';

const KEY = 'e2e-key-7c1d';

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string> = {}): Promise<Result> {
  return runBinary(args, { NO_COLOR: '1', ...env }).then(({ code, stdout, stderr }) => ({
    code,
    stdout,
    stderr,
  }));
}

describe('the edgesync binary', () => {
  let emulator: ChildProcess;
  let url: string;
  let config: string;

  beforeAll(async () => {
    requireBuild();
    // Lives for the whole suite (the tempDir helper cleans up after each test).
    config = join(mkdtempSync(join(tmpdir(), 'edgesync-e2e-')), 'config');
    cpSync(join(REPO, 'config-examples'), config, { recursive: true });
    emulator = spawn(
      process.execPath,
      [MAIN, 'emulator', '--port', '0', '--seed', join(config, '.emulator/seed.yaml')],
      {
        env: { PATH: process.env.PATH ?? '', EDGESYNC_ACCESS_KEY: KEY },
      },
    );
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      emulator.stdout?.on('data', (d) => {
        out += d;
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (match?.[1]) resolve(match[1]);
      });
      emulator.on('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
    });
  });

  afterAll(() => {
    // beforeAll may have stopped before either existed (no build).
    emulator?.kill('SIGTERM');
    if (config !== undefined) rmSync(join(config, '..'), { recursive: true, force: true });
  });

  it('prints its version and help, and exits 1 on an unknown command', async () => {
    // The package's version, so a release bump that forgets src/cli/version.ts fails here.
    const { version: released } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
      version: string;
    };

    const version = await run(['--version']);
    const help = await run(['--help']);
    const unknown = await run(['frobnicate']);

    expect(version).toEqual({ code: 0, stdout: `${released}\n`, stderr: '' });
    // Each command on its own line of the Commands list, not just somewhere in a description.
    for (const command of [
      'validate',
      'plan',
      'apply',
      'run',
      'schema',
      'emulator',
      'inspect',
      'export',
      'forget',
    ])
      expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
  });

  // A dozen CLI processes one after another; generous for a loaded host.
  it('validates, plans, applies and converges against the emulator process', async () => {
    const env = { EDGESYNC_ACCESS_KEY: KEY, EDGESYNC_BASE_URL: url };
    const state = ['--state-dir', join(config, '..', 'state')];

    const validate = await run(['validate', '--config', config], env);
    const plan = await run(['plan', '--config', config, '--detailed-exitcode'], env);
    // The demo's apps roll out in 3 s: apply waits for them (checked every 500 ms here).
    const apply = await run(['apply', '--config', config, ...state, '--rollout-poll-ms', '500'], env);
    const again = await run(['apply', '--config', config, ...state, '--json'], env);
    // The exclusive zone's unclaimed rule, deleted only with --prune (EDGESYNC_PRUNE here).
    const pruned = await run(['apply', '--config', config, ...state], { ...env, EDGESYNC_PRUNE: 'true' });
    const settled = await run(['plan', '--config', config, ...state, '--prune', '--detailed-exitcode'], env);

    expect(validate.code).toBe(0);
    expect(validate.stdout).toBe('18 resources in 7 files are valid\n');
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain(
      'Plan: 5 to change (3 to create), 2 not written (suspended or report-only), 11 unchanged.',
    );
    expect(plan.stdout).toContain(
      [
        'With --prune (EDGESYNC_PRUNE=true) these would be deleted; --prune is off here, so they are not changes:',
        '  - WafCustomRule #802140 "Temporary scraper block" in Shield Zone 5310\n',
      ].join('\n'),
    );
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('Apply: 5 applied, 0 failed, 2 skipped, 11 unchanged.');
    expect(apply.stdout).toMatch(
      /\nRollouts:\n(?:active {4}ContainerApp\/(?:image-resizer|storefront): rolled out in \d+\.\d s\n){2}$/,
    );
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).counts).toEqual({ applied: 0, unchanged: 16, skipped: 2, failed: 0 });
    expect(pruned.code).toBe(0);
    expect(pruned.stdout).toContain(
      '- WafCustomRule/#802140 (no document) (delete #802140 "Temporary scraper block" from Shield Zone 5310: declared exclusive',
    );
    expect(pruned.stdout).toContain('applied   WafCustomRule/#802140 (delete #802140)');
    // Only drift that apply does not write (suspended, report-only): not a change.
    expect(settled).toMatchObject({ code: 0 });
    expect(settled.stdout).toContain(
      'Plan: 0 to change, 2 not written (suspended or report-only), 16 unchanged.',
    );
    expect([validate, plan, apply, again, pruned].map((r) => r.stdout + r.stderr).join('')).not.toContain(
      KEY,
    );
  }, 60_000);

  it('exits 1 with one line when the key is missing', async () => {
    const result = await run(['plan', '--config', config], { EDGESYNC_BASE_URL: url });

    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: 'edgesync: USAGE: no access key: set EDGESYNC_ACCESS_KEY or pass --access-key-file FILE\n',
    });
  });
});
