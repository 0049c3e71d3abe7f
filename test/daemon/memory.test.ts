/**
 * The daemon's memory measures with a big desired state (COMPACT_FROM_RESOURCES resources,
 * 1.2 MB of YAML: above the loader's threshold for parse processes):
 * - its cold load parses in parse processes only, not in its own thread (their YAML garbage
 *   would stay in its heap, promoted);
 * - it collects its heap after every run: the runs that follow the start-up reconcile each
 *   touch a resource or two, so the engine's own collections never run for them, and their
 *   garbage would pile up over a daemon's life.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMPACT_FROM_RESOURCES } from '../../src/engine/heap.js';
import { daemonArgs, until, useDaemonFixture } from '../helpers/daemon.js';
import { TEST_KEY } from '../helpers/emulator.js';
import { countMajorCollections } from '../helpers/gc.js';
import { emulatorSeed, generateRepository } from '../helpers/generate.js';
import { spawnRun, useSpawnedDaemons } from '../helpers/spawn-daemon.js';

// One repository for the file (tempDir's are removed after each test); the second test edits
// a rule, after the first has loaded it.
const repoRoot = mkdtempSync(join(tmpdir(), 'edgesync-memory-'));
const repo = generateRepository(join(repoRoot, 'config'), {
  resources: COMPACT_FROM_RESOURCES,
  shieldZones: 5,
});
afterAll(() => rmSync(repoRoot, { recursive: true, force: true }));
const fx = useDaemonFixture(emulatorSeed(repo).seed);
useSpawnedDaemons();

describe('the daemon heap', () => {
  // The built daemon: from TypeScript sources (the test runner) there is no parse process to fork.
  it('is kept free of the cold load: every file is parsed in a parse process', async () => {
    const flags = daemonArgs({
      config: repo.dir,
      stateDir: join(fx.root, 'state'),
      baseUrl: fx.emu.url,
      extra: ['--log-level', 'debug'],
    });
    const daemon = spawnRun(flags, { EDGESYNC_ACCESS_KEY: TEST_KEY });

    const load = await until(() => daemon.events('config.loaded')[0], 'the first load', 20_000);

    expect(load).toMatchObject({
      files: repo.yamlFiles.length,
      parsed: repo.yamlFiles.length,
      reused: 0,
      inThread: 0,
    });
    expect(load.workers).toBeGreaterThanOrEqual(1);
  });

  it(`is collected after a one-resource run in a state of ${COMPACT_FROM_RESOURCES} resources`, async () => {
    const d = await fx.start(repo.dir);
    const rule = repo.resources.find((r) => r.kind === 'WafCustomRule');
    if (rule === undefined) throw new Error('the generated repository has no rule');
    const file = join(repo.dir, rule.file);

    const majors = countMajorCollections();
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace(/ruleDescription: ([^\n]*)/, 'ruleDescription: $1 (edited)'));
    const finished = await d.waitForEvent('reconcile.finished', () => true, 2);
    // GC entries reach observers a task later.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const collections = majors.stop();

    expect(d.events('reconcile.started')[1]).toMatchObject({ trigger: 'file-change', resources: 1 });
    expect(finished.counts).toMatchObject({ applied: 1, failed: 0 });
    expect(collections).toBeGreaterThanOrEqual(1);
  });
});
