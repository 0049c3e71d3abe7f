import { describe, expect, it } from 'vitest';
import type { EmulatorSeed } from '../../src/emulator/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import { call, MINIMAL_TEMPLATE, TEST_KEY, TEST_SEED, test } from '../helpers/emulator.js';

/** TEST_SEED plus 24 more apps, so the listing has pages. */
function manyApps(): EmulatorSeed {
  const extra = Array.from({ length: 24 }, (_, i) => ({
    id: `extra${String(i).padStart(2, '0')}`,
    name: `extra ${i}`,
    containerTemplates: [MINIMAL_TEMPLATE],
  }));
  return { ...TEST_SEED, apps: [...(TEST_SEED.apps ?? []), ...extra] };
}

interface Page {
  items: { id: string }[];
  meta: { totalItems: number };
  cursor: string | null;
}

describe('GET /mc/apps (cursor-paged)', () => {
  it('pages 20 by default, follows the cursor to the end, and honours limit', async () => {
    const emu = await startEmulator({ accessKey: TEST_KEY, seed: manyApps() });
    try {
      const first = (await call(emu, 'GET', '/mc/apps')).json as Page;
      const second = (await call(emu, 'GET', `/mc/apps?nextCursor=${first.cursor}`)).json as Page;
      const small = (await call(emu, 'GET', '/mc/apps?limit=3')).json as Page;

      expect(first.items).toHaveLength(20);
      expect(first.meta).toEqual({ totalItems: 25 });
      expect(first.cursor).toEqual(expect.any(String));
      expect(second.items.map((a) => a.id)).toEqual(['extra19', 'extra20', 'extra21', 'extra22', 'extra23']);
      expect(second.cursor).toBeNull();
      expect(small.items.map((a) => a.id)).toEqual(['app1', 'extra00', 'extra01']);
    } finally {
      await emu.close();
    }
  });

  test('items carry id, name, description, status and the display endpoint', async ({ emu }) => {
    const result = await call(emu, 'GET', '/mc/apps');

    expect(result.status).toBe(200);
    expect((result.json as Page).items).toEqual([
      {
        id: 'app1',
        name: 'storefront',
        description: '',
        status: 'active',
        displayEndpoint: { id: expect.any(String), address: expect.any(String), type: 'cdn' },
      },
    ]);
  });

  test('a bad limit or cursor is a 400 ErrorDetails naming it', async ({ emu }) => {
    const limit = await call(emu, 'GET', '/mc/apps?limit=1001');
    const cursor = await call(emu, 'GET', '/mc/apps?nextCursor=garbage');

    expect(limit.status).toBe(400);
    expect(limit.json).toMatchObject({
      status: 400,
      errors: [{ field: 'limit', message: 'The field Limit must be between 1 and 1000.' }],
    });
    expect(cursor.status).toBe(400);
    expect(cursor.json).toMatchObject({ errors: [{ field: 'nextCursor' }] });
  });
});

describe('GET /mc/regions', () => {
  test('pages the catalogue; the optimal region is in it', async ({ emu }) => {
    const first = (await call(emu, 'GET', '/mc/regions?limit=5')).json as Page;
    const rest = (await call(emu, 'GET', `/mc/regions?limit=5&nextCursor=${first.cursor}`)).json as Page;

    expect(first.meta.totalItems).toBe(8);
    expect(first.items[0]).toEqual({
      id: 'DE',
      name: 'Frankfurt',
      group: 'Europe',
      hasAnycastSupport: true,
      hasCapacity: true,
    });
    expect(rest.items).toHaveLength(3);
    expect(rest.cursor).toBeNull();
  });

  it('takes the catalogue from the seed', async () => {
    const region = { id: 'XX', name: 'Test', group: 'Lab', hasAnycastSupport: false, hasCapacity: true };
    const emu = await startEmulator({ accessKey: TEST_KEY, seed: { regions: [region] } });
    try {
      expect((await call(emu, 'GET', '/mc/regions')).json).toEqual({
        items: [region],
        meta: { totalItems: 1 },
        cursor: null,
      });
    } finally {
      await emu.close();
    }
  });
});

