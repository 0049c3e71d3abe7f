/**
 * `ContainerApp`: one `GET /mc/apps/{appId}` per app, E7 once per reconcile when some app
 * uses `@optimal`, and E4 merge-patch (see plan.ts for the array rules).
 */

import type { LiveRead, ReadContext, ResourceKind } from '../common/kind.js';
import { readEach } from '../common/read.js';
import type { DesiredResource } from '../types.js';
import { type LiveApp, normalizeApp } from './convert.js';
import { planApp } from './plan.js';
import { type ContainerAppSpec, containerAppSpec } from './spec.js';

function readApps(
  resources: readonly DesiredResource<ContainerAppSpec>[],
  ctx: ReadContext,
): Promise<Map<string, LiveRead<LiveApp>>> {
  return readEach(resources, async (resource) =>
    normalizeApp(await ctx.limit(() => ctx.api.getApp(resource.spec.appId, { signal: ctx.signal }))),
  );
}

export const containerAppKind: ResourceKind<ContainerAppSpec, LiveApp> = {
  kind: 'ContainerApp',
  spec: containerAppSpec as ResourceKind<ContainerAppSpec>['spec'],
  readLive: readApps,
  plan: planApp,
};
