/**
 * The lifecycle of container apps (docs/reconcile.md, Container apps) against the emulator over
 * real HTTP: a document without appId creates its app (then deploys it) or adopts the one app
 * of its name; two apps of one name are an error naming both; a renamed document stays on its
 * app; pruning deletes only inventory apps, only with --prune and --force, naming the volumes;
 * a create whose reply is lost leaves one app. Every assertion reads the journal or live state.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { DesiredResource } from '../../src/config/types.js';
import { renderPlanText } from '../../src/engine/render.js';
import { renderPlanMarkdown } from '../../src/engine/render-markdown.js';
import { desired } from '../helpers/desired.js';
import { TEST_SEED } from '../helpers/emulator.js';
import { type EngineFixture, engineFixture, writesOf } from '../helpers/engine.js';

let fx: EngineFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

async function start(): Promise<EngineFixture> {
  fx = await engineFixture(TEST_SEED);
  return fx;
}

/** A new app from a file without appId: nginx from Docker Hub, one volume. */
function app(name: string, extra: Record<string, unknown> = {}): DesiredResource {
  return desired('ContainerApp', 'docs', {
    name,
    regionSettings: { allowedRegionIds: ['DE'], requiredRegionIds: ['DE'] },
    containerTemplates: [
      { name: 'web', imageRegistryId: '1', imageNamespace: 'library', imageName: 'nginx', imageTag: '1.27' },
    ],
    volumes: [{ name: 'cache', size: 2 }],
    ...extra,
  });
}

function appsNamed(f: EngineFixture, name: string) {
  return f.emu.state.apps().filter((a) => a.name === name);
}

async function applyAgainIsQuiet(f: EngineFixture, resources: readonly DesiredResource[], prune = false) {
  f.emu.journal.clear();
  const again = await f.run(resources, 'apply', { selection: { prune } });
  expect(again.plan.changes.map((c) => [c.subject, c.action])).toEqual(
    resources.map((r) => [r.subject, 'noop']),
  );
  expect(writesOf(f.emu)).toEqual([]);
}

