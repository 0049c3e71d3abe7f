/**
 * `ContainerApp`: one `GET /mc/apps/{appId}` per app, its `valueFrom` secrets read beside it,
 * E7 once per reconcile when some app uses `@optimal`, and E4 merge-patch (see plan.ts for
 * the array rules).
 */

import { looksSecret } from '../../domain/secret-sources.js';
import { SENSITIVE } from '../../domain/sensitive.js';
import type { LiveRead, ReadContext, ResourceKind } from '../common/kind.js';
import { readEach } from '../common/read.js';
import type { DesiredResource } from '../types.js';
import { normalizeApp } from './convert.js';
import { readAppSecrets } from './env.js';
import { type AppRead, planApp } from './plan.js';
import {
  type ContainerAppSpec,
  containerAppSpec,
  holdsSensitiveValues,
  isSensitiveVariable,
  usesOptimalRegion,
} from './spec.js';

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

/**
 * The app as read, with every variable value that may be a secret replaced by `(sensitive)`:
 * those the YAML marks sensitive or reads from `valueFrom`, and those whose name looks secret.
 * The secrets read beside the app are not live state and are left out.
 */
function liveDigestView(read: AppRead, desired: DesiredResource<ContainerAppSpec>): unknown {
  const hidden = new Set<string>();
  for (const container of desired.spec.containerTemplates ?? []) {
    for (const v of container.environmentVariables ?? []) {
      if (isSensitiveVariable(v)) hidden.add(`${container.name}\0${v.name}`);
    }
  }
  return {
    ...read.app,
    containers: read.app.containers.map((c) => ({
      ...c,
      request: {
        ...c.request,
        environmentVariables: c.request.environmentVariables?.map((v) => ({
          name: v.name,
          value: hidden.has(`${c.request.name}\0${v.name}`) || looksSecret(v.name) ? SENSITIVE : v.value,
        })),
      },
    })),
  };
}

export const containerAppKind: ResourceKind<ContainerAppSpec, AppRead> = {
  kind: 'ContainerApp',
  spec: containerAppSpec as ResourceKind<ContainerAppSpec>['spec'],
  readLive: readApps,
  holdsSensitiveValues,
  liveDigestView,
  needsOptimalRegion: usesOptimalRegion,
  plan: planApp,
};
