import { afterEach, describe, expect, it } from 'vitest';
import { createDesiredStateLoader } from '../../src/config/loader.js';
import { loadSeedFile } from '../../src/emulator/index.js';
import { type EngineFixture, engineFixture } from '../helpers/engine.js';
import { emulatorSeed, generateRepository, writeEmulatorSeed } from '../helpers/generate.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('the benchmark repository generator', () => {
  it('writes a repository that loads with no problem and holds what it says', async () => {
    const repo = generateRepository(tempDir(), { resources: 500, shieldZones: 5 });

    const { state } = await createDesiredStateLoader().load(repo.dir);

    expect(repo.counts).toEqual({
      WafCustomRule: 400,
      AccessList: 30,
      ManagedAccessList: 10,
      ContainerApp: 20,
      DnsZone: 40,
    });
    expect(state.resources).toHaveLength(500);
    expect(state.warnings).toEqual([]);
    expect(state.fileCount).toBe(repo.yamlFiles.length);
    expect(new Set(state.resources.map((r) => r.subject))).toEqual(
      new Set(repo.resources.map((r) => `${r.kind}/${r.name}`)),
    );
  });

  it('is deterministic', () => {
    const a = generateRepository(tempDir(), { resources: 100 });
    const b = generateRepository(tempDir(), { resources: 100 });

    expect(b.resources.map((r) => r.ids)).toEqual(a.resources.map((r) => r.ids));
    expect(b.yamlBytes).toBe(a.yamlBytes);
    expect(emulatorSeed(b, { drift: 7 })).toEqual(emulatorSeed(a, { drift: 7 }));
  });

  it('spreads the drift over the writable resources and never drifts a report-only app', () => {
    const repo = generateRepository(tempDir(), { resources: 1000, reportOnlyShare: 0.5 });
    const reportOnly = repo.resources.filter((r) => r.reportOnly).map((r) => `${r.kind}/${r.name}`);

    const some = emulatorSeed(repo, { drift: 100 }).drifted;
    const all = emulatorSeed(repo, { drift: 5000 }).drifted;

    expect(reportOnly.length).toBeGreaterThan(0);
    expect(some).toHaveLength(100);
    expect(some.filter((s) => reportOnly.includes(s))).toEqual([]);
    // Evenly: from one drifted resource to the next, always about writable ÷ 100 further on.
    const writable = repo.resources.filter((r) => !r.reportOnly).map((r) => `${r.kind}/${r.name}`);
    const positions = [-1, ...some.map((s) => writable.indexOf(s))];
    const gaps = positions.slice(1).map((p, i) => p - (positions[i] as number));
    expect(Math.min(...gaps)).toBe(Math.floor(writable.length / 100));
    expect(Math.max(...gaps)).toBe(Math.ceil(writable.length / 100));
    expect(all).toHaveLength(1000 - reportOnly.length);
    expect(all.filter((s) => reportOnly.includes(s))).toEqual([]);
  });
});

describe('the generated emulator seed against the engine', () => {
  let fx: EngineFixture | undefined;
  afterEach(async () => {
    await fx?.close();
    fx = undefined;
  });

  async function reconcileAgainst(drift: number, viaYaml = false) {
    const repo = generateRepository(tempDir(), { resources: 500, shieldZones: 5, reportOnlyShare: 0 });
    const { state } = await createDesiredStateLoader().load(repo.dir);
    const generated = emulatorSeed(repo, { drift });
    const path = writeEmulatorSeed(repo.dir, generated.seed);
    // Read back the way `edgesync run --emulator` reads it.
    fx = await engineFixture(viaYaml ? await loadSeedFile(path) : generated.seed);
    const outcome = await fx.run(state.resources, 'apply', { write: { concurrency: 8 } });
    return { outcome, drifted: generated.drifted, writes: fx.emu.journal.writes() };
  }

  it('matches the files exactly when nothing drifted: no change, no write', async () => {
    const { outcome, writes } = await reconcileAgainst(0);

    expect(outcome.plan.summary).toEqual({
      resources: 500,
      toUpdate: 0,
      unchanged: 500,
      skipped: 0,
      errors: 0,
      destructive: 0,
    });
    expect(writes).toEqual([]);
  });

  it.each([
    ['given as an object', false],
    ['written as .emulator/seed.yaml', true],
  ])('makes exactly one change per drifted resource, of every kind (seed %s)', async (_, viaYaml) => {
    const { outcome, drifted, writes } = await reconcileAgainst(50, viaYaml);

    const updated = outcome.plan.changes.filter((c) => c.action === 'update').map((c) => c.subject);
    expect(updated.sort()).toEqual([...drifted].sort());
    expect(outcome.apply?.counts).toEqual({ applied: 50, unchanged: 450, skipped: 0, failed: 0 });
    expect(writes).toHaveLength(50);
    const byOperation: Record<string, number> = {};
    for (const w of writes) byOperation[w.operation] = (byOperation[w.operation] ?? 0) + 1;
    expect(byOperation).toEqual({
      updateCustomWafRule: 40,
      updateCustomAccessList: 3,
      updateAccessListConfiguration: 1,
      patchApp: 2,
      enableDnssec: 3,
      disableDnssec: 1,
    });
  });
});
