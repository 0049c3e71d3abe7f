/**
 * The built binary's `run` as a real process (`node dist/src/main.js run …`; `npm test`
 * builds first): SIGTERM during an apply lets the write finish and exits 0, the shutdown
 * timeout bounds the wait, and the README's demo (`--emulator` on config-examples) finds and
 * corrects the seeded drift and picks up an edit.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { daemonConfigIn, until } from '../helpers/daemon.js';
import { TEST_KEY, test } from '../helpers/emulator.js';
import { REPO, spawnDaemon, spawnRun, useSpawnedDaemons } from '../helpers/spawn-daemon.js';
import { tempDir } from '../helpers/temp-dir.js';

useSpawnedDaemons();

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
    const config = join(tempDir(), 'config-examples');
    cpSync(join(REPO, 'config-examples'), config, { recursive: true });
    // The README's command, with the schedule pinned so that only the start-up and the edit run.
    const run = spawnRun(
      ['--emulator', '--config', config, '--listen', '127.0.0.1:0', '--schedule', '0 0 1 1 *'],
      {},
    );

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
