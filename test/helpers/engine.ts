/**
 * Engine fixture: a seeded emulator, a real API client pointed at it over loopback, and an
 * in-memory state store; `run` reconciles desired resources in plan or apply mode.
 */
import { afterEach } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import type { ApiClient } from '../../src/api/types.js';
import type { DesiredResource } from '../../src/config/types.js';
import type { Emulator, EmulatorSeed } from '../../src/emulator/index.js';
import {
  type ReconcileOutcome,
  type ReconcileSelection,
  type ReportOptions,
  reconcile,
  type WritePolicy,
} from '../../src/engine/reconcile.js';
import { memoryStateStore, type StateStore } from '../../src/engine/state.js';
import { TEST_KEY, TEST_SEED, withEmulator } from './emulator.js';

/** What a test changes of the fixture's reconcile options, group by group. */
interface RunOverrides {
  state?: StateStore;
  selection?: Partial<ReconcileSelection>;
  write?: Partial<Omit<WritePolicy, 'mode'>>;
  report?: Partial<ReportOptions>;
}

export interface EngineFixture {
  emu: Emulator;
  api: ApiClient;
  state: StateStore;
  run(
    resources: readonly DesiredResource[],
    mode: 'plan' | 'apply',
    overrides?: RunOverrides,
  ): Promise<ReconcileOutcome>;
  close(): Promise<void>;
}

export async function engineFixture(seed: EmulatorSeed = TEST_SEED): Promise<EngineFixture> {
  const emu = await withEmulator(seed);
  const api = createApiClient({
    baseUrl: emu.url,
    accessKey: TEST_KEY,
    retry: { baseDelayMs: 5, maxDelayMs: 50 },
  });
  const state = memoryStateStore();
  return {
    emu,
    api,
    state,
    run: (resources, mode, overrides = {}) =>
      reconcile(resources, {
        api,
        state: overrides.state ?? state,
        selection: { revision: 'test-revision', ...overrides.selection },
        write: {
          mode,
          driftMode: 'correct',
          concurrency: 4,
          maxChangePercent: 100,
          force: false,
          signal: new AbortController().signal,
          ...overrides.write,
        },
        report: { trigger: 'test', ...overrides.report },
      }),
    async close() {
      await api.close();
      await emu.close();
    },
  };
}

/** The writes the emulator received since the last `journal.clear()`, as method/path/body. */
export function writesOf(emu: Emulator): Array<{ method: string; path: string; body: unknown }> {
  return emu.journal.writes().map((e) => ({ method: e.method, path: e.path, body: e.requestBody }));
}

/**
 * An engine fixture per test: the returned `start(seed?)` starts one, and it is closed after
 * the test that started it. Call once at the top of a test file.
 */
export function engineFixturePerTest(): (seed?: EmulatorSeed) => Promise<EngineFixture> {
  let fx: EngineFixture | undefined;
  afterEach(async () => {
    await fx?.close();
    fx = undefined;
  });
  return async (seed = TEST_SEED) => {
    fx = await engineFixture(seed);
    return fx;
  };
}

/** A custom WAF rule configuration that blocks /admin, for lifecycle tests. */
export const BLOCK_ADMIN_RULE = {
  actionType: 'Block',
  operatorType: 'BEGINSWITH',
  severityType: 'WARNING',
  variableTypes: { REQUEST_URI: '' },
  value: '/admin',
};