describe('container app identity and create', () => {
  it('a document without appId creates its app with POST /mc/apps, deploys it, and the next apply is empty', async () => {
    const f = await start();
    const doc = app('docs site');

    const planned = await f.run([doc], 'plan');
    f.emu.journal.clear();
    const applied = await f.run([doc], 'apply');

    const created = appsNamed(f, 'docs site');
    const id = created[0]?.id;
    expect(planned.plan.changes[0]).toMatchObject({
      action: 'create',
      object: { kind: 'ContainerApp', via: 'create' },
    });
    expect(applied.apply?.results[0]).toMatchObject({ outcome: 'applied', action: 'create', objectId: id });
    expect(writesOf(f.emu)).toEqual([
      {
        method: 'POST',
        path: '/mc/apps',
        body: {
          name: 'docs site',
          runtimeType: 'shared',
          autoScaling: { min: 1, max: 1 },
          regionSettings: { allowedRegionIds: ['DE'], requiredRegionIds: ['DE'] },
          containerTemplates: [
            {
              name: 'web',
              imageName: 'nginx',
              imageNamespace: 'library',
              imageTag: '1.27',
              imageRegistryId: '1',
            },
          ],
          volumes: [{ name: 'cache', size: 2 }],
        },
      },
      { method: 'POST', path: `/mc/apps/${id}/deploy`, body: undefined },
    ]);
    expect(created).toHaveLength(1);
    expect(created[0]?.status).toBe('active');
    expect(f.state.inventory().get('ContainerApp/docs')).toEqual({
      kind: 'ContainerApp',
      id,
      key: 'docs site',
    });
    await applyAgainIsQuiet(f, [doc]);
  });

  it('a Docker Hub library image is written imageNamespace: "" (as the API and the official CLI write it), and the next apply is empty', async () => {
    const f = await start();
    const doc = app('library site', {
      containerTemplates: [
        { name: 'web', imageRegistryId: '1', imageNamespace: '', imageName: 'nginx', imageTag: '1.27' },
      ],
    });
    f.emu.journal.clear();

    await f.run([doc], 'apply');

    const created = appsNamed(f, 'library site')[0];
    expect(created?.containerTemplates[0]).toMatchObject({ imageNamespace: '', image: 'nginx:1.27' });
    const sent = writesOf(f.emu)[0]?.body as { containerTemplates: unknown[] } | undefined;
    expect(sent?.containerTemplates[0]).toMatchObject({ imageNamespace: '' });
    await applyAgainIsQuiet(f, [doc]);
  });

  it('deploy: false creates the app and leaves it undeployed', async () => {
    const f = await start();
    f.emu.journal.clear();
    await f.run([app('docs site', { deploy: false })], 'apply');

    expect(writesOf(f.emu).map((w) => `${w.method} ${w.path}`)).toEqual(['POST /mc/apps']);
    expect(appsNamed(f, 'docs site')[0]?.status).toBe('inactive');
  });

  it('adopts the one live app of its name: no create, only the declared differences are patched', async () => {
    const f = await start();
    const doc = desired('ContainerApp', 'shop', { name: 'storefront', autoScaling: { min: 2, max: 3 } });

    f.emu.journal.clear();
    const applied = await f.run([doc], 'apply');

    expect(applied.plan.changes[0]).toMatchObject({ action: 'adopt', object: { via: 'adopt', id: 'app1' } });
    expect(writesOf(f.emu)).toEqual([
      { method: 'PATCH', path: '/mc/apps/app1', body: { autoScaling: { min: 2, max: 3 } } },
    ]);
    expect(f.state.inventory().get('ContainerApp/shop')).toEqual({
      kind: 'ContainerApp',
      id: 'app1',
      key: 'storefront',
    });
    await applyAgainIsQuiet(f, [doc]);
  });

  it('two live apps of one name are an error naming both ids; nothing is sent', async () => {
    const f = await start();
    await f.run([app('twin')], 'apply');
    const first = appsNamed(f, 'twin')[0]?.id as string;
    f.emu.state.setApp({ ...structuredClone(f.emu.state.app(first)), id: 'twin-2' } as never);

    f.emu.journal.clear();
    const planned = await f.run([desired('ContainerApp', 'other', { name: 'twin' })], 'apply');

    expect(planned.plan.changes[0]?.action).toBe('error');
    expect(planned.plan.changes[0]?.error?.message).toContain(
      `2 live apps in the account are named "twin" (ids ${first}, twin-2)`,
    );
    expect(writesOf(f.emu)).toEqual([]);
  });

  it('a renamed document stays on its app (the inventory): a PATCH of the name, no create', async () => {
    const f = await start();
    await f.run([app('docs site')], 'apply');
    const id = appsNamed(f, 'docs site')[0]?.id;

    f.emu.journal.clear();
    const renamed = await f.run([app('docs portal')], 'apply');

    expect(renamed.plan.changes[0]).toMatchObject({ action: 'update', object: { via: 'inventory', id } });
    expect(writesOf(f.emu)).toEqual([
      { method: 'PATCH', path: `/mc/apps/${id}`, body: { name: 'docs portal' } },
    ]);
    expect(f.emu.state.app(id as string)?.name).toBe('docs portal');
    await applyAgainIsQuiet(f, [app('docs portal')]);
  });

  it('a create whose reply is lost is re-listed by name, never resent: one app, deployed', async () => {
    const f = await start();
    f.emu.faults.script({ operation: 'createApp', reply: 'drop-after' });
    const doc = app('docs site');

    f.emu.journal.clear();
    const { apply } = await f.run([doc], 'apply');

    const created = appsNamed(f, 'docs site');
    expect(apply?.results[0]).toMatchObject({ outcome: 'applied', action: 'create' });
    expect(created).toHaveLength(1);
    expect(writesOf(f.emu).map((w) => `${w.method} ${w.path}`)).toEqual([
      'POST /mc/apps',
      `POST /mc/apps/${created[0]?.id}/deploy`,
    ]);
    expect(f.state.inventory().get('ContainerApp/docs')?.id).toBe(created[0]?.id);
    await applyAgainIsQuiet(f, [doc]);
  });

  it.each([
    {
      status: 409,
      body: { title: 'Conflict', status: 409, detail: 'Application count limit is reached', errors: [] },
      message:
        'create app (POST /mc/apps) failed: 409 Conflict: Application count limit is reached (extended error)',
    },
    {
      status: 422,
      body: {
        title: 'Unprocessable Entity',
        status: 422,
        detail: 'One or more validation errors occurred.',
        errors: [
          { field: 'containerTemplates[0].imageName', message: 'Image nginx was not found in the registry' },
        ],
      },
      message:
        'create app (POST /mc/apps) failed: 422 Unprocessable Entity: One or more validation errors occurred; containerTemplates[0].imageName: Image nginx was not found in the registry (extended error)',
    },
  ])(
    'a create the API refuses ($status) fails with its message, is sent once and creates nothing',
    async ({ status, body, message }) => {
      const f = await start();
      f.emu.faults.script({ operation: 'createApp', reply: { status, body } });

      f.emu.journal.clear();
      const { apply } = await f.run([app('docs site')], 'apply');

      expect(apply?.results[0]).toMatchObject({
        outcome: 'failed',
        error: { code: 'API_REJECTED', message },
      });
      expect(writesOf(f.emu).map((w) => `${w.method} ${w.path}`)).toEqual(['POST /mc/apps']);
      expect(appsNamed(f, 'docs site')).toEqual([]);
      expect(f.state.inventory().get('ContainerApp/docs')).toBeUndefined();
    },
  );
});

