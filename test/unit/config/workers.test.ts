/**
 * The worker-thread path of the parse pool runs compiled JavaScript (a worker cannot load
 * TypeScript on Node 20), so this test drives the build in dist/: `npm test` builds first.
 */
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type * as Files from '../../../src/config/files.js';
import type * as Loader from '../../../src/config/loader.js';
import type * as Pool from '../../../src/config/parse-pool.js';
import type { ReconcileError } from '../../../src/errors.js';
import { requireBuild } from '../../helpers/spawn-daemon.js';

const DIST_LOADER = new URL('../../../dist/src/config/loader.js', import.meta.url);
const DIST_POOL = new URL('../../../dist/src/config/parse-pool.js', import.meta.url);
const DIST_FILES = new URL('../../../dist/src/config/files.js', import.meta.url);
const EXAMPLES = fileURLToPath(new URL('../../../config-examples/', import.meta.url));
const INVALID = fileURLToPath(new URL('../../fixtures/desired/invalid/enum-unknown-names/', import.meta.url));

async function distLoader(): Promise<typeof Loader> {
  return (await import(DIST_LOADER.href)) as typeof Loader;
}

describe('parsing in worker threads', () => {
  // Every test here imports dist/, the pool's own tests too: fail at once, with the fix, if it is missing.
  beforeAll(requireBuild);

  it('gives exactly the state that parsing in this thread gives', async () => {
    const { createDesiredStateLoader } = await distLoader();

    const inThread = await createDesiredStateLoader({ workers: 0 }).load(EXAMPLES);
    const inWorkers = await createDesiredStateLoader({ workers: 2 }).load(EXAMPLES);

    expect(inWorkers.stats).toEqual({ files: 7, parsed: 7, reused: 0, workers: 2 });
    expect(inWorkers.state).toEqual(inThread.state);
  });

  it('reports the same issues', async () => {
    const { createDesiredStateLoader } = await distLoader();
    const issuesOf = async (workers: number): Promise<unknown> => {
      const err = await createDesiredStateLoader({ workers })
        .load(INVALID)
        .catch((e: unknown) => e);
      return (err as ReconcileError).details?.issues;
    };

    const inWorkers = await issuesOf(1);

    expect(inWorkers).toEqual(await issuesOf(0));
    expect(inWorkers).toHaveLength(4);
  });

  it('ends its worker threads when each load is done', async () => {
    const { createDesiredStateLoader, loadDesiredState } = await distLoader();
    const { parseWorkersAlive } = (await import(DIST_POOL.href)) as typeof Pool;

    const reusable = await createDesiredStateLoader({ workers: 2 }).load(EXAMPLES);
    const afterReusable = parseWorkersAlive();
    await loadDesiredState(EXAMPLES, { workers: 2 });
    const afterOneShot = parseWorkersAlive();

    expect(reusable.stats.workers).toBe(2);
    expect([afterReusable, afterOneShot]).toEqual([0, 0]);
  });

  it('fails the batch, not the process, when a worker fails while this thread parses', async () => {
    const { parseFiles, parseWorkersAlive } = (await import(DIST_POOL.href)) as typeof Pool;
    const { DEFAULT_LIMITS } = (await import(DIST_FILES.href)) as typeof Files;
    const jobs = Array.from({ length: 6 }, (_, i) => ({ file: `f${i}.yaml`, text: 'a: 1\n' }));
    // A function cannot be sent to a worker: each one fails on its first job, while this
    // thread, which ignores the extra field, parses the rest of the queue.
    const unsendable = { ...DEFAULT_LIMITS, onParse: () => undefined } as typeof DEFAULT_LIMITS;

    const failure = await parseFiles(jobs, EXAMPLES, unsendable, 2, 0).catch((e: unknown) => e);

    expect(String(failure)).toMatch(/DataCloneError.*could not be cloned/);
    expect(parseWorkersAlive()).toBe(0);
  });
});
