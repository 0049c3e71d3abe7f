/**
 * The lifecycle of container apps (see docs/reconcile.md, Container apps): the scope is the
 * whole account, listed with `GET /mc/apps`; the natural key is the app's `name`. A created app
 * is deployed after (`POST /mc/apps/{id}/deploy`) unless its document says `deploy: false`.
 * Deleting an app destroys its volumes, so every app deletion needs `--force`, and the plan
 * names the volumes lost.
 */
import { writeRequests } from '../../api/operations.js';
import type { AppListItemWire } from '../../api/wire/mc.js';
import type { KindLifecycle, ReadContext } from '../common/kind.js';
import type { ContainerAppSpec } from './spec.js';

/** A created app is deployed unless its document says `deploy: false`. */
export function deploysAfterCreate(spec: ContainerAppSpec): boolean {
  return spec.deploy !== false;
}

/** How messages name the apps' scope. */
export const ACCOUNT = 'the account';

/** Every app of the account: one paged listing per run, shared by the reads and the prune step. */
export function readAccountApps(ctx: ReadContext): Promise<AppListItemWire[]> {
  return ctx.once('apps', () => ctx.limit(() => ctx.api.listApps({ signal: ctx.signal })));
}

export const appLifecycle: KindLifecycle<ContainerAppSpec> = {
  kind: 'ContainerApp',
  nouns: 'container apps',
  keyPath: 'name',
  locate: (spec) => ({ id: spec.appId, key: spec.name, readsDirectly: true }),
  scopeName: () => ACCOUNT,
  async list(_scope, ctx) {
    const apps = await readAccountApps(ctx);
    return { items: apps.map((app) => ({ id: app.id, key: app.name })) };
  },
  async readLosses(id, ctx) {
    const app = await ctx.limit(() => ctx.api.getApp(String(id), { signal: ctx.signal }));
    return (app.volumes ?? []).map((volume) => `${volume.name} (${volume.size} GB)`);
  },
  createOperation: 'createApp',
  afterCreate: (id) => [writeRequests.deployApp(String(id))],
  afterCreateOwed: { wanted: deploysAfterCreate, words: 'deploy' },
  deleteRequest: (_scope, id) => writeRequests.deleteApp(String(id)),
  deleteDiffs: (app) =>
    (app.loses ?? []).map((volume) => ({
      path: 'volumes',
      live: volume,
      desired: undefined,
      destructive: true,
    })),
  deletionGuard: ({ deleting }) => {
    const lost = deleting.flatMap((app) => app.loses ?? []);
    const volumes = lost.length === 0 ? 'and its volumes' : `and its volumes: ${lost.join(', ')}`;
    return `deleting ${deleting.map((app) => JSON.stringify(app.key)).join(', ')} destroys the app ${volumes}; re-run with --force if this is intended`;
  },
};