describe('per-app reads', () => {
  test('overview: status, required regions and instances from the app; 404 for an unknown app', async ({
    emu,
  }) => {
    const overview = await call(emu, 'GET', '/mc/apps/app1/overview');
    const missing = await call(emu, 'GET', '/mc/apps/nope/overview');

    expect(overview.status).toBe(200);
    expect(overview.json).toMatchObject({
      status: 'active',
      activeRegions: { indicator: 1 },
      activeInstances: { indicator: 1 },
      desiredInstances: 1,
      regions: [{ region: 'DE', isRequired: true, instances: 1, status: 'active' }],
      totalVolumeSizeInGb: 15,
      monthlyCost: 0,
    });
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ status: 404, id: 'nope' });
  });

  test('region settings are the app GET’s', async ({ emu }) => {
    const result = await call(emu, 'GET', '/mc/apps/app1/region-settings');

    expect(result.json).toEqual({
      allowedRegionIds: ['DE', 'NY'],
      requiredRegionIds: ['DE'],
      maxAllowedRegions: 2,
      provisioningType: 'static',
    });
  });

  test('volumes have ids, stable across listings and patches, fresh for a new volume', async ({ emu }) => {
    const before = (await call(emu, 'GET', '/mc/apps/app1/volumes')).json as {
      items: { name: string; id: string; size: number; containersCount: number }[];
    };
    await call(emu, 'PATCH', '/mc/apps/app1', {
      body: {
        volumes: [
          { name: 'data', size: 20 },
          { name: 'logs', size: 1 },
        ],
      },
    });
    const after = (await call(emu, 'GET', '/mc/apps/app1/volumes')).json as typeof before;

    expect(before.items.map((v) => [v.name, v.size, v.containersCount])).toEqual([
      ['data', 10, 1],
      ['cache', 5, 0],
    ]);
    expect(new Set(before.items.map((v) => v.id)).size).toBe(2);
    expect(after.items.map((v) => v.name)).toEqual(['data', 'logs']);
    expect(after.items[0]?.id).toBe(before.items[0]?.id);
    expect(after.items[0]?.size).toBe(20);
    expect(before.items.map((v) => v.id)).not.toContain(after.items[1]?.id);
  });
});

describe('PUT /mc/apps/{appId}/containers/{containerId}/env', () => {
  test('replaces every variable of that container and answers the template', async ({ emu }) => {
    const result = await call(emu, 'PUT', '/mc/apps/app1/containers/tpl-web/env', {
      body: { NODE_ENV: 'production', PORT: '8080' },
    });
    const app = (await call(emu, 'GET', '/mc/apps/app1')).json as {
      containerTemplates: { id: string; environmentVariables: unknown }[];
    };

    expect(result.status).toBe(200);
    expect(result.json).toMatchObject({
      id: 'tpl-web',
      name: 'web',
      environmentVariables: [
        { name: 'NODE_ENV', value: 'production' },
        { name: 'PORT', value: '8080' },
      ],
    });
    expect(app.containerTemplates.map((t) => [t.id, t.environmentVariables])).toEqual([
      [
        'tpl-web',
        [
          { name: 'NODE_ENV', value: 'production' },
          { name: 'PORT', value: '8080' },
        ],
      ],
      ['tpl-worker', []],
    ]);
  });

  test('{} clears; a non-string value or an empty name is 400; unknown app or container is 404', async ({
    emu,
  }) => {
    const cleared = await call(emu, 'PUT', '/mc/apps/app1/containers/tpl-web/env', { body: {} });
    const number = await call(emu, 'PUT', '/mc/apps/app1/containers/tpl-web/env', { body: { PORT: 8080 } });
    const empty = await call(emu, 'PUT', '/mc/apps/app1/containers/tpl-web/env', { body: { '': 'x' } });
    const noApp = await call(emu, 'PUT', '/mc/apps/nope/containers/tpl-web/env', { body: {} });
    const noContainer = await call(emu, 'PUT', '/mc/apps/app1/containers/nope/env', { body: {} });

    expect(cleared.status).toBe(200);
    expect(emu.state.app('app1')?.containerTemplates[0]?.environmentVariables).toEqual([]);
    expect(number.status).toBe(400);
    expect(number.json).toMatchObject({
      errors: [
        { field: 'PORT', message: 'The JSON value could not be converted to System.String. Path: $.PORT.' },
      ],
      id: 'app1',
    });
    expect(empty.status).toBe(400);
    expect(noApp.status).toBe(404);
    expect(noContainer.status).toBe(404);
  });
});
