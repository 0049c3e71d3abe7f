/**
 * The Magic Containers routes that create, delete and run apps: `POST /mc/apps`
 * (AddApplicationRequest), `DELETE /mc/apps/{id}`, deploy / undeploy / restart, endpoint add
 * and remove, volume remove, and one container's GET and PATCH. A deploy starts the rollout
 * simulation (store.ts, `startRollout`); every other change does so for an app that runs. Shapes from the MC OpenAPI file; what the official
 * bunny CLI sends is accepted as the real API accepts it (a Docker Hub library image has
 * `imageNamespace: ""`).
 */
import { z } from 'zod';
import { buildEndpoint, createApp, patchContainer } from '../app-patch.js';
import type { Reply } from '../replies.js';
import { MC_GET_PROFILE, MC_PROFILE } from '../replies.js';
import {
  AppName,
  AutoScalingRequest,
  ContainerRequest,
  EndpointRequest,
  PatchContainerRequest,
  RegionSettingsRequest,
  VolumeRequest,
} from '../validation/app.js';
import { check } from '../validation/issues.js';
import type { Application } from '../wire.js';
import type { RequestContext, Route } from './types.js';
import { appOr404, isApp, validationFailure } from './types.js';

/** `AddApplicationRequest`: name, runtimeType, autoScaling and regionSettings are required. */
const AddApplicationRequest = z.strictObject({
  name: AppName,
  runtimeType: z.string().min(1),
  terminationGracePeriodSeconds: z.number().int().min(1).max(300).optional(),
  autoScaling: AutoScalingRequest,
  regionSettings: RegionSettingsRequest,
  containerTemplates: z.array(ContainerRequest).min(1),
  volumes: z.array(VolumeRequest).optional(),
});

function addApp(ctx: RequestContext): Reply {
  const checked = check(AddApplicationRequest, ctx.body, ctx.strict);
  if (!checked.ok) return ctx.fail('invalid', validationFailure(checked.errors));
  const body = checked.value;
  const outcome = createApp(
    {
      id: ctx.state.nextId('app'),
      name: body.name,
      status: 'inactive',
      runtimeType: body.runtimeType,
      autoScaling: body.autoScaling,
      regionSettings: body.regionSettings,
      containerTemplates: body.containerTemplates.map((t) => ({ ...t, id: undefined })),
      ...(body.volumes === undefined ? {} : { volumes: body.volumes }),
    },
    ctx.state,
  );
  if (!outcome.ok) return ctx.fail('invalid', validationFailure(outcome.errors));
  ctx.state.setApp(outcome.app, outcome.nodeSelectors);
  // A new app is not running until it is deployed.
  return { status: 201, body: { id: outcome.app.id } };
}

function deleteApp(ctx: RequestContext): Reply {
  const app = appOr404(ctx);
  if (!isApp(app)) return app;
  ctx.state.deleteApp(app.id);
  return { status: 200 };
}

/** deploy and restart roll the app out again; undeploy stops it. */
function lifecycleAction(action: 'deploy' | 'undeploy' | 'restart') {
  return (ctx: RequestContext): Reply => {
    const app = appOr404(ctx);
    if (!isApp(app)) return app;
    if (action === 'undeploy') ctx.state.stopApp(app.id);
    // A restart rolls out an app that runs; an undeployed one stays undeployed.
    else ctx.state.startRollout(app.id, action === 'deploy' ? 'deploy' : 'change');
    return { status: 200 };
  };
}

/** `POST .../containers/{containerId}/endpoints`: one more endpoint on that container. */
function addEndpoint(ctx: RequestContext): Reply {
  const checked = check(EndpointRequest, ctx.body, ctx.strict);
  if (!checked.ok) return ctx.fail('invalid', validationFailure(checked.errors));
  const app = appOr404(ctx);
  if (!isApp(app)) return app;
  const containerId = ctx.params[1] as string;
  const index = app.containerTemplates.findIndex((t) => t.id === containerId);
  if (index === -1) {
    return ctx.fail('notFound', {
      status: 404,
      detail: `Container template '${containerId}' was not found in application '${app.id}'.`,
    });
  }
  const template = app.containerTemplates[index] as Application['containerTemplates'][number];
  const taken = app.containerTemplates.some((t) =>
    t.endpoints.some((e) => e.displayName === checked.value.displayName),
  );
  if (taken) {
    return ctx.fail(
      'invalid',
      validationFailure([
        { field: 'displayName', message: `An endpoint named '${checked.value.displayName}' already exists.` },
      ]),
    );
  }
  const region = app.regionSettings.requiredRegionIds[0] ?? app.regionSettings.allowedRegionIds[0] ?? 'DE';
  const endpoint = buildEndpoint(checked.value, undefined, ctx.state, region);
  template.endpoints.push(endpoint);
  ctx.state.startRollout(app.id);
  return { status: 201, body: { id: endpoint.id } };
}

