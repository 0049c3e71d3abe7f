import { describe, expect } from 'vitest';
import type { Application } from '../../src/emulator/index.js';
import { call, test } from '../helpers/emulator.js';

/** The seeded templates as request items (id included), to build patches from. */
const WEB = {
  id: 'tpl-web',
  name: 'web',
  imageRegistryId: '123',
  imageNamespace: 'acme',
  imageName: 'web',
  imageTag: '1.4.2',
  endpoints: [
    { displayName: 'web-cdn', cdn: { isSslEnabled: true, portMappings: [{ containerPort: 8080 }] } },
  ],
  volumeMounts: [{ name: 'data', mountPath: '/data' }],
};
const WORKER = {
  id: 'tpl-worker',
  name: 'worker',
  imageRegistryId: '123',
  imageNamespace: 'acme',
  imageName: 'worker',
  imageTag: '2.0.0',
};

async function getApp(emu: Parameters<typeof call>[0]): Promise<Application> {
  const result = await call(emu, 'GET', '/mc/apps/app1');
  expect(result.status).toBe(200);
  return result.json as Application;
}

describe('GET /mc/apps/{id}', () => {
  test('returns the real GET shape with server-owned fields filled', async ({ emu }) => {
    const app = await getApp(emu);

    expect(app).toMatchObject({
      id: 'app1',
      name: 'storefront',
      status: 'active',
      runtimeType: 'shared',
      autoScaling: { min: 1, max: 3 },
      regionSettings: {
        allowedRegionIds: ['DE', 'NY'],
        requiredRegionIds: ['DE'],
        maxAllowedRegions: 2,
        provisioningType: 'static',
      },
      volumes: [
        { name: 'data', size: 10 },
        { name: 'cache', size: 5 },
      ],
    });
    const web = app.containerTemplates[0];
    expect(web).toMatchObject({
      id: 'tpl-web',
      image: 'acme/web:1.4.2',
      imagePullPolicy: 'ifNotPresent',
      imageDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      packageId: expect.any(String),
      environmentVariables: [{ name: 'LOG_LEVEL', value: 'info' }],
    });
    expect(web?.endpoints[0]).toMatchObject({
      displayName: 'web-cdn',
      type: 'cdn',
      isSslEnabled: true,
      pullZoneId: expect.stringMatching(/^\d+$/),
      portMappings: [{ containerPort: 8080, exposedPort: 8080, protocols: ['tcp'] }],
    });
    expect(app.containerInstances.map((i) => i.templateId)).toEqual(['tpl-web', 'tpl-worker']);
    expect(app.displayEndpoint).toEqual({
      id: web?.endpoints[0]?.id,
      address: web?.endpoints[0]?.publicHost,
      type: 'cdn',
    });
  });

  test('an unknown app is a 404 extended error', async ({ emu }) => {
    const result = await call(emu, 'GET', '/mc/apps/nope');

    expect(result.status).toBe(404);
    expect(result.json).toMatchObject({ status: 404, title: 'Not Found', errors: [], id: 'nope' });
  });
});

describe('E4 PATCH /mc/apps/{id}: merge-patch', () => {
  test('changes only the supplied top-level fields and answers {id}', async ({ emu }) => {
    const before = await getApp(emu);

    const result = await call(emu, 'PATCH', '/mc/apps/app1', {
      body: { name: 'Store Front 2', runtimeType: 'Reserved', autoScaling: { min: 2, max: 4 } },
    });
    const after = await getApp(emu);

    expect(result.status).toBe(200);
    expect(result.json).toEqual({ id: 'app1' });
    expect(after).toEqual({
      ...before,
      name: 'Store Front 2',
      runtimeType: 'reserved',
      autoScaling: { min: 2, max: 4 },
    });
  });

  test('regionSettings fields merge one by one; nodeSelectors are stored but not returned', async ({
    emu,
  }) => {
    await call(emu, 'PATCH', '/mc/apps/app1', {
      body: { regionSettings: { allowedRegionIds: ['DE', 'NY', 'LA'], nodeSelectors: { tier: 'gold' } } },
    });

    const app = await getApp(emu);

    expect(app.regionSettings).toEqual({
      allowedRegionIds: ['DE', 'NY', 'LA'],
      requiredRegionIds: ['DE'],
      maxAllowedRegions: 2,
      provisioningType: 'static',
    });
    expect(app.regionSettings).not.toHaveProperty('nodeSelectors');
    expect(emu.state.nodeSelectors('app1')).toEqual({ tier: 'gold' });
  });
});

