/**
 * Routes under /mc (Magic Containers): E4, E7 and the app GET. The real spec writes these
 * paths without the /mc prefix and puts it in the server URL (docs/api-notes.md, Base URLs and authentication); the emulator
 * serves the full paths the seed uses.
 */
import { patchApp } from '../app-patch.js';
import type { Reply } from '../replies.js';
import { MC_GET_PROFILE, MC_PROFILE } from '../replies.js';
import { PatchApplicationRequest } from '../validation/app.js';
import { check } from '../validation/issues.js';
import type { RequestContext, Route } from './types.js';
import { validationFailure } from './types.js';

function appNotFound(ctx: RequestContext, appId: string): Reply {
  return ctx.fail('notFound', { status: 404, detail: `Application '${appId}' was not found.` });
}

function patchAppRoute(ctx: RequestContext): Reply {
  const appId = ctx.params[0] as string;
  const checked = check(PatchApplicationRequest, ctx.body, ctx.strict);
  if (!checked.ok) return ctx.fail('invalid', validationFailure(checked.errors));
  const live = ctx.state.app(appId);
  if (live === undefined) return appNotFound(ctx, appId);
  const outcome = patchApp(live, ctx.state.nodeSelectors(appId) ?? {}, checked.value, ctx.state);
  if (!outcome.ok) return ctx.fail('invalid', validationFailure(outcome.errors));
  ctx.state.setApp(outcome.app, outcome.nodeSelectors);
  ctx.state.startRollout(appId);
  return { status: 200, body: { id: appId } };
}

function getApp(ctx: RequestContext): Reply {
  const appId = ctx.params[0] as string;
  const app = ctx.state.app(appId);
  if (app === undefined) return appNotFound(ctx, appId);
  return { status: 200, body: app };
}

function getOptimalRegion(ctx: RequestContext): Reply {
  // The optional `cdnServerToken` query parameter of the real API is accepted and ignored.
  return { status: 200, body: { region: ctx.state.optimalRegion } };
}

/** Every /mc route. */
export const MC_ROUTES: readonly Route[] = [
  {
    method: 'PATCH',
    pattern: '/mc/apps/:appId',
    operation: 'patchApp',
    profile: MC_PROFILE,
    body: 'required',
    appIdParam: 0,
    handle: patchAppRoute,
  },
  {
    method: 'GET',
    pattern: '/mc/apps/:appId',
    operation: 'getApp',
    profile: MC_GET_PROFILE,
    body: 'none',
    appIdParam: 0,
    handle: getApp,
  },
  {
    method: 'GET',
    pattern: '/mc/regions/optimal',
    operation: 'getOptimalRegion',
    profile: MC_PROFILE,
    body: 'none',
    handle: getOptimalRegion,
  },
];