/** `DELETE .../endpoints/{endpointId}`: by id, or by display name (the spec's example is both). */
function removeEndpoint(ctx: RequestContext): Reply {
  const app = appOr404(ctx);
  if (!isApp(app)) return app;
  const endpointId = ctx.params[1] as string;
  const owner = app.containerTemplates.find((t) =>
    t.endpoints.some((e) => e.id === endpointId || e.displayName === endpointId),
  );
  if (owner === undefined) {
    return ctx.fail('notFound', {
      status: 404,
      detail: `Endpoint '${endpointId}' was not found in application '${app.id}'.`,
    });
  }
  owner.endpoints = owner.endpoints.filter((e) => e.id !== endpointId && e.displayName !== endpointId);
  ctx.state.startRollout(app.id);
  return { status: 200 };
}

/** `DELETE .../volumes/{volumeId}`: the volume (by id or name) and its mounts go. */
function removeVolume(ctx: RequestContext): Reply {
  const app = appOr404(ctx);
  if (!isApp(app)) return app;
  const volumeId = ctx.params[1] as string;
  const ids = ctx.state.volumeIds(app.id);
  const name = app.volumes.find((v) => v.name === volumeId || ids.get(v.name) === volumeId)?.name;
  if (name === undefined) {
    return ctx.fail('notFound', {
      status: 404,
      detail: `Volume '${volumeId}' was not found in application '${app.id}'.`,
    });
  }
  app.volumes = app.volumes.filter((v) => v.name !== name);
  for (const t of app.containerTemplates) t.volumeMounts = t.volumeMounts.filter((m) => m.name !== name);
  return { status: 200, body: { ids: [ids.get(name) as string] } };
}

function containerNotFound(ctx: RequestContext, app: Application): Reply {
  return ctx.fail('notFound', {
    status: 404,
    detail: `Container template '${ctx.params[1]}' was not found in application '${app.id}'.`,
  });
}

/** `GET .../containers/{containerId}`: one container template. */
function getContainer(ctx: RequestContext): Reply {
  const app = appOr404(ctx);
  if (!isApp(app)) return app;
  const template = app.containerTemplates.find((t) => t.id === ctx.params[1]);
  return template === undefined ? containerNotFound(ctx, app) : { status: 200, body: template };
}

/** `PATCH .../containers/{containerId}` (PatchContainerRequest): the given fields, then a rollout. */
function patchContainerRoute(ctx: RequestContext): Reply {
  const checked = check(PatchContainerRequest, ctx.body, ctx.strict);
  if (!checked.ok) return ctx.fail('invalid', validationFailure(checked.errors));
  const app = appOr404(ctx);
  if (!isApp(app)) return app;
  const containerId = ctx.params[1] as string;
  if (!app.containerTemplates.some((t) => t.id === containerId)) return containerNotFound(ctx, app);
  const outcome = patchContainer(app, containerId, checked.value, ctx.state);
  if (!outcome.ok) return ctx.fail('invalid', validationFailure(outcome.errors));
  ctx.state.setApp(outcome.app, ctx.state.nodeSelectors(app.id) ?? {});
  ctx.state.startRollout(app.id);
  return { status: 200, body: outcome.template };
}

/** The /mc routes of the app lifecycle. */
export const MC_LIFECYCLE_ROUTES: readonly Route[] = [
  {
    method: 'POST',
    pattern: '/mc/apps',
    operation: 'createApp',
    profile: MC_PROFILE,
    body: 'required',
    handle: addApp,
  },
  {
    method: 'DELETE',
    pattern: '/mc/apps/:appId',
    operation: 'deleteApp',
    profile: MC_PROFILE,
    body: 'none',
    appIdParam: 0,
    handle: deleteApp,
  },
  ...(['deploy', 'undeploy', 'restart'] as const).map(
    (action): Route => ({
      method: 'POST',
      pattern: `/mc/apps/:appId/${action}`,
      operation: `${action}App`,
      profile: MC_GET_PROFILE,
      body: 'none',
      appIdParam: 0,
      handle: lifecycleAction(action),
    }),
  ),
  {
    method: 'POST',
    pattern: '/mc/apps/:appId/containers/:containerId/endpoints',
    operation: 'addEndpoint',
    profile: MC_GET_PROFILE,
    body: 'required',
    appIdParam: 0,
    handle: addEndpoint,
  },
  {
    method: 'DELETE',
    pattern: '/mc/apps/:appId/endpoints/:endpointId',
    operation: 'removeEndpoint',
    profile: MC_GET_PROFILE,
    body: 'none',
    appIdParam: 0,
    handle: removeEndpoint,
  },
  {
    method: 'DELETE',
    pattern: '/mc/apps/:appId/volumes/:volumeId',
    operation: 'removeVolume',
    profile: MC_GET_PROFILE,
    body: 'none',
    appIdParam: 0,
    handle: removeVolume,
  },
  {
    method: 'GET',
    pattern: '/mc/apps/:appId/containers/:containerId',
    operation: 'getContainer',
    profile: MC_GET_PROFILE,
    body: 'none',
    appIdParam: 0,
    handle: getContainer,
  },
  {
    method: 'PATCH',
    pattern: '/mc/apps/:appId/containers/:containerId',
    operation: 'patchContainer',
    profile: MC_GET_PROFILE,
    body: 'required',
    appIdParam: 0,
    handle: patchContainerRoute,
  },
];
