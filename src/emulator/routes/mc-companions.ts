/**
 * The Magic Containers routes the official bunny CLI's `apps` commands need besides E4 and
 * E7 (docs/design.md, The emulator): the app and region listings (cursor-paged), the app overview, its region
 * settings and volumes, and the env replace of one container. Shapes from the MC OpenAPI file.
 */
import type { Reply } from '../replies.js';
import { MC_GET_PROFILE, MC_PROFILE } from '../replies.js';
import { ContainerEnvRequest } from '../validation/app.js';
import { check } from '../validation/issues.js';
import type { Application } from '../wire.js';
import type { RequestContext, Route } from './types.js';
import { appOr404, isApp, queryInt, validationFailure } from './types.js';

/** The listings' `limit`: default 20, 1-1000 (MC spec). */
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 1000;

/** A cursor is the offset of the next page, opaque to clients as the real one is. */
function encodeCursor(offset: number): string {
  return Buffer.from(`o${offset}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): number | undefined {
  const match = /^o(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match === null ? undefined : Number(match[1]);
}

/** One page of `items` per `nextCursor`/`limit`, as `{items, meta: {totalItems}, cursor}`; or the 400. */
function page<T, U>(ctx: RequestContext, items: readonly T[], view: (item: T) => U): Reply {
  const query = new URLSearchParams(ctx.rawQuery);
  const limit = queryInt(query, 'limit', DEFAULT_LIMIT);
  if (limit === undefined || limit < 1 || limit > MAX_LIMIT) {
    return ctx.fail(
      'invalid',
      validationFailure([{ field: 'limit', message: `The field Limit must be between 1 and ${MAX_LIMIT}.` }]),
    );
  }
  const cursor = query.get('nextCursor');
  const offset = cursor === null || cursor === '' ? 0 : decodeCursor(cursor);
  if (offset === undefined) {
    return ctx.fail(
      'invalid',
      validationFailure([{ field: 'nextCursor', message: `The cursor '${cursor}' is not valid.` }]),
    );
  }
  const end = Math.min(offset + limit, items.length);
  return {
    status: 200,
    body: {
      items: items.slice(offset, end).map(view),
      meta: { totalItems: items.length },
      cursor: end < items.length ? encodeCursor(end) : null,
    },
  };
}

function listApps(ctx: RequestContext): Reply {
  return page(ctx, ctx.state.apps(), (app) => {
    const item: Record<string, unknown> = { id: app.id, name: app.name, description: '', status: app.status };
    if (app.displayEndpoint !== undefined) item.displayEndpoint = { ...app.displayEndpoint };
    return item;
  });
}

function listRegions(ctx: RequestContext): Reply {
  return page(ctx, ctx.state.regions, (region) => ({ ...region }));
}

/** The overview's deployment status of a region: the app's, where that is a deployment status. */
function deploymentStatus(app: Application): string {
  return app.status === 'suspended' ? 'inactive' : app.status;
}

/**
 * `Overview`: what can be derived from the app (status, regions, instances, volume sizes);
 * the measured figures (latency, CPU, RAM, cost) are zero: nothing runs in the emulator.
 */
function getAppOverview(ctx: RequestContext): Reply {
  const app = appOr404(ctx);
  if (!isApp(app)) return app;
  const required = new Set(app.regionSettings.requiredRegionIds);
  const regions = app.regionSettings.allowedRegionIds.filter((id) => required.has(id));
  const perRegion = app.autoScaling.min;
  const great = (indicator: number) => ({ indicator, statusGrade: 'doingGreat' });
  return {
    status: 200,
    body: {
      targetLatency: great(0),
      currentLatency: great(0),
      activeRegions: great(regions.length),
      activeInstances: great(regions.length * perRegion),
      desiredInstances: regions.length * perRegion,
      status: app.status,
      averageCPU: great(0),
      averageRAM: great(0),
      averageVolumesUsage: great(0),
      regions: regions.map((region) => ({
        region,
        isRequired: true,
        instances: perRegion,
        status: deploymentStatus(app),
        averageCPU: 0,
        averageRAM: 0,
        averageVolumesUsagePercentage: 0,
        requests: 0,
        anycastTraffic: 0,
        pods: podsOf(app, ctx, region),
      })),
      averageLatency: 0,
      totalVolumeSizeInGb: app.volumes.reduce((sum, v) => sum + v.size, 0),
      monthlyCost: 0,
      latencyChart: {},
    },
  };
}

/**
 * The pods of a region while the app is not simply running: one pod whose containers say
 * what the rollout simulation decided (a failing image crash-loops, the rest start).
 */
function podsOf(app: Application, ctx: RequestContext, region: string): unknown[] {
  if (app.status !== 'failing' && app.status !== 'progressing') return [];
  const failing = new Set(ctx.state.failingContainers(app).map((c) => c.id));
  return [
    {
      name: `${app.id}-${region.toLowerCase()}-0`,
      status: 'scheduled',
      cpuUsage: 0,
      ramUsage: 0,
      containers: app.containerTemplates.map((t) => ({
        id: t.id,
        name: t.name,
        cpuUsage: 0,
        ramUsage: 0,
        status: failing.has(t.id) && app.status === 'failing' ? 'notStarted' : 'started',
        reason: failing.has(t.id) && app.status === 'failing' ? 'CrashLoopBackOff' : 'ContainerCreating',
        message:
          failing.has(t.id) && app.status === 'failing'
            ? `back-off restarting failed container ${t.name}: exited with code 1 (image ${t.image})`
            : `starting image ${t.image}`,
        image: t.image,
        imageDisplay: t.image,
        numberOfRestarts: failing.has(t.id) && app.status === 'failing' ? 5 : 0,
        exitCode: failing.has(t.id) && app.status === 'failing' ? 1 : null,
      })),
      volumesUtilizationPercentage: {},
    },
  ];
}

function getRegionSettings(ctx: RequestContext): Reply {
  const app = appOr404(ctx);
  if (!isApp(app)) return app;
  return { status: 200, body: app.regionSettings };
}

/** `ListVolumesResponse`: each volume with its id, the containers mounting it, no instances. */
function listVolumes(ctx: RequestContext): Reply {
  const app = appOr404(ctx);
  if (!isApp(app)) return app;
  const ids = ctx.state.volumeIds(app.id);
  const items = app.volumes.map((volume) => ({
    name: volume.name,
    id: ids.get(volume.name) as string,
    size: volume.size,
    totalUsage: 0,
    totalInstancesCount: 0,
    attachedInstancesCount: 0,
    containersCount: app.containerTemplates.filter((t) => t.volumeMounts.some((m) => m.name === volume.name))
      .length,
    volumeInstances: [],
  }));
  return {
    status: 200,
    body: {
      items,
      meta: { totalItems: items.length },
      cursor: null,
      summary: {
        totalPods: 0,
        totalContainers: app.containerTemplates.length,
        totalStorage: app.volumes.reduce((sum, v) => sum + v.size, 0),
      },
    },
  };
}

/** `PUT .../containers/{containerId}/env`: the body replaces every variable of the container. */
function setContainerEnv(ctx: RequestContext): Reply {
  const checked = check(ContainerEnvRequest, ctx.body, ctx.strict);
  if (!checked.ok) return ctx.fail('invalid', validationFailure(checked.errors));
  const app = appOr404(ctx);
  if (!isApp(app)) return app;
  const containerId = ctx.params[1] as string;
  const template = app.containerTemplates.find((t) => t.id === containerId);
  if (template === undefined) {
    return ctx.fail('notFound', {
      status: 404,
      detail: `Container template '${containerId}' was not found in application '${app.id}'.`,
    });
  }
  template.environmentVariables = Object.entries(checked.value).map(([name, value]) => ({ name, value }));
  return { status: 200, body: template };
}

/** The companion /mc routes. */
export const MC_COMPANION_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    pattern: '/mc/apps',
    operation: 'listApps',
    profile: MC_PROFILE,
    body: 'none',
    handle: listApps,
  },
  {
    method: 'GET',
    pattern: '/mc/apps/:appId/overview',
    operation: 'getAppOverview',
    profile: MC_GET_PROFILE,
    body: 'none',
    appIdParam: 0,
    handle: getAppOverview,
  },
  {
    method: 'GET',
    pattern: '/mc/regions',
    operation: 'listRegions',
    profile: MC_PROFILE,
    body: 'none',
    handle: listRegions,
  },
  {
    method: 'GET',
    pattern: '/mc/apps/:appId/region-settings',
    operation: 'getRegionSettings',
    profile: MC_GET_PROFILE,
    body: 'none',
    appIdParam: 0,
    handle: getRegionSettings,
  },
  {
    method: 'GET',
    pattern: '/mc/apps/:appId/volumes',
    operation: 'listVolumes',
    profile: MC_GET_PROFILE,
    body: 'none',
    appIdParam: 0,
    handle: listVolumes,
  },
  {
    method: 'PUT',
    pattern: '/mc/apps/:appId/containers/:containerId/env',
    operation: 'setContainerEnv',
    profile: MC_GET_PROFILE,
    body: 'required',
    appIdParam: 0,
    handle: setContainerEnv,
  },
];