describe('container app deploy owed', () => {
  const REFUSED = {
    status: 400,
    body: { title: 'Bad Request', status: 400, detail: 'The registry did not answer', errors: [] },
  };

  it('a deploy that fails after its create is owed: the inventory keeps the app, the next plan shows the deploy, the next apply sends only it, then nothing', async () => {
    const f = await start();
    const doc = app('docs site');
    f.emu.faults.script({ operation: 'deployApp', reply: REFUSED });

    f.emu.journal.clear();
    const first = await f.run([doc], 'apply');

    const id = appsNamed(f, 'docs site')[0]?.id as string;
    expect(first.apply?.results[0]).toMatchObject({
      outcome: 'failed',
      action: 'create',
      objectId: id,
      error: {
        code: 'API_REJECTED',
        message: `deploy app (POST /mc/apps/${id}/deploy) failed: 400 Bad Request: The registry did not answer (extended error)`,
      },
    });
    expect(writesOf(f.emu).map((w) => `${w.method} ${w.path}`)).toEqual([
      'POST /mc/apps',
      `POST /mc/apps/${id}/deploy`,
    ]);
    expect(f.emu.state.app(id)?.status).toBe('inactive');
    expect(f.state.inventory().get('ContainerApp/docs')).toEqual({
      kind: 'ContainerApp',
      id,
      key: 'docs site',
      afterCreateOwed: true,
    });

    const planned = await f.run([doc], 'plan');
    expect(planned.plan.changes[0]).toMatchObject({
      action: 'update',
      afterCreateOwed: true,
      diffs: [],
      requests: [{ operation: 'deployApp', method: 'POST', path: `/mc/apps/${id}/deploy` }],
      object: { via: 'inventory', id },
    });
    const note = `deploy owed: it failed after the create of #${id}`;
    expect(renderPlanText(planned.plan, { color: false })).toBe(
      [`~ ContainerApp/docs docs.yaml:1 (${note})`, '', 'Plan: 1 to change, 0 unchanged.', ''].join('\n'),
    );
    expect(renderPlanMarkdown(planned.plan)).toContain(`| ✏️ | \`ContainerApp/docs\` \`${note}\` | | | |`);

    f.emu.journal.clear();
    const second = await f.run([doc], 'apply');

    expect(second.apply?.results[0]).toMatchObject({ outcome: 'applied', action: 'update', objectId: id });
    expect(writesOf(f.emu)).toEqual([{ method: 'POST', path: `/mc/apps/${id}/deploy`, body: undefined }]);
    expect(f.emu.state.app(id)?.status).toBe('active');
    expect(f.state.inventory().get('ContainerApp/docs')).toEqual({
      kind: 'ContainerApp',
      id,
      key: 'docs site',
    });
    await applyAgainIsQuiet(f, [doc]);
  });

  it('an owed deploy that fails again stays owed; a document that now says deploy: false drops it, sending nothing', async () => {
    const f = await start();
    f.emu.faults.script({ operation: 'deployApp', reply: REFUSED, times: 2 });
    await f.run([app('docs site')], 'apply');
    const id = appsNamed(f, 'docs site')[0]?.id as string;

    f.emu.journal.clear();
    const again = await f.run([app('docs site')], 'apply');
    const dropped = await f.run([app('docs site', { deploy: false })], 'apply');

    expect(again.apply?.results[0]).toMatchObject({ outcome: 'failed', action: 'update' });
    expect(dropped.plan.changes[0]).toMatchObject({ action: 'noop', requests: [] });
    expect(dropped.plan.changes[0]).not.toHaveProperty('afterCreateOwed');
    expect(writesOf(f.emu).map((w) => `${w.method} ${w.path}`)).toEqual([`POST /mc/apps/${id}/deploy`]);
    expect(f.emu.state.app(id)?.status).toBe('inactive');
    expect(f.state.inventory().get('ContainerApp/docs')).toEqual({
      kind: 'ContainerApp',
      id,
      key: 'docs site',
    });
    await applyAgainIsQuiet(f, [app('docs site')]);
  });
});

