/**
 * The daemon's memory measures with a big desired state (COMPACT_FROM_RESOURCES resources,
 * 1.2 MB of YAML):
 * - it collects its heap after every run: the runs that follow the start-up reconcile each
 *   touch a resource or two, so the engine's own collections never run for them, and their
 *   garbage would pile up over a daemon's life.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMPACT_FROM_RESOURCES } from '../../src/engine/heap.js';
import { useDaemonFixture } from '../helpers/daemon.js';
import { countMajorCollections } from '../helpers/gc.js';
import { emulatorSeed, generateRepository } from '../helpers/generate.js';
import { useSpawnedDaemons } from '../helpers/spawn-daemon.js';

// One repository for the file (tempDir's are removed after each test).
const repoRoot = mkdtempSync(join(tmpdir(), 'edgesync-memory-'));
const repo = generateRepository(join(repoRoot, 'config'), {
  resources: COMPACT_FROM_RESOURCES,
  shieldZones: 5,
});
afterAll(() => rmSync(repoRoot, { recursive: true, force: true }));
const fx = useDaemonFixture(emulatorSeed(repo).seed);
useSpawnedDaemons();

describe('the daemon heap', () => {
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