describe('E4 array rules', () => {
  test('containerTemplates: an id updates in place, no id creates, left out deletes', async ({ emu }) => {
    const before = await getApp(emu);
    const liveEndpointId = before.containerTemplates[0]?.endpoints[0]?.id;
    const livePackageId = before.containerTemplates[0]?.packageId;

    const result = await call(emu, 'PATCH', '/mc/apps/app1', {
      body: {
        containerTemplates: [
          { ...WEB, imageTag: '1.5.0' },
          { name: 'cron', imageRegistryId: '123', imageNamespace: 'acme', imageName: 'cron', imageTag: '1' },
        ],
      },
    });
    const after = await getApp(emu);

    expect(result.status).toBe(200);
    expect(after.containerTemplates.map((t) => t.name)).toEqual(['web', 'cron']);
    const [web, cron] = after.containerTemplates;
    expect(web).toMatchObject({
      id: 'tpl-web',
      packageId: livePackageId,
      imageTag: '1.5.0',
      image: 'acme/web:1.5.0',
    });
    expect(web?.endpoints[0]?.id).toBe(liveEndpointId);
    expect(cron?.id).toEqual(expect.any(String));
    expect(cron?.id).not.toBe('tpl-worker');
    expect(after.containerTemplates.some((t) => t.id === 'tpl-worker')).toBe(false);
    expect(after.containerInstances.map((i) => i.templateId)).toEqual(['tpl-web', cron?.id]);
  });

  test('an updated template is replaced by the item: fields it leaves out take defaults', async ({ emu }) => {
    await call(emu, 'PATCH', '/mc/apps/app1', { body: { containerTemplates: [WEB, WORKER] } });

    const app = await getApp(emu);

    expect(app.containerTemplates[0]?.environmentVariables).toEqual([]);
  });

  test('an id that matches no template is a 400 extended error naming the item, and nothing changes', async ({
    emu,
  }) => {
    const before = await getApp(emu);

    const result = await call(emu, 'PATCH', '/mc/apps/app1', {
      body: { name: 'changed', containerTemplates: [WEB, { ...WORKER, id: 'tpl-ghost' }] },
    });

    expect(result.status).toBe(400);
    expect(result.json).toMatchObject({
      status: 400,
      id: 'app1',
      errors: [{ field: 'containerTemplates[1].id', message: expect.stringContaining('tpl-ghost') }],
    });
    expect(await getApp(emu)).toEqual(before);
  });

  test('an empty containerTemplates array is refused: the last container cannot be deleted', async ({
    emu,
  }) => {
    const result = await call(emu, 'PATCH', '/mc/apps/app1', { body: { containerTemplates: [] } });

    expect(result.status).toBe(400);
    expect(result.json).toMatchObject({
      errors: [{ field: 'containerTemplates', message: expect.any(String) }],
    });
    expect(emu.state.app('app1')?.containerTemplates).toHaveLength(2);
  });

  test('endpoints: matched by displayName (id kept), new names get fresh ids, left out are deleted', async ({
    emu,
  }) => {
    const before = await getApp(emu);
    const cdnId = before.containerTemplates[0]?.endpoints[0]?.id;

    await call(emu, 'PATCH', '/mc/apps/app1', {
      body: {
        containerTemplates: [
          {
            ...WEB,
            endpoints: [
              { displayName: 'web-any', anycast: { type: 'iPv4', portMappings: [{ containerPort: 9000 }] } },
              {
                displayName: 'web-cdn',
                cdn: { isSslEnabled: false, portMappings: [{ containerPort: 8081 }] },
              },
            ],
          },
          WORKER,
        ],
      },
    });
    const firstPass = (await getApp(emu)).containerTemplates[0]?.endpoints ?? [];
    await call(emu, 'PATCH', '/mc/apps/app1', {
      body: {
        containerTemplates: [
          {
            ...WEB,
            endpoints: [{ displayName: 'web-cdn', cdn: { portMappings: [{ containerPort: 8082 }] } }],
          },
          WORKER,
        ],
      },
    });
    const secondPass = (await getApp(emu)).containerTemplates[0]?.endpoints ?? [];

    expect(firstPass.map((e) => [e.displayName, e.type])).toEqual([
      ['web-any', 'anycast'],
      ['web-cdn', 'cdn'],
    ]);
    expect(firstPass[1]?.id).toBe(cdnId);
    expect(firstPass[0]?.id).not.toBe(cdnId);
    expect(secondPass).toHaveLength(1);
    expect(secondPass[0]).toMatchObject({ id: cdnId, portMappings: [{ containerPort: 8082 }] });
  });

  test('volumes: matched by name; new names created, left out deleted', async ({ emu }) => {
    const result = await call(emu, 'PATCH', '/mc/apps/app1', {
      body: {
        volumes: [
          { name: 'data', size: 20 },
          { name: 'logs', size: 1 },
        ],
      },
    });

    expect(result.status).toBe(200);
    expect(emu.state.app('app1')?.volumes).toEqual([
      { name: 'data', size: 20 },
      { name: 'logs', size: 1 },
    ]);
  });

  test('deleting a volume that a container still mounts is refused', async ({ emu }) => {
    const result = await call(emu, 'PATCH', '/mc/apps/app1', {
      body: { volumes: [{ name: 'cache', size: 5 }] },
    });

    expect(result.status).toBe(400);
    expect(result.json).toMatchObject({
      errors: [{ field: 'volumes', message: expect.stringContaining("'data'") }],
    });
    expect(emu.state.app('app1')?.volumes.map((v) => v.name)).toEqual(['data', 'cache']);
  });

  test('a mount may name a volume created by the same patch', async ({ emu }) => {
    const result = await call(emu, 'PATCH', '/mc/apps/app1', {
      body: {
        volumes: [
          { name: 'data', size: 10 },
          { name: 'scratch', size: 2 },
        ],
        containerTemplates: [
          WEB,
          { ...WORKER, volumeMounts: [{ name: 'scratch', mountPath: '/tmp/scratch' }] },
        ],
      },
    });

    expect(result.status).toBe(200);
    expect(emu.state.app('app1')?.containerTemplates[1]?.volumeMounts).toEqual([
      { name: 'scratch', mountPath: '/tmp/scratch' },
    ]);
  });

  test('an unknown app is a 404 problem details', async ({ emu }) => {
    const result = await call(emu, 'PATCH', '/mc/apps/nope', { body: { name: 'x' } });

    expect(result.status).toBe(404);
    expect(result.json).toMatchObject({
      status: 404,
      title: 'Not Found',
      type: expect.stringContaining('rfc9110'),
    });
    expect(result.json).not.toHaveProperty('errors');
  });
});

describe('E7 GET /mc/regions/optimal', () => {
  test('returns the seeded or default region, ignoring cdnServerToken', async ({ emu }) => {
    const result = await call(emu, 'GET', '/mc/regions/optimal?cdnServerToken=abc');

    expect(result.status).toBe(200);
    expect(result.json).toEqual({
      region: { id: 'DE', name: 'Frankfurt', group: 'Europe', hasAnycastSupport: true, hasCapacity: true },
    });
  });

  test('follows state edits', async ({ emu }) => {
    emu.state.optimalRegion = {
      id: 'NY',
      name: 'New York',
      group: 'North America',
      hasAnycastSupport: false,
      hasCapacity: true,
    };

    const result = await call(emu, 'GET', '/mc/regions/optimal');

    expect((result.json as { region: { id: string } }).region.id).toBe('NY');
  });
});
