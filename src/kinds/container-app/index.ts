/**
 * `ContainerApp`: one `GET /mc/apps/{appId}` per app, E7 once per reconcile when some app
 * uses `@optimal`, and E4 merge-patch (see plan.ts for the array rules).
 */
import type { DesiredResource } from '../../config/types.js';
import type { LiveRead, ReadContext, ResourceKind } from '../common/kind.js';
import { readFailure } from '../common/read.js';
import { type LiveApp, normalizeApp } from './convert.js';
import { planApp } from './plan.js';
import { type ContainerAppSpec, containerAppSpec } from './spec.js';

async function readApps(
  resources: readonly DesiredResource<ContainerAppSpec>[],
  ctx: ReadContext,
): Promise<Map<string, LiveRead<LiveApp>>> {
  const entries = await Promise.all(
    resources.map(async (resource): Promise<[string, LiveRead<LiveApp>]> => {
      try {
        const wire = await ctx.limit(() => ctx.api.getApp(resource.spec.appId, { signal: ctx.signal }));
        return [resource.subject, { lookup: { status: 'found', live: normalizeApp(wire) } }];
      } catch (err) {
        return [resource.subject, readFailure(resource, err)];
      }
    }),
  );
  return new Map(entries);
}

export const containerAppKind: ResourceKind<ContainerAppSpec, LiveApp> = {
  kind: 'ContainerApp',
  spec: containerAppSpec as ResourceKind<ContainerAppSpec>['spec'],
  readLive: readApps,
  plan: planApp,
};
