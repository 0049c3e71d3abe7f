/**
 * The container registries of Magic Containers (`/mc/registries`), as the official bunny CLI's
 * `registries list|add|remove` and `apps deploy` call them: the listing, one registry, adding
 * one with credentials (`ContainerRegistryRequest` → `SaveContainerRegistryResult`), and
 * removing one (`RemoveContainerRegistryResult`: `removed`, `inUse` with the apps that use it,
 * `notFound`). The platform's public registries (Docker Hub, GitHub) are not the user's to
 * remove: `notFound`. Of a password only its first and last two characters are kept.
 */
import { z } from 'zod';
import type { RegistryRecord } from '../records.js';
import type { Reply } from '../replies.js';
import { MC_GET_PROFILE, MC_PROFILE } from '../replies.js';
import { check } from '../validation/issues.js';
import type { RequestContext, Route } from './types.js';
import { validationFailure } from './types.js';

/** `RegistryType` → the host a registry of that type pulls from. */
const HOSTS: Readonly<Record<string, string>> = {
  dockerhub: 'docker.io',
  github: 'ghcr.io',
  bunnyregistry: 'registry.bunny.net',
};

const ContainerRegistryRequest = z.strictObject({
  displayName: z.string().min(1, 'The displayName field is required.').max(50),
  type: z
    .string()
    .refine((type) => HOSTS[type.toLowerCase()] !== undefined, 'The type field is not a RegistryType.')
    .optional(),
  passwordCredentials: z
    .strictObject({ userName: z.string().min(1), password: z.string().min(1) })
    .optional(),
});

const CREATED_AT = '2026-01-01T00:00:00Z';

/** `ContainerRegistry`: a platform registry is public and platform-managed; the user's own are not. */
function registryView(r: RegistryRecord): Record<string, unknown> {
  const own = r.userName !== undefined;
  return {
    id: r.id,
    displayName: r.displayName,
    hostName: r.hostName,
    namespaceId: '',
    userName: r.userName ?? null,
    ...(r.passwordHint === undefined
      ? {}
      : { firstPasswordSymbols: r.passwordHint.first, lastPasswordSymbols: r.passwordHint.last }),
    createdAt: r.createdAt ?? CREATED_AT,
    isPublic: !own,
    isPlatformManaged: !own,
  };
}

function registryIdOf(ctx: RequestContext): number | undefined {
  const raw = ctx.params[0] as string;
  return /^\d+$/.test(raw) ? Number(raw) : undefined;
}

function listRegistries(ctx: RequestContext): Reply {
  const items = ctx.state.registries.map(registryView);
  return { status: 200, body: { items, meta: { totalItems: items.length }, cursor: null } };
}

function getRegistry(ctx: RequestContext): Reply {
  const id = registryIdOf(ctx);
  const registry = ctx.state.registries.find((r) => r.id === id);
  if (registry === undefined) {
    return ctx.fail('notFound', {
      status: 404,
      detail: `Container registry '${ctx.params[0]}' was not found.`,
    });
  }
  return { status: 200, body: registryView(registry) };
}

function addRegistry(ctx: RequestContext): Reply {
  const checked = check(ContainerRegistryRequest, ctx.body, ctx.strict);
  if (!checked.ok) return ctx.fail('invalid', validationFailure(checked.errors));
  const body = checked.value;
  const id = Math.max(0, ...ctx.state.registries.map((r) => r.id)) + 1;
  const password = body.passwordCredentials?.password ?? '';
  ctx.state.registries.push({
    id,
    displayName: body.displayName,
    hostName: HOSTS[(body.type ?? 'dockerHub').toLowerCase()] ?? 'docker.io',
    userName: body.passwordCredentials?.userName ?? '',
    passwordHint: { first: password.slice(0, 2), last: password.slice(-2) },
    createdAt: new Date().toISOString(),
  });
  return { status: 200, body: { id, error: null, status: 'saved' } };
}

function removeRegistry(ctx: RequestContext): Reply {
  const id = registryIdOf(ctx);
  const registry = ctx.state.registries.find((r) => r.id === id && r.userName !== undefined);
  if (registry === undefined) return { status: 200, body: { status: 'notFound', applications: [] } };
  const users = ctx.state
    .apps()
    .filter((app) => app.containerTemplates.some((t) => t.imageRegistryId === String(registry.id)))
    .map((app) => app.name);
  if (users.length > 0) return { status: 200, body: { status: 'inUse', applications: users } };
  ctx.state.registries = ctx.state.registries.filter((r) => r !== registry);
  return { status: 200, body: { status: 'removed', applications: [] } };
}

/** The /mc/registries routes. */
export const MC_REGISTRY_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    pattern: '/mc/registries',
    operation: 'listRegistries',
    profile: MC_PROFILE,
    body: 'none',
    handle: listRegistries,
  },
  {
    method: 'POST',
    pattern: '/mc/registries',
    operation: 'addRegistry',
    profile: MC_PROFILE,
    body: 'required',
    handle: addRegistry,
  },
  {
    method: 'GET',
    pattern: '/mc/registries/:registryId',
    operation: 'getRegistry',
    // Its 404 is ErrorDetails in the spec, as the app GET's is.
    profile: MC_GET_PROFILE,
    body: 'none',
    handle: getRegistry,
  },
  {
    method: 'DELETE',
    pattern: '/mc/registries/:registryId',
    operation: 'removeRegistry',
    profile: MC_PROFILE,
    body: 'none',
    handle: removeRegistry,
  },
];
