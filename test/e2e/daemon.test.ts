/**
 * The built binary's `run` as a real process (`node dist/src/main.js run …`; `npm test`
 * builds first): SIGTERM during an apply lets the write finish and exits 0, the shutdown
 * timeout bounds the wait, and the README's demo (`--emulator` on config-examples) finds and
 * corrects the drift its emulated account starts with, picks up an edit, does what the README
 * says of `--prune` (refused at 33 %, deleting at `--max-change-percent 40`), and can be
 * planned against from a second terminal with the URL it prints.
 */
import { execFile } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect } from 'vitest';
import { daemonConfigIn, until } from '../helpers/daemon.js';
import { TEST_KEY, test } from '../helpers/emulator.js';
import { MAIN, REPO, spawnDaemon, spawnRun, useSpawnedDaemons } from '../helpers/spawn-daemon.js';
import { tempDir } from '../helpers/temp-dir.js';

useSpawnedDaemons();

/** A fresh copy of config-examples/, as a clone has it. */
function demoConfig(): string {
  const config = join(tempDir(), 'config-examples');
  cpSync(join(REPO, 'config-examples'), config, { recursive: true });
  return config;
}

/** The README demo's command on `config` with `extra` flags; the schedule pinned so only start-up runs. */
function spawnDemo(config: string, extra: readonly string[], env: Record<string, string> = {}) {
  return spawnRun(
    ['--emulator', '--config', config, '--listen', '127.0.0.1:0', '--schedule', '0 0 1 1 *', ...extra],
    env,
  );
}

/** The README's 33 %: the five corrections and the one prune of the first run, of 18. */
const DEMO_PRUNE_REFUSED =
  'the plan changes 6 of 18 managed resources (33%), more than --max-change-percent 30; re-run with --force if this is intended';

describe('edgesync run (spawned)', () => {
  test('SIGTERM during an apply lets the write finish, then exits 0', async ({ emu }) => {
    // The write is held 1.5 s in the emulator: SIGTERM arrives while it is in flight.
    emu.faults.script({ operation: 'updateCustomWafRule', reply: { delayMs: 1500 } });
    const { root, config } = daemonConfigIn('Applied during shutdown');
    const run = spawnDaemon(root, config, emu.url);

    await until(() => emu.faults.pending() === 0, 'the write to reach the emulator');
    const signalled = process.kill(run.child.pid as number, 'SIGTERM');
    const exit = await run.exit;
    const order = run
      .lines()
      .map((line) => line.event)
      .filter((event) =>
        ['daemon.stopping', 'change.applied', 'reconcile.finished', 'daemon.stopped'].includes(event ?? ''),
      );

    expect(signalled).toBe(true);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(order).toEqual(['daemon.stopping', 'change.applied', 'reconcile.finished', 'daemon.stopped']);
    expect(run.events('daemon.stopped')[0]?.aborted).toBe(false);
    expect(emu.state.customRule(1234)?.ruleName).toBe('Applied during shutdown');
    expect(emu.journal.writes().map((entry) => [entry.method, entry.path, entry.status])).toEqual([
      ['PATCH', '/shield/waf/custom-rule/1234', 200],
    ]);
    expect(run.output()).not.toContain(TEST_KEY);
  });

  test('--shutdown-timeout bounds the wait: the run is aborted and the process still exits 0', async ({
    emu,
  }) => {
    emu.faults.script({ operation: 'updateCustomWafRule', reply: { delayMs: 10_000 } });
    const { root, config } = daemonConfigIn('Too slow');
    const run = spawnDaemon(root, config, emu.url, ['--shutdown-timeout', '0.2']);

    await until(() => emu.faults.pending() === 0, 'the write to reach the emulator');
    process.kill(run.child.pid as number, 'SIGTERM');
    const exit = await run.exit;

    expect(exit).toEqual({ code: 0, signal: null });
    expect(run.events('daemon.shutdown.timeout')).toHaveLength(1);
    expect(run.events('daemon.stopped')[0]?.aborted).toBe(true);
    expect(run.events('change.failed').map((line) => line.subject)).toEqual(['WafCustomRule/block-sqli']);
  });
});

