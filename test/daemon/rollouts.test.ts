/**
 * The daemon's rollout watches (src/daemon/rollouts.ts, docs/daemon.md, Rollout health) against
 * the emulator over real HTTP: a lost lease ends every watch at once (recorded `aborted`, no
 * notification, nothing saved for it), and a newer write to an app replaces the watch of the
 * older one, whose end does not overwrite the newer rollout's record.
 */
import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { createDaemonMetrics } from '../../src/daemon/metrics.js';
import type { RunSummary } from '../../src/daemon/notify/run-summary.js';
import { createRolloutFollower } from '../../src/daemon/rollouts.js';
import { createStatusTracker } from '../../src/daemon/status.js';
import type { RolloutTarget } from '../../src/engine/rollout.js';
import { memoryStateStore } from '../../src/engine/state.js';
import { silentLogger } from '../../src/log.js';
import type { Lease } from '../../src/state/backend.js';
import { desired } from '../helpers/desired.js';
import { TEST_KEY, TEST_SEED, withEmulator } from '../helpers/emulator.js';

/** A lease held until `lose` is called; then `held()` is false and the listeners are told. */
function testLease(): Lease & { lose(reason: string): void } {
  let held = true;
  const listeners: Array<(reason: string) => void> = [];
  return {
    holder: { pid: process.pid, host: 'test', since: new Date().toISOString(), command: 'run', nonce: 'n' },
    term: 1,
    held: () => held,
    assertHeld() {
      if (!held) throw new Error('lost');
    },
    onLost(listener) {
      listeners.push(listener);
    },
    release: async () => undefined,
    lose(reason) {
      held = false;
      for (const listener of listeners) listener(reason);
    },
  };
}

const STOREFRONT = desired('ContainerApp', 'storefront', { appId: 'app1', name: 'storefront' });

function target(revision: string): RolloutTarget {
  return {
    subject: STOREFRONT.subject,
    kind: 'ContainerApp',
    objectId: 'app1',
    revision,
    digest: `digest-${revision}`,
    timeoutMs: 60_000,
    onFailure: 'none',
    spec: STOREFRONT.spec,
    redact: (text) => text,
  };
}

async function follower(seedRollout: { progressingMs: number }) {
  const emu = await withEmulator({ ...TEST_SEED, rollout: { ...seedRollout, failingImageTags: [] } });
  const api = createApiClient({ baseUrl: emu.url, accessKey: TEST_KEY });
  const state = memoryStateStore();
  const status = createStatusTracker();
  status.syncResources([STOREFRONT]);
  const lease = testLease();
  const told: RunSummary[] = [];
  const rollbacks: unknown[] = [];
  const rollouts = createRolloutFollower({
    api,
    state,
    lease,
    status,
    metrics: createDaemonMetrics({ version: 'test' }),
    logger: silentLogger(),
    audit: silentLogger(),
    observer: { applyStarting: () => undefined, runFinished: (summary) => told.push(summary) },
    pollMs: 20,
    resources: () => new Map([[STOREFRONT.subject, STOREFRONT]]),
    rollback: (asked) => rollbacks.push(asked),
  });
  return {
    emu,
    state,
    status,
    lease,
    told,
    rollouts,
    async close() {
      await api.close();
      await emu.close();
    },
  };
}

describe('the daemon’s rollout watches', () => {
  it('a lost lease ends every watch at once: recorded aborted, nothing told, the app still progressing', async () => {
    const f = await follower({ progressingMs: 60_000 });
    try {
      f.emu.state.startRollout('app1');
      f.rollouts.follow([target('r1')]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const reads = f.emu.journal.entries().filter((e) => e.operation === 'getAppOverview').length;
      const started = performance.now();
      f.lease.lose('taken over');
      await f.rollouts.stop();
      const tookMs = performance.now() - started;

      expect(reads).toBeGreaterThan(0);
      expect(tookMs).toBeLessThan(1000);
      expect(f.state.rollout(STOREFRONT.subject)).toMatchObject({ status: 'aborted', revision: 'r1' });
      expect(f.told).toEqual([]);
      expect(f.emu.state.app('app1')?.status).toBe('progressing');
      // No watch is started once the lease is gone.
      f.rollouts.follow([target('r2')]);
      expect(f.state.rollout(STOREFRONT.subject)?.revision).toBe('r1');
    } finally {
      await f.close();
    }
  });

  it('a newer write replaces the older watch, and the older one’s end leaves the newer record', async () => {
    const f = await follower({ progressingMs: 300 });
    try {
      f.emu.state.startRollout('app1');
      f.rollouts.follow([target('r1')]);
      await new Promise((resolve) => setTimeout(resolve, 60));
      f.rollouts.follow([target('r2')]);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const whileWatching = f.state.rollout(STOREFRONT.subject);
      await until(() => f.state.rollout(STOREFRONT.subject)?.status === 'succeeded');
      await f.rollouts.stop();

      expect(whileWatching).toMatchObject({ status: 'progressing', revision: 'r2' });
      expect(f.state.rollout(STOREFRONT.subject)).toMatchObject({
        status: 'succeeded',
        revision: 'r2',
        health: 'active',
      });
      // One rollout run told, the newer one's: a success, nothing failed.
      expect(f.told.map((s) => [s.trigger, s.revision, s.counts.failed])).toEqual([['rollout', 'r2', 0]]);
      expect(f.status.document([]).apps).toEqual([
        expect.objectContaining({
          subject: STOREFRONT.subject,
          status: 'succeeded',
          health: 'active',
          revision: 'r2',
        }),
      ]);
    } finally {
      await f.close();
    }
  });
});

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
