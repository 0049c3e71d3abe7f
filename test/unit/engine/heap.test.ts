import { describe, expect, it } from 'vitest';
import {
  COMPACT_FROM_RESOURCES,
  compactHeap,
  compactingWhile,
  currentRuntime,
  releaseHeap,
  youngGenerationUncapped,
} from '../../../src/engine/heap.js';
import { countMajorCollections } from '../../helpers/gc.js';

// WeakRef targets and GC entries are settled between jobs, hence the awaits.
const nextJob = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How many full (mark-compact) collections run while `action` does. */
async function majorCollections(action: () => unknown): Promise<number> {
  const counting = countMajorCollections();
  await nextJob();
  await action();
  await nextJob();
  await nextJob();
  return counting.stop();
}

// releaseHeap is compactHeap for a daemon between runs (on V8 12+, the last-resort flavour).
describe.each([
  ['compactHeap', compactHeap],
  ['releaseHeap', releaseHeap],
])('%s', (_name, collect) => {
  it('runs a full collection for a big desired state: an unreferenced object is gone', async () => {
    const ref = new WeakRef({ payload: new Array(1000).fill('x') });
    await nextJob();
    expect(await majorCollections(() => collect(COMPACT_FROM_RESOURCES))).toBeGreaterThan(0);
    expect(ref.deref()).toBeUndefined();
  });

  it('leaves a smaller one alone', async () => {
    expect(await majorCollections(() => collect(COMPACT_FROM_RESOURCES - 1))).toBe(0);
  });
});

describe('compactingWhile', () => {
  it('collects during a big apply once the old generation has grown', async () => {
    let result: string | undefined;
    // Arrays this long are large objects; once a scavenge promotes them they count as old generation.
    const retained: unknown[][] = [];
    const growing = async () => {
      for (let i = 0; i < 8; i += 1) {
        retained.push(new Array(100_000).fill(i));
        await sleep(15);
      }
      retained.length = 0;
      return 'done';
    };

    const during = await majorCollections(async () => {
      result = await compactingWhile(COMPACT_FROM_RESOURCES, growing, 5, 1024 * 1024);
    });

    expect(result).toBe('done');
    expect(during).toBeGreaterThanOrEqual(1);
  });

  it('stops checking when the apply ends', async () => {
    // No growth needed: every check collects, so a check left running after the apply would
    // go on collecting. (With a growth threshold it would find no growth and prove nothing.)
    const during = await majorCollections(() =>
      compactingWhile(COMPACT_FROM_RESOURCES, () => sleep(30), 5, 0),
    );
    const after = await majorCollections(() => sleep(60));

    expect(during).toBeGreaterThanOrEqual(1);
    expect(after).toBe(0);
  });

  it('does not collect while the old generation stays flat, nor for a small reconcile', async () => {
    const flat = await majorCollections(() => compactingWhile(COMPACT_FROM_RESOURCES, () => sleep(100), 5));
    const small = await majorCollections(() =>
      compactingWhile(COMPACT_FROM_RESOURCES - 1, () => sleep(80), 5, 0),
    );

    expect([flat, small]).toEqual([0, 0]);
  });
});

describe('youngGenerationUncapped', () => {
  const node24 = { v8Version: '13.6.233.17-node.44', execArgv: [], nodeOptions: undefined };

  it('is true on V8 12 and later without --max-semi-space-size', () => {
    expect(youngGenerationUncapped(node24)).toBe(true);
    expect(youngGenerationUncapped({ ...node24, v8Version: '12.4.254.21-node.33' })).toBe(true);
    expect(youngGenerationUncapped({ ...node24, nodeOptions: '--enable-source-maps' })).toBe(true);
    // A longer flag that merely starts with the name is not the cap.
    expect(youngGenerationUncapped({ ...node24, execArgv: ['--max-semi-space-size-typo=4'] })).toBe(true);
  });

  it('is false with the flag in NODE_OPTIONS or on the command line, in any of its spellings', () => {
    expect(
      youngGenerationUncapped({ ...node24, nodeOptions: '--enable-source-maps --max-semi-space-size=4' }),
    ).toBe(false);
    expect(youngGenerationUncapped({ ...node24, execArgv: ['--max-semi-space-size=8'] })).toBe(false);
    expect(youngGenerationUncapped({ ...node24, execArgv: ['--max_semi_space_size=4'] })).toBe(false);
    expect(youngGenerationUncapped({ ...node24, execArgv: ['--max-semi-space-size', '4'] })).toBe(false);
  });

  it('is false on Node 20 (V8 11), whose young generation stops at 16 MB', () => {
    expect(youngGenerationUncapped({ ...node24, v8Version: '11.3.244.8-node.30' })).toBe(false);
  });

  it("currentRuntime reads this process's version, flags and NODE_OPTIONS", () => {
    expect(currentRuntime()).toEqual({
      v8Version: process.versions.v8,
      execArgv: process.execArgv,
      nodeOptions: process.env.NODE_OPTIONS,
    });
  });
});