describe('the README demo: run --emulator on config-examples', () => {
  test('finds and corrects the seeded drift, then applies an edit', async () => {
    const config = demoConfig();
    // The README's command, with the schedule pinned so that only the start-up and the edit run.
    const run = spawnDemo(config, []);

    const first = await until(() => run.events('reconcile.finished')[0], 'the first reconcile');
    const zones = join(config, 'dns/zones.yaml');
    writeFileSync(
      zones,
      readFileSync(zones, 'utf8').replace('  id: 412874\n  dnssec: false', '  id: 412874\n  dnssec: true'),
    );
    // DnsZone/example-net is applied twice: DNSSEC off at start-up (the seeded drift), on after the edit.
    const edited = await until(
      () => run.events('change.applied').filter((line) => line.subject === 'DnsZone/example-net')[1],
      'the edit to be applied',
    );
    process.kill(run.child.pid as number, 'SIGTERM');
    const exit = await run.exit;

    expect(run.events('emulator.started')[0]).toMatchObject({ seed: '.emulator/seed.yaml' });
    expect(
      run
        .events('drift.detected')
        .slice(0, 6)
        .map((line) => [line.subject, line.skip ?? null]),
    ).toEqual([
      ['WafCustomRule/allow-health-checks', 'suspended'],
      ['WafCustomRule/block-api-scrapers', null],
      ['WafCustomRule/log-scanner-user-agents', 'report-only'],
      ['AccessList/blocked-crawlers', null],
      ['ContainerApp/image-resizer', null],
      ['ContainerApp/storefront', null],
    ]);
    expect(first).toMatchObject({
      trigger: 'startup',
      result: 'success',
      counts: { applied: 5, unchanged: 11, skipped: 2, failed: 0, created: 3 },
    });
    // Created once: the three documents now own their objects (the state's inventory). The app
    // is written in a lane of its own, beside zone 5310's, so its place among them varies.
    expect(
      run
        .events('change.applied')
        .filter((line) => line.action === 'create')
        .map((line) => line.subject)
        .sort(),
    ).toEqual([
      'AccessList/blocked-crawlers',
      'ContainerApp/image-resizer',
      'WafCustomRule/block-api-scrapers',
    ]);
    expect(run.events('reconcile.started')[1]).toMatchObject({ trigger: 'file-change', resources: 1 });
    expect(edited.requests).toEqual([
      {
        operation: 'enableDnssec',
        method: 'POST',
        path: '/dnszone/412874/dnssec',
        reply: expect.any(Object),
      },
    ]);
    expect(exit).toEqual({ code: 0, signal: null });
  });

  test('--prune is refused (PLAN_UNSAFE, 6 of 18); --prune --max-change-percent 40 deletes "Temporary scraper block"', async () => {
    const refused = spawnDemo(demoConfig(), ['--prune']);
    const first = await until(() => refused.events('reconcile.finished')[0], 'the refused run');
    process.kill(refused.child.pid as number, 'SIGTERM');
    await refused.exit;

    // Nothing is applied: each of the six writes fails with the threshold's message.
    expect(first).toMatchObject({ trigger: 'startup', result: 'failed' });
    expect(refused.events('change.applied')).toEqual([]);
    const failed = refused.events('change.failed');
    expect(failed.map((line) => line.error)).toEqual(
      Array.from({ length: 6 }, () => ({ code: 'PLAN_UNSAFE', message: DEMO_PRUNE_REFUSED })),
    );
    expect(failed.map((line) => line.subject)).toContain('WafCustomRule/#802140');

    const pruned = spawnDemo(demoConfig(), ['--prune', '--max-change-percent', '40']);
    await until(() => pruned.events('reconcile.finished')[0], 'the pruning run');
    process.kill(pruned.child.pid as number, 'SIGTERM');
    await pruned.exit;

    expect(pruned.events('change.failed')).toEqual([]);
    expect(pruned.events('change.applied').filter((line) => line.action === 'delete')).toEqual([
      expect.objectContaining({
        subject: 'WafCustomRule/#802140',
        object: { shieldZoneId: 5310, id: 802140, key: 'Temporary scraper block' },
        requests: [expect.objectContaining({ method: 'DELETE', path: '/shield/waf/custom-rule/802140' })],
      }),
    ]);
  });

  test('a second terminal plans against the running demo: the printed URL, EDGESYNC_ACCESS_KEY=demo', async () => {
    const config = demoConfig();
    const run = spawnDemo(config, [], { EDGESYNC_ACCESS_KEY: 'demo' });
    await until(() => run.events('reconcile.finished')[0], 'the first reconcile');
    const started = run.events('emulator.started')[0];
    const url = String(started?.url);

    // The README's second command, from the directory that holds config-examples/.
    const plan = await promisify(execFile)(
      process.execPath,
      [MAIN, 'plan', '--config', 'config-examples', '--base-url', url],
      {
        cwd: join(config, '..'),
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          NO_COLOR: '1',
          EDGESYNC_ACCESS_KEY: 'demo',
        },
      },
    );
    process.kill(run.child.pid as number, 'SIGTERM');
    await run.exit;

    expect(started?.msg).toBe(
      `embedded emulator started at ${url} (plan against it: --base-url ${url} with this EDGESYNC_ACCESS_KEY)`,
    );
    expect(plan.stdout).toContain(`API: ${url}`);
    const withPrune = plan.stdout.split('\n').findIndex((line) => line.startsWith('With --prune'));
    expect(withPrune).toBeGreaterThan(-1);
    expect(plan.stdout.split('\n').slice(withPrune).join('\n')).toContain('"Temporary scraper block"');
  });

  test('npm start’s arguments (pretty logs) show the drift found and corrected', async () => {
    const config = join(tempDir(), 'config-examples');
    cpSync(join(REPO, 'config-examples'), config, { recursive: true });
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
      scripts: { start: string };
    };
    const args = pkg.scripts.start.split('node dist/src/main.js run ')[1]?.split(' ') ?? [];
    // The same flags, on a copy of the directory and a free port.
    const run = spawnRun(
      args.map((arg) =>
        arg === 'config-examples' ? config : arg === '127.0.0.1:8080' ? '127.0.0.1:0' : arg,
      ),
      {},
    );

    await until(() => run.output().includes('reconcile finished'), 'the first reconcile');
    process.kill(run.child.pid as number, 'SIGTERM');
    const exit = await run.exit;
    const text = run.output();

    expect(args).toEqual([
      '--emulator',
      '--config',
      'config-examples',
      '--listen',
      '127.0.0.1:8080',
      '--log-format',
      'pretty',
    ]);
    expect(text).toMatch(/INFO \(edgesync\): drift detected\n/);
    expect(text).toContain('subject: "ContainerApp/storefront"');
    expect(text).toMatch(/INFO \(edgesync\): change applied\n/);
    expect(text).not.toMatch(/^\{/m);
    expect(exit).toEqual({ code: 0, signal: null });
  });
});