describe('container app prune', () => {
  it('a removed document is refused without --force, naming the volumes; with it, exactly one DELETE', async () => {
    const f = await start();
    const keep = desired('ContainerApp', 'shop', { appId: 'app1' });
    await f.run([keep, app('docs site')], 'apply');
    const id = appsNamed(f, 'docs site')[0]?.id as string;

    f.emu.journal.clear();
    const refused = await f.run([keep], 'apply', { selection: { prune: true } });
    const notPruned = await f.run([keep], 'plan');
    const forced = await f.run([keep], 'apply', { selection: { prune: true }, write: { force: true } });

    const deletion = refused.plan.changes.find((c) => c.subject === 'ContainerApp/docs');
    expect(deletion).toMatchObject({
      action: 'error',
      diffs: [
        { path: 'name', live: 'docs site', desired: undefined },
        { path: 'volumes', live: 'cache (2 GB)', desired: undefined, destructive: true },
      ],
    });
    expect(deletion?.error?.message).toBe(
      'deleting "docs site" destroys the app and its volumes: cache (2 GB); re-run with --force if this is intended',
    );
    expect(notPruned.plan.notPruned).toEqual([
      expect.objectContaining({
        kind: 'ContainerApp',
        id,
        key: 'docs site',
        subject: 'ContainerApp/docs',
        withPrune: 'refused',
      }),
    ]);
    expect(forced.apply?.results.find((r) => r.subject === 'ContainerApp/docs')).toMatchObject({
      outcome: 'applied',
      action: 'delete',
    });
    expect(writesOf(f.emu)).toEqual([{ method: 'DELETE', path: `/mc/apps/${id}`, body: undefined }]);
    expect(f.emu.state.app(id)).toBeUndefined();
    expect(f.state.inventory().get('ContainerApp/docs')).toBeUndefined();
    await applyAgainIsQuiet(f, [keep], true);
  });

  it('an app edgesync never created or adopted is never pruned', async () => {
    const f = await start();
    const doc = app('docs site');
    await f.run([doc], 'apply');

    f.emu.journal.clear();
    const run = await f.run([doc], 'apply', { selection: { prune: true }, write: { force: true } });

    expect(run.plan.changes.map((c) => c.action)).toEqual(['noop']);
    expect(f.emu.state.app('app1')).toBeDefined();
    expect(writesOf(f.emu)).toEqual([]);
  });
});
