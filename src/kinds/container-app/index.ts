/**
 * `ContainerApp`: one `GET /mc/apps/{appId}` per app, its `valueFrom` secrets read beside it,
 * E7 once per reconcile when some app uses `@optimal`, and E4 merge-patch (see plan.ts for
 * the array rules). A document without `appId` finds its app by inventory, then by name in
 * the account's listing (one `GET /mc/apps`, paged, per run), or creates it (lifecycle.ts).
 */

import { looksSecret } from '../../domain/secret-sources.js';
import { SENSITIVE } from '../../domain/sensitive.js';
import { keyedObjects, resolveIdentity } from '../common/identity.js';
import type { LiveRead, ReadContext, ResourceKind } from '../common/kind.js';
import { identified, notFound, readFailure } from '../common/read.js';
import type { DesiredResource } from '../types.js';
import { normalizeApp } from './convert.js';
import { readAppSecrets } from './env.js';
import { ACCOUNT, appLifecycle, readAccountApps } from './lifecycle.js';
import { type AppRead, planApp } from './plan.js';
import { appRollout } from './rollout.js';
import {
  type ContainerAppSpec,
  containerAppSpec,
  holdsSensitiveValues,
  isSensitiveVariable,
  usesOptimalRegion,
} from './spec.js';

async function readApp(
  resource: DesiredResource<ContainerAppSpec>,
  ctx: ReadContext,
): Promise<LiveRead<AppRead>> {
  const spec = resource.spec;
  const secrets = readAppSecrets(spec, ctx);
  const key = spec.name;
  if (spec.appId === undefined) {
    const live = await ctx.once('apps:keyed', async () =>
      keyedObjects((await readAccountApps(ctx)).map((app) => ({ id: app.id, key: app.name }))),
    );
    const resolution = resolveIdentity({
      kind: 'ContainerApp',
      specId: undefined,
      key,
      owned: ctx.owned(resource.subject),
      live,
      noun: 'app',
      scopeName: ACCOUNT,
    });
    if (resolution.via === 'missing') return notFound(resource, resolution.message);
    if (resolution.via === 'create') {
      return identified(
        { app: null, secrets: await secrets },
        { kind: 'ContainerApp', via: 'create', key: key ?? '' },
      );
    }
    const [wire, read] = await Promise.all([getApp(resolution.id, ctx), secrets]);
    const app = normalizeApp(wire);
    return identified(
      { app, secrets: read },
      { kind: 'ContainerApp', via: resolution.via, id: app.id, key: key ?? app.name },
    );
  }
  const [wire, read] = await Promise.all([getApp(spec.appId, ctx), secrets]);
  const app = normalizeApp(wire);
  return identified(
    { app, secrets: read },
    { kind: 'ContainerApp', via: 'id', id: app.id, key: key ?? app.name },
  );
}

function getApp(appId: string, ctx: ReadContext) {
  return ctx.limit(() => ctx.api.getApp(appId, { signal: ctx.signal }));
}

async function readApps(
  resources: readonly DesiredResource<ContainerAppSpec>[],
  ctx: ReadContext,
): Promise<Map<string, LiveRead<AppRead>>> {
  const entries = await Promise.all(
    resources.map(async (resource): Promise<[string, LiveRead<AppRead>]> => {
      try {
        return [resource.subject, await readApp(resource, ctx)];
      } catch (err) {
        return [resource.subject, readFailure(resource, err)];
      }
    }),
  );
  return new Map(entries);
}

/**
 * The app as read, with every variable value that may be a secret replaced by `(sensitive)`:
 * those the YAML marks sensitive or reads from `valueFrom`, and those whose name looks secret.
 * The secrets read beside the app are not live state and are left out.
 */
function liveDigestView(read: AppRead, desired: DesiredResource<ContainerAppSpec>): unknown {
  if (read.app === null) return null;
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
  lifecycle: appLifecycle,
  rollout: appRollout,
  planSection: { title: 'Container app', perResource: true },
  checkReply(request, reply) {
    // The new app's id: the inventory records it, and the deploy goes to it.
    if (request.operation === 'createApp') return { id: (reply as { id: string }).id };
    return undefined;
  },
  needsOptimalRegion: usesOptimalRegion,
  plan: planApp,
};
