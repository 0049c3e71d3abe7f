/**
 * The emulator's app lifecycle routes: create (POST /mc/apps, a Docker Hub library image
 * included), delete, deploy / undeploy / restart, endpoint add and remove, volume remove, one
 * container's PATCH and GET, the registries (list, add, get, remove), and the rollout simulation (progressing for a while, then active, or
 * failing with the container's reason for an image tag the seed marks as failing).
 */
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { call, TEST_KEY, TEST_SEED, test } from '../helpers/emulator.js';

const NEW_APP = {
  name: 'docs site',
  runtimeType: 'shared',
  autoScaling: { min: 1, max: 2 },
  regionSettings: { allowedRegionIds: ['DE'], requiredRegionIds: ['DE'] },
  containerTemplates: [
    { name: 'web', imageRegistryId: '', imageNamespace: '', imageName: 'nginx', imageTag: '1.27' },
  ],
  volumes: [{ name: 'cache', size: 2 }],
};

interface Overview {
  status: string;
  regions: { pods: { containers: { name: string; status: string; reason: string; message: string }[] }[] }[];
}

describe('app lifecycle routes', () => {
  test('POST /mc/apps creates an inactive app (nginx from Docker Hub); deploy starts it; DELETE removes it', async ({
    emu,
  }) => {
    const created = await call(emu, 'POST', '/mc/apps', { body: NEW_APP });
    const id = (created.json as { id: string }).id;
    const before = emu.state.app(id);
    const statusBefore = before?.status;

    const deployed = await call(emu, 'POST', `/mc/apps/${id}/deploy`);
    const statusAfter = emu.state.app(id)?.status;
    const deleted = await call(emu, 'DELETE', `/mc/apps/${id}`);
    const again = await call(emu, 'DELETE', `/mc/apps/${id}`);

    expect(created.status).toBe(201);
    expect(before?.containerTemplates[0]).toMatchObject({ imageNamespace: '', image: 'nginx:1.27' });
    expect(before?.volumes).toEqual([{ name: 'cache', size: 2 }]);
    expect(statusBefore).toBe('inactive');
    expect(deployed.status).toBe(200);
    expect(statusAfter).toBe('active');
    expect([deleted.status, deleted.text]).toEqual([200, '']);
    expect(emu.state.app(id)).toBeUndefined();
    expect(again.status).toBe(404);
  });

  test('undeploy makes the app inactive and cancels its rollout; a restart or a patch leaves it inactive; deploy runs it', async () => {
    const emu = await startEmulator({
      accessKey: TEST_KEY,
      seed: { ...TEST_SEED, rollout: { progressingMs: 60, failingImageTags: [] } },
    });
    try {
      await call(emu, 'POST', '/mc/apps/app1/restart');
      const restarting = emu.state.app('app1')?.status;
      await call(emu, 'POST', '/mc/apps/app1/undeploy');
      await new Promise((resolve) => setTimeout(resolve, 100));
      // The restart's rollout was due by now: an undeployed app does not come back by itself.
      const undeployed = emu.state.app('app1')?.status;
      await call(emu, 'POST', '/mc/apps/app1/restart');
      await call(emu, 'PATCH', '/mc/apps/app1/containers/tpl-web', { body: { imageTag: '1.4.3' } });
      const stillInactive = emu.state.app('app1')?.status;
      await call(emu, 'POST', '/mc/apps/app1/deploy');
      const deploying = emu.state.app('app1')?.status;
      await new Promise((resolve) => setTimeout(resolve, 100));

      expect([restarting, undeployed, stillInactive, deploying]).toEqual([
        'progressing',
        'inactive',
        'inactive',
        'progressing',
      ]);
      expect(emu.state.app('app1')?.status).toBe('active');
    } finally {
      await emu.close();
    }
  });

  test('PATCH …/containers/{id} changes only the fields given (deploy --image: a Docker Hub library image), GET returns it', async ({
    emu,
  }) => {
    const before = structuredClone(emu.state.app('app1')?.containerTemplates[0]);
    const patched = await call(emu, 'PATCH', '/mc/apps/app1/containers/tpl-web', {
      body: {
        image: 'nginx:1.27.3',
        imageName: 'nginx',
        imageNamespace: '',
        imageTag: '1.27.3',
        imageRegistryId: '',
      },
    });
    const read = await call(emu, 'GET', '/mc/apps/app1/containers/tpl-web');
    const unknown = await call(emu, 'PATCH', '/mc/apps/app1/containers/nope', { body: { imageTag: '1' } });
    const badTag = await call(emu, 'PATCH', '/mc/apps/app1/containers/tpl-web', {
      body: { imageTag: 'a b' },
    });
    const badMount = await call(emu, 'PATCH', '/mc/apps/app1/containers/tpl-web', {
      body: { volumeMounts: [{ name: 'missing', mountPath: '/m' }] },
    });
    const after = emu.state.app('app1')?.containerTemplates[0];

    expect(patched.status).toBe(200);
    expect(patched.json).toEqual(read.json);
    expect(after).toEqual({
      ...before,
      image: 'nginx:1.27.3',
      imageName: 'nginx',
      imageNamespace: '',
      imageTag: '1.27.3',
      imageRegistryId: '',
      imageDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
    expect(after?.imageDigest).not.toBe(before?.imageDigest);
    expect(unknown.status).toBe(404);
    expect([badTag.status, badMount.status]).toEqual([400, 400]);
  });

  test('registries: the platform ones listed; one added with credentials (only its password hint kept), read, refused while in use, removed', async ({
    emu,
  }) => {
    const added = await call(emu, 'POST', '/mc/registries', {
      body: {
        displayName: 'My GHCR',
        type: 'gitHub',
        passwordCredentials: { userName: 'bot', password: 's3cret-token' },
      },
    });
    const id = (added.json as { id: number }).id;
    const read = await call(emu, 'GET', `/mc/registries/${id}`);
    const listed = await call(emu, 'GET', '/mc/registries');
    const platform = await call(emu, 'DELETE', '/mc/registries/1');
    // An app that pulls from it keeps it.
    await call(emu, 'PATCH', '/mc/apps/app1/containers/tpl-web', { body: { imageRegistryId: String(id) } });
    const inUse = await call(emu, 'DELETE', `/mc/registries/${id}`);
    await call(emu, 'PATCH', '/mc/apps/app1/containers/tpl-web', { body: { imageRegistryId: '123' } });
    const removed = await call(emu, 'DELETE', `/mc/registries/${id}`);
    const gone = await call(emu, 'GET', `/mc/registries/${id}`);
    const invalid = await call(emu, 'POST', '/mc/registries', { body: { displayName: '' } });

    expect(added).toMatchObject({ status: 200, json: { id: 3, error: null, status: 'saved' } });
    expect(read.json).toMatchObject({
      id: 3,
      displayName: 'My GHCR',
      hostName: 'ghcr.io',
      userName: 'bot',
      firstPasswordSymbols: 's3',
      lastPasswordSymbols: 'en',
      isPublic: false,
      isPlatformManaged: false,
    });
    expect(JSON.stringify(emu.state.registries)).not.toContain('s3cret-token');
    expect((listed.json as { items: { id: number }[] }).items.map((r) => r.id)).toEqual([1, 2, 3]);
    expect(platform.json).toEqual({ status: 'notFound', applications: [] });
    expect(inUse.json).toEqual({ status: 'inUse', applications: ['storefront'] });
    expect(removed.json).toEqual({ status: 'removed', applications: [] });
    expect(gone.status).toBe(404);
    expect(invalid.status).toBe(400);
  });

  test('endpoints are added to a container and removed by id or display name; a volume is removed with its mounts', async ({
    emu,
  }) => {
    const added = await call(emu, 'POST', '/mc/apps/app1/containers/tpl-worker/endpoints', {
      body: { displayName: 'worker-any', anycast: { type: 'IPv4', portMappings: [{ containerPort: 9000 }] } },
    });
    const duplicate = await call(emu, 'POST', '/mc/apps/app1/containers/tpl-worker/endpoints', {
      body: { displayName: 'web-cdn', anycast: { type: 'IPv4', portMappings: [{ containerPort: 9000 }] } },
    });
    const endpointId = (added.json as { id: string }).id;
    const workerEndpoints = emu.state.app('app1')?.containerTemplates[1]?.endpoints.map((e) => e.displayName);
    const removedById = await call(emu, 'DELETE', `/mc/apps/app1/endpoints/${endpointId}`);
    const removedByName = await call(emu, 'DELETE', '/mc/apps/app1/endpoints/web-cdn');
    const volume = await call(emu, 'DELETE', '/mc/apps/app1/volumes/data');
    const app = emu.state.app('app1');

    expect(added.status).toBe(201);
    expect(duplicate.status).toBe(400);
    expect(workerEndpoints).toEqual(['worker-any']);
    expect([removedById.status, removedByName.status, volume.status]).toEqual([200, 200, 200]);
    expect(app?.containerTemplates.flatMap((t) => t.endpoints)).toEqual([]);
    expect(app?.volumes).toEqual([{ name: 'cache', size: 5 }]);
    expect(app?.containerTemplates[0]?.volumeMounts).toEqual([]);
  });

  test('GET /mc/registries lists the account registries', async ({ emu }) => {
    const reply = await call(emu, 'GET', '/mc/registries');

    expect(reply.status).toBe(200);
    expect((reply.json as { items: { displayName: string }[] }).items.map((r) => r.displayName)).toEqual([
      'Docker Hub',
      'GitHub',
    ]);
  });
});

describe('rollout simulation', () => {
  it('a change is progressing for the configured time, then active; a failing tag fails with its reason', async () => {
    const emu = await startEmulator({
      accessKey: TEST_KEY,
      seed: { ...TEST_SEED, rollout: { progressingMs: 150, failingImageTags: ['broken'] } },
    });
    try {
      const web = (tag: string) => ({
        containerTemplates: [
          {
            id: 'tpl-web',
            name: 'web',
            imageRegistryId: '123',
            imageNamespace: 'acme',
            imageName: 'web',
            imageTag: tag,
          },
          {
            id: 'tpl-worker',
            name: 'worker',
            imageRegistryId: '123',
            imageNamespace: 'acme',
            imageName: 'worker',
            imageTag: '2.0.0',
          },
        ],
      });
      await call(emu, 'PATCH', '/mc/apps/app1', { body: web('1.5.0') });
      const progressing = (await call(emu, 'GET', '/mc/apps/app1/overview')).json as Overview;
      await new Promise((resolve) => setTimeout(resolve, 200));
      const active = (await call(emu, 'GET', '/mc/apps/app1/overview')).json as Overview;
      await call(emu, 'PATCH', '/mc/apps/app1', { body: web('broken') });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const failing = (await call(emu, 'GET', '/mc/apps/app1/overview')).json as Overview;
      const listed = (await call(emu, 'GET', '/mc/apps')).json as { items: { id: string; status: string }[] };

      expect(progressing.status).toBe('progressing');
      expect(active.status).toBe('active');
      expect(active.regions[0]?.pods).toEqual([]);
      expect(failing.status).toBe('failing');
      expect(failing.regions[0]?.pods[0]?.containers.map((c) => [c.name, c.status, c.reason])).toEqual([
        ['web', 'notStarted', 'CrashLoopBackOff'],
        ['worker', 'started', 'ContainerCreating'],
      ]);
      expect(failing.regions[0]?.pods[0]?.containers[0]?.message).toContain('acme/web:broken');
      expect(listed.items.find((a) => a.id === 'app1')?.status).toBe('failing');
    } finally {
      await emu.close();
    }
  });
});
