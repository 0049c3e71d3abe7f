/**
 * kill -9 at random moments while the daemon applies, ten times, restarting each time: the
 * state file always parses, and the daemon converges — live equals desired, no duplicate
 * container, no two rules with one name (a create killed before the state was saved is
 * adopted by its key on the next run), the exclusive zone's stale rules pruned, nothing lost. The daemon runs as a real process; the emulator lives in the test
 * process so the account survives every kill.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { EmulatorSeed } from '../../src/emulator/index.js';
import { STATE_FILE } from '../../src/state/file-backend.js';
import { cliAgainst } from '../helpers/cli.js';
import { until } from '../helpers/daemon.js';
import { TEST_KEY, withEmulator } from '../helpers/emulator.js';
import { prng } from '../helpers/generate.js';
import { spawnRun, useSpawnedDaemons } from '../helpers/spawn-daemon.js';
import { tempDir, writeTree } from '../helpers/temp-dir.js';

const RULES = 120;
const ZONES = 20;
const APPS = 3;
const KILLS = 10;
/** Rules without ids in zone 43, created by the daemon; zone 43 is exclusive, its stale rules pruned. */
const CREATES = 10;
const STALE = 2;

function rule(i: number, value: string) {
  return {
    id: 5000 + i,
    ruleName: `rule ${i}`,
    ruleConfiguration: {
      actionType: 'Block',
      operatorType: 'CONTAINS',
      severityType: 'WARNING',
      variableTypes: { ARGS: '' },
      value,
    },
  };
}

function image(name: string) {
  return { imageRegistryId: '1', imageNamespace: 'acme', imageName: name, imageTag: '1.0.0' };
}

function seed(): EmulatorSeed {
  return {
    shieldZones: [
      {
        id: 42,
        planType: 'Business',
        customRules: Array.from({ length: RULES }, (_, i) => rule(i, `old-${i}`)),
      },
      {
        id: 43,
        planType: 'Enterprise',
        customRules: Array.from({ length: STALE }, (_, i) => ({
          ...rule(9000 + i, 'stale'),
          ruleName: `stale ${i}`,
        })),
      },
    ],
    dnsZones: Array.from({ length: ZONES }, (_, i) => ({
      id: 700 + i,
      domain: `z${i}.example`,
      dnsSecEnabled: true,
    })),
    apps: Array.from({ length: APPS }, (_, i) => ({
      id: `app${i}`,
      name: `app ${i}`,
      runtimeType: 'shared',
      autoScaling: { min: 1, max: 2 },
      regionSettings: { allowedRegionIds: ['DE'], requiredRegionIds: ['DE'] },
      containerTemplates: [{ name: 'web', ...image('web') }],
    })),
  };
}

function doc(kind: string, name: string, spec: unknown): string {
  return `apiVersion: edgesync/v1\nkind: ${kind}\nmetadata: { name: ${name} }\nspec: ${JSON.stringify(spec)}\n`;
}

function config(): Record<string, string> {
  return {
    'rules.yaml': Array.from({ length: RULES }, (_, i) =>
      doc('WafCustomRule', `r${i}`, { ...rule(i, `new-${i}`), shieldZoneId: 42 }),
    ).join('---\n'),
    'dns.yaml': Array.from({ length: ZONES }, (_, i) =>
      doc('DnsZone', `z${i}`, { id: 700 + i, dnssec: false }),
    ).join('---\n'),
    'zone-43.yaml': [
      doc('ShieldZone', 'zone-43', { shieldZoneId: 43, customWafRules: 'exclusive' }),
      ...Array.from({ length: CREATES }, (_, i) => {
        const { id: _id, ...spec } = rule(i, `created-${i}`);
        return doc('WafCustomRule', `c${i}`, { ...spec, ruleName: `created ${i}`, shieldZoneId: 43 });
      }),
    ].join('---\n'),
    // Each app gains a container: the PATCH creates one, the ambiguous case when a kill lands.
    'apps.yaml': Array.from({ length: APPS }, (_, i) =>
      doc('ContainerApp', `app${i}`, {
        appId: `app${i}`,
        containerTemplates: [{ name: 'web' }, { name: 'sidecar', ...image('sidecar') }],
      }),
    ).join('---\n'),
  };
}

