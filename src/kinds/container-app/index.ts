/**
 * `ContainerApp`: one `GET /mc/apps/{appId}` per app, its `valueFrom` secrets read beside it,
 * E7 once per reconcile when some app uses `@optimal`, and E4 merge-patch (see plan.ts for
 * the array rules).
 */

import type { LiveRead, ReadContext, ResourceKind } from '../common/kind.js';
import { readEach } from '../common/read.js';
import type { DesiredResource } from '../types.js';
import { normalizeApp } from './convert.js';
import { readAppSecrets } from './env.js';
import { type AppRead, planApp } from './plan.js';
import { type ContainerAppSpec, containerAppSpec, holdsSensitiveValues, usesOptimalRegion } from './spec.js';

function readApps(
  resources: readonly DesiredResource<ContainerAppSpec>[],
  ctx: ReadContext,
): Promise<Map<string, LiveRead<AppRead>>> {
  return readEach(resources, async (resource) => {
    const [wire, secrets] = await Promise.all([
      ctx.limit(() => ctx.api.getApp(resource.spec.appId, { signal: ctx.signal })),
      readAppSecrets(resource.spec, ctx),
    ]);
    return { app: normalizeApp(wire), secrets };
  });
}

export const containerAppKind: ResourceKind<ContainerAppSpec, AppRead> = {
  kind: 'ContainerApp',
  spec: containerAppSpec as ResourceKind<ContainerAppSpec>['spec'],
  readLive: readApps,
  holdsSensitiveValues,
  needsOptimalRegion: usesOptimalRegion,
  plan: planApp,
};
