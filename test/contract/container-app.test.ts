/**
 * ContainerApp against the emulator: adding, renaming and removing containers and endpoints,
 * fields the YAML leaves out keeping their live values, and no duplicate containers after an
 * ambiguous failure (the PATCH was applied but its reply was lost).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ContainerAppSpec } from '../../src/kinds/container-app/spec.js';
import { desired } from '../helpers/desired.js';
import { type EngineFixture, engineFixture } from '../helpers/engine.js';

const CRON = {
  name: 'cron',
  imageRegistryId: '123',
  imageNamespace: 'acme',
  imageName: 'cron',
  imageTag: '1.0.0',
};

function app(spec: Record<string, unknown>) {
  return [desired<ContainerAppSpec>('ContainerApp', 'storefront', { appId: 'app1', ...spec })];
}

describe('ContainerApp against the emulator', () => {
  let fx: EngineFixture;
  beforeEach(async () => {
    fx = await engineFixture();
  });
  afterEach(async () => {
    await fx.close();
  });

  function live() {
    const a = fx.emu.state.app('app1');
    if (a === undefined) throw new Error('app1 missing');
    return a;
  }
  const names = () => live().containerTemplates.map((c) => c.name);
  const ids = () => Object.fromEntries(live().containerTemplates.map((c) => [c.name, c.id]));

  it('adds a container without touching the others, then converges', async () => {
    const before = ids();

    const result = await fx.run(
      app({ containerTemplates: [{ name: 'web' }, { name: 'worker' }, CRON] }),
      'apply',
    );
    const again = await fx.run(
      app({ containerTemplates: [{ name: 'web' }, { name: 'worker' }, CRON] }),
      'plan',
    );

    expect(result.apply?.counts.applied).toBe(1);
    expect(names()).toEqual(['web', 'worker', 'cron']);
    expect(ids().web).toBe(before.web);
    expect(ids().worker).toBe(before.worker);
    expect(live().containerTemplates.find((c) => c.name === 'web')?.environmentVariables).toEqual([
      { name: 'LOG_LEVEL', value: 'info' },
    ]);
    expect(again.plan.changes[0]?.action).toBe('noop');
  });

  it('refuses to rename or remove a container without allowDeletions and sends nothing', async () => {
    const renamed = await fx.run(
      app({ containerTemplates: [{ ...CRON, name: 'frontend' }, { name: 'worker' }] }),
      'apply',
    );
    const removed = await fx.run(app({ containerTemplates: [{ name: 'web' }] }), 'apply');

    expect(renamed.apply?.results[0]?.outcome).toBe('failed');
    expect(renamed.apply?.results[0]?.error).toEqual({
      code: 'PLAN_UNSAFE',
      message: 'would delete containerTemplates[web]; set allowDeletions: true to allow it',
    });
    expect(removed.apply?.results[0]?.error?.message).toBe(
      'would delete containerTemplates[worker]; set allowDeletions: true to allow it',
    );
    expect(fx.emu.journal.writes()).toEqual([]);
    expect(names()).toEqual(['web', 'worker']);
  });

  it('renames and removes containers with allowDeletions', async () => {
    const workerId = ids().worker;

    await fx.run(
      app({ allowDeletions: true, containerTemplates: [{ ...CRON, name: 'frontend' }, { name: 'worker' }] }),
      'apply',
    );
    expect(names()).toEqual(['frontend', 'worker']);
    expect(ids().worker).toBe(workerId);

    await fx.run(app({ allowDeletions: true, containerTemplates: [{ name: 'worker' }] }), 'apply');
    expect(names()).toEqual(['worker']);
    const again = await fx.run(
      app({ allowDeletions: true, containerTemplates: [{ name: 'worker' }] }),
      'plan',
    );
    expect(again.plan.changes[0]?.action).toBe('noop');
  });

  it('adds, renames and removes endpoints; a kept endpoint keeps its id', async () => {
    const webCdn = { displayName: 'web-cdn', cdn: { portMappings: [{ containerPort: 8080 }] } };
    const anycast = {
      displayName: 'web-anycast',
      anycast: { type: 'IPv4', portMappings: [{ containerPort: 8443, protocols: ['TCP'] }] },
    };
    const endpoints = () => live().containerTemplates.find((c) => c.name === 'web')?.endpoints ?? [];
    const cdnId = endpoints()[0]?.id;

    await fx.run(
      app({ containerTemplates: [{ name: 'web', endpoints: [webCdn, anycast] }, { name: 'worker' }] }),
      'apply',
    );
    expect(endpoints().map((e) => [e.displayName, e.type])).toEqual([
      ['web-cdn', 'cdn'],
      ['web-anycast', 'anycast'],
    ]);
    expect(endpoints()[0]?.id).toBe(cdnId);
    expect(
      (
        await fx.run(
          app({ containerTemplates: [{ name: 'web', endpoints: [webCdn, anycast] }, { name: 'worker' }] }),
          'plan',
        )
      ).plan.changes[0]?.action,
    ).toBe('noop');

    const refused = await fx.run(
      app({ containerTemplates: [{ name: 'web', endpoints: [anycast] }, { name: 'worker' }] }),
      'apply',
    );
    expect(refused.apply?.results[0]?.error?.message).toBe(
      'would delete containerTemplates[web].endpoints[web-cdn]; set allowDeletions: true to allow it',
    );

    await fx.run(
      app({
        allowDeletions: true,
        containerTemplates: [
          { name: 'web', endpoints: [{ ...webCdn, displayName: 'web-edge' }, anycast] },
          { name: 'worker' },
        ],
      }),
      'apply',
    );
    expect(endpoints().map((e) => e.displayName)).toEqual(['web-edge', 'web-anycast']);

    await fx.run(
      app({ allowDeletions: true, containerTemplates: [{ name: 'web', endpoints: [] }, { name: 'worker' }] }),
      'apply',
    );
    expect(endpoints()).toEqual([]);
  });

  it('keeps live values of every field the YAML leaves out', async () => {
    const web = live().containerTemplates.find((c) => c.name === 'web');
    if (web === undefined) throw new Error('seed changed');
    web.environmentVariables = [
      { name: 'LOG_LEVEL', value: 'debug' },
      { name: 'FEATURE', value: 'on' },
    ];
    web.entryPoint = {
      command: 'node',
      commandArray: null,
      arguments: 'server.js',
      argumentsArray: null,
      workingDirectory: '/app',
    };

    await fx.run(
      app({ containerTemplates: [{ name: 'web', imageTag: '1.5.0' }, { name: 'worker' }] }),
      'apply',
    );

    const after = live().containerTemplates.find((c) => c.name === 'web');
    expect(after?.imageTag).toBe('1.5.0');
    expect(after?.environmentVariables).toEqual([
      { name: 'LOG_LEVEL', value: 'debug' },
      { name: 'FEATURE', value: 'on' },
    ]);
    expect(after?.entryPoint).toMatchObject({
      command: 'node',
      arguments: 'server.js',
      workingDirectory: '/app',
    });
    expect(after?.volumeMounts).toEqual([{ name: 'data', mountPath: '/data' }]);
    expect(live().volumes.map((v) => v.name)).toEqual(['data', 'cache']);
  });

  it('creates no duplicate when the PATCH that adds a container is applied but its reply is lost', async () => {
    fx.emu.faults.script({ operation: 'patchApp', reply: 'drop-after' });

    const result = await fx.run(
      app({ containerTemplates: [{ name: 'web' }, { name: 'worker' }, CRON] }),
      'apply',
    );

    expect(result.apply?.results[0]?.outcome).toBe('applied');
    expect(names()).toEqual(['web', 'worker', 'cron']);
    expect(fx.emu.journal.writes()).toHaveLength(1);
  });

  it('sends the create again, once, when the lost request never reached the handler', async () => {
    fx.emu.faults.script({ operation: 'patchApp', reply: 'drop' });

    const result = await fx.run(
      app({ containerTemplates: [{ name: 'web' }, { name: 'worker' }, CRON] }),
      'apply',
    );

    expect(result.apply?.results[0]?.outcome).toBe('applied');
    expect(names()).toEqual(['web', 'worker', 'cron']);
    expect(fx.emu.journal.writes().map((w) => w.status)).toEqual([0, 200]);
  });

  it('never duplicates containers over a random sequence of edits with lost replies', async () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    fx.emu.faults.set({ rateDropAfter: 0.3, rateDrop: 0.1, random });
    const pool = ['alpha', 'beta', 'gamma', 'delta'];
    for (let step = 0; step < 12; step += 1) {
      const wanted = pool.filter(() => random() < 0.6);
      const containers = (wanted.length === 0 ? ['alpha'] : wanted).map((name) => ({ ...CRON, name }));
      const spec = { allowDeletions: true, containerTemplates: containers };

      await fx.run(app(spec), 'apply');

      const current = names();
      expect(new Set(current).size).toBe(current.length);
      fx.emu.faults.set({});
      await fx.run(app(spec), 'apply');
      expect(names()).toEqual(containers.map((c) => c.name));
      fx.emu.faults.set({ rateDropAfter: 0.3, rateDrop: 0.1, random });
    }
    // The emulator refuses a second container with the same name (400): a blind retry of a
    // create whose first attempt was applied would show up here.
    expect(fx.emu.journal.writes().filter((w) => w.status === 400)).toEqual([]);
    expect(fx.emu.journal.writes().filter((w) => w.status === 0).length).toBeGreaterThan(0);
  });
});
