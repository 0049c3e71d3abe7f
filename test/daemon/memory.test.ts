/**
 * The daemon's memory measure with a big desired state (2,000 resources, 1.2 MB of YAML:
 * above the loader's threshold for parse processes): its cold load parses in parse processes
 * only, not in its own thread (their YAML garbage would stay in its heap, promoted).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emulatorSeed, generateRepository } from '../../bench/generate.js';
import { daemonArgs, until, useDaemonFixture } from '../helpers/daemon.js';

const RESOURCES = 2_000;

import { TEST_KEY } from '../helpers/emulator.js';
import { spawnRun, useSpawnedDaemons } from '../helpers/spawn-daemon.js';

// One repository for the file (tempDir's are removed after each test); the second test edits
// a rule, after the first has loaded it.
const repoRoot = mkdtempSync(join(tmpdir(), 'edgesync-memory-'));
const repo = generateRepository(join(repoRoot, 'config'), {
  resources: RESOURCES,
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
});
