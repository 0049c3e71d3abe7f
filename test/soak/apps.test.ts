/**
 * The container app lifecycle (docs/design.md, Container apps: lifecycle and rollout health) at
 * size while a fifth of the API calls fail: 40 apps to create from documents without `appId`
 * (some of whose create replies are lost after the emulator made the app), 15 to adopt by
 * name, 15 whose documents were removed and must be pruned (`--prune --force`: a deletion
 * destroys volumes), and 15 apps edgesync never owned that must survive. `apply` waits for
 * every rollout it starts (the emulator's take 20 ms). Everything is asserted from the
 * emulator's own state and journal: one app per name, each deployed and active, then zero writes.
 */
import { describe, expect, it } from 'vitest';
import type { RequestEvent } from '../../src/api/types.js';
import type { DesiredResource } from '../../src/config/types.js';
import { type EmulatorSeed, type EmulatorState, startEmulator } from '../../src/emulator/index.js';
import { reconcile } from '../../src/engine/reconcile.js';
import { memoryStateStore, type StateStore } from '../../src/engine/state.js';
import { desired } from '../helpers/desired.js';
import { TEST_KEY } from '../helpers/emulator.js';
import { faultRates, faultTestClient } from '../helpers/fault-client.js';
import { prng } from '../helpers/prng.js';

const NEW = 40;
const ADOPT = 15;
const OLD = 15;
const MANUAL = 15;
const MAX_RUNS = 4;
const RUNS_TO_CONVERGE = 3;

const container = (name: string) => ({
  name: 'web',
  imageRegistryId: '1',
  imageNamespace: '',
  imageName: 'nginx',
  imageTag: name.endsWith('0') ? '1.27' : '1.26',
});
const regions = { allowedRegionIds: ['DE'], requiredRegionIds: ['DE'] };

/** An app of the seed: running, one container, one volume. */
function seedApp(id: string, name: string) {
  return {
    id,
    name,
    runtimeType: 'shared',
    autoScaling: { min: 1, max: 1 },
    regionSettings: regions,
    containerTemplates: [{ id: `${id}-web`, ...container(name) }],
    volumes: [{ name: 'data', size: 1 }],
  };
}

const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix} ${i}`);

function seed(): EmulatorSeed {
  return {
    apps: [
      ...names('adopt', ADOPT).map((name, i) => seedApp(`adopt${i}`, name)),
      ...names('old', OLD).map((name, i) => seedApp(`old${i}`, name)),
      ...names('manual', MANUAL).map((name, i) => seedApp(`manual${i}`, name)),
    ],
    rollout: { progressingMs: 20, failingImageTags: [] },
  };
}

function documents(): DesiredResource[] {
  const doc = (name: string) =>
    desired('ContainerApp', name.replace(' ', '-'), {
      name,
      regionSettings: regions,
      containerTemplates: [container(name)],
      volumes: [{ name: 'data', size: 1 }],
      rollout: { timeoutSeconds: 10 },
    });
  return [...names('new', NEW), ...names('adopt', ADOPT)].map(doc);
}

/** What edgesync owned before this commit: the old apps, whose documents are gone now. */
function ownedBefore(state: StateStore): void {
  names('old', OLD).forEach((name, i) => {
    state.setInventory(`ContainerApp/${name.replace(' ', '-')}`, {
      kind: 'ContainerApp',
      id: `old${i}`,
      key: name,
    });
  });
}

function manualApps(live: EmulatorState): string[] {
  return live
    .apps()
    .filter((app) => app.name.startsWith('manual'))
    .map((app) => JSON.stringify(app));
}

const CREATE = 'createApp';

describe('container apps created, adopted and pruned while 20 % of API calls fail', () => {
  it.each([1, 2, 3])(
    'converges; one app per name, each deployed and active, removed ones deleted, never-owned ones untouched, then zero writes (fault seed %i)',
    async (faultSeed) => {
      const emu = await startEmulator({ accessKey: TEST_KEY, seed: seed() });
      const events: RequestEvent[] = [];
      const api = faultTestClient(emu.url, faultSeed + 10, (event) => events.push(event));
      const state = memoryStateStore();
      ownedBefore(state);
      const resources = documents();
      const untouched = manualApps(emu.state);
      const run = () =>
        reconcile(resources, {
          api,
          state,
          selection: { revision: 'soak', prune: true },
          write: {
            mode: 'apply',
            driftMode: 'correct',
            concurrency: 8,
            maxChangePercent: 100,
            // Deleting an app destroys its volumes: pruning one needs --force.
            force: true,
            signal: new AbortController().signal,
            rollouts: 'wait',
            rolloutPollMs: 10,
          },
          report: { trigger: 'test' },
        });
      try {
        // Lost replies happen for certain, whatever the dice say: creates, a deploy, a delete.
        emu.faults.script({ operation: CREATE, reply: 'drop-after', times: 4 });
        emu.faults.script({ operation: 'deployApp', reply: 'drop-after', times: 2 });
        emu.faults.script({ operation: 'deleteApp', reply: 'drop-after' });
        emu.faults.set(faultRates(prng(faultSeed)));
        const failedPerRun: number[] = [];
        for (let i = 0; i < MAX_RUNS; i += 1) {
          const outcome = await run();
          const rolloutsFailed =
            outcome.rollouts?.results.filter((r) => r.outcome !== 'succeeded').length ?? 0;
          failedPerRun.push((outcome.apply?.counts.failed ?? -1) + rolloutsFailed);
          if (outcome.apply?.ok === true && rolloutsFailed === 0) break;
        }
        const lostCreateReplies =
          events.filter((e) => e.operation === CREATE && e.status === 0).length -
          emu.journal.count((e) => e.operation === CREATE && e.status === 0);
        emu.faults.clear();
        emu.journal.clear();
        const final = await run();

        const live = emu.state.apps();
        const liveNames = live.map((app) => app.name).sort();
        const expected = [...names('new', NEW), ...names('adopt', ADOPT), ...names('manual', MANUAL)].sort();
        const failed = `failed per run: ${failedPerRun.join(', ')}`;
        expect(liveNames, failed).toEqual(expected);
        expect(live.filter((app) => app.name.startsWith('old'))).toEqual([]);
        expect(manualApps(emu.state)).toEqual(untouched);
        // Adoptions keep their apps; every app of a document was deployed and rolled out.
        for (const [i, name] of names('adopt', ADOPT).entries()) {
          expect(live.find((app) => app.name === name)?.id).toBe(`adopt${i}`);
        }
        expect(
          live
            .filter((app) => !app.name.startsWith('manual') && app.status !== 'active')
            .map((app) => app.name),
          failed,
        ).toEqual([]);
        expect(failedPerRun.at(-1), failed).toBe(0);
        expect(failedPerRun.length, failed).toBeLessThanOrEqual(RUNS_TO_CONVERGE);
        expect(lostCreateReplies).toBeGreaterThanOrEqual(4);
        expect(final.plan.changes.filter((c) => c.action !== 'noop')).toEqual([]);
        expect(emu.journal.writes()).toEqual([]);
        expect([...state.inventory().keys()].sort()).toEqual(resources.map((r) => r.subject).sort());
      } finally {
        await api.close();
        await emu.close();
      }
    },
  );
});