useSpawnedDaemons();

describe('kill -9 during apply', () => {
  it(`converges after ${KILLS} kills at random moments and the state file always parses`, async () => {
    const emu = await withEmulator(seed());
    onTestFinished(() => emu.close());
    emu.faults.set({ latencyMs: [2, 10] });
    const root = tempDir();
    const dir = writeTree(join(root, 'config'), config());
    const stateDir = join(root, 'state');
    const flags = [
      ...['--config', dir, '--base-url', emu.url, '--state-dir', stateDir, '--listen', '127.0.0.1:0'],
      ...['--concurrency', '4', '--max-change-percent', '100', '--prune', '--force'],
    ];
    const random = prng(11);
    const writesAtKill: number[] = [];

    for (let kill = 0; kill < KILLS; kill += 1) {
      const writesBefore = emu.journal.writes().length;
      const daemon = spawnRun(flags, { EDGESYNC_ACCESS_KEY: TEST_KEY });
      // Kill while this daemon writes, not while it starts or reads: wait for its first write
      // (or the end of its run, once nothing is left to write), then a random moment after it.
      // Timing from the start would land every kill before the writes on a busy host.
      await until(
        () => emu.journal.writes().length > writesBefore || daemon.events('reconcile.finished').length > 0,
        'a write or the end of the run',
        60_000,
      );
      await new Promise((r) => setTimeout(r, Math.floor(random() * 150)));
      daemon.child.kill('SIGKILL');
      await daemon.exit;
      writesAtKill.push(emu.journal.writes().length);
      const file = join(stateDir, STATE_FILE);
      if (existsSync(file)) expect(JSON.parse(readFileSync(file, 'utf8')).version).toBe(2);
    }
    const last = spawnRun(flags, { EDGESYNC_ACCESS_KEY: TEST_KEY });
    const finished = await until(
      () => last.events('reconcile.finished').find((line) => line.result === 'success'),
      'a successful reconcile',
      30_000,
    );
    last.child.kill('SIGTERM');
    const exit = await last.exit;
    const plan = await cliAgainst(emu, [
      'plan',
      '--detailed-exitcode',
      '--config',
      dir,
      '--state-dir',
      stateDir,
      '--prune',
    ]);

    // The kills landed mid-apply: writes kept arriving between kills, not all before the first.
    expect(writesAtKill[0]).toBeLessThan(RULES + ZONES + APPS + CREATES + STALE);
    expect(new Set(writesAtKill).size, JSON.stringify(writesAtKill)).toBeGreaterThan(3);
    expect(finished.result).toBe('success');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(plan.stdout).toContain(`Plan: 0 to change, ${RULES + ZONES + APPS + CREATES + 1} unchanged.`);
    // Each created rule exactly once, the stale ones pruned.
    expect(
      emu.state
        .customRules(43)
        .map((r) => r.ruleName)
        .sort(),
    ).toEqual(Array.from({ length: CREATES }, (_, i) => `created ${i}`).sort());
    expect(plan.code).toBe(0);
    expect(emu.state.customRules(42).map((r) => r.ruleConfiguration?.value)).toEqual(
      Array.from({ length: RULES }, (_, i) => `new-${i}`),
    );
    for (let i = 0; i < APPS; i += 1) {
      expect(emu.state.app(`app${i}`)?.containerTemplates.map((c) => c.name)).toEqual(['web', 'sidecar']);
    }
    // A blind retry of a create that had landed would be refused as a duplicate name (400).
    expect(emu.journal.writes().filter((w) => w.status === 400)).toEqual([]);
    expect(JSON.parse(readFileSync(join(stateDir, STATE_FILE), 'utf8')).version).toBe(2);
  }, 120_000); // eleven processes of the built binary, one after the other: slow on a loaded host
});
