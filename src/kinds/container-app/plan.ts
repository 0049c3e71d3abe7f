/**
 * Plan for a ContainerApp: E4 merge-patch with only the top-level fields that differ.
 *
 * The API replaces containerTemplates, volumes and endpoints: an item without an id is created
 * and a live item left out is deleted. So when one of these arrays must change it is sent
 * whole (requests.ts), and a live item the YAML no longer lists is a deletion, refused unless
 * allowDeletions. What differs is diff.ts's business; environment variables and their
 * secrets are env.ts's.
 */
import { writeRequests } from '../../api/operations.js';
import type { PatchAppRequest } from '../../api/wire/mc.js';
import { diffDeclared } from '../common/diff.js';
import type { KindPlan, PlanContext } from '../common/kind.js';
import type { DesiredResource, FieldDiff, PlanError } from '../types.js';
import type { LiveApp } from './convert.js';
import { diffContainers, diffRegionSettings, diffVolumes, type ResolvedRegions } from './diff.js';
import {
  type AppSecrets,
  appliedKinds,
  type DesiredVariable,
  desiredVariables,
  REMEMBERED_APP_ID,
  REMEMBERED_ENVIRONMENT,
  rememberedKinds,
  sensitiveMaterial,
  type VariableKinds,
} from './env.js';
import { deploysAfterCreate } from './lifecycle.js';
import { containerRequest, regionSettingsRequest } from './requests.js';
import {
  type ContainerAppSpec,
  type ContainerSpec,
  holdsSensitiveValues,
  OPTIMAL_REGION,
  usesOptimalRegion,
} from './spec.js';

const NEW_CONTAINER_REQUIRED = ['imageRegistryId', 'imageNamespace', 'imageName', 'imageTag'] as const;

/**
 * What the read phase gives the plan: the live app (null: none has the document's name, it is
 * created) and the app's secrets, read at the same time.
 */
export interface AppRead {
  readonly app: LiveApp | null;
  readonly secrets: AppSecrets;
}

/** What a created app holds before its request is applied: nothing, so every declared field is new. */
const NEW_APP: LiveApp = {
  id: '',
  name: '',
  runtimeType: null,
  autoScaling: null,
  regionSettings: { allowedRegionIds: [], requiredRegionIds: [], maxAllowedRegions: null },
  containers: [],
  volumes: [],
};

/**
 * A new app: the E4 plan against an empty app gives the diffs and the body, which becomes the
 * AddApplicationRequest (`POST /mc/apps`), with the API's required fields filled where the
 * document leaves them out (runtime shared, one instance). Deployed after unless `deploy: false`.
 */
function planCreate(
  desired: DesiredResource<ContainerAppSpec>,
  secrets: AppSecrets,
  ctx: PlanContext,
): KindPlan {
  const patch = planApp(desired, { app: NEW_APP, secrets }, ctx);
  const spec = desired.spec;
  if (patch.error !== undefined) return patch;
  const body = (patch.requests[0]?.body ?? {}) as PatchAppRequest;
  const missing = [
    body.containerTemplates === undefined ? 'containerTemplates' : '',
    body.regionSettings === undefined ? 'regionSettings' : '',
  ].filter((field) => field !== '');
  if (missing.length > 0) {
    return {
      diffs: patch.diffs,
      requests: [],
      error: {
        code: 'PLAN_UNSAFE',
        message: `no app is named ${JSON.stringify(spec.name)}, and creating one needs ${missing.join(' and ')}`,
      },
      ...(patch.digest === undefined ? {} : { digest: patch.digest }),
    };
  }
  const request = writeRequests.createApp({
    ...body,
    name: spec.name ?? '',
    runtimeType: body.runtimeType ?? 'shared',
    autoScaling: body.autoScaling ?? { min: 1, max: 1 },
    regionSettings: body.regionSettings ?? {},
  });
  return { ...patch, requests: [request], afterCreate: deploysAfterCreate(spec) };
}

/** Replaces `@optimal` with E7's region id, keeping order and dropping a resulting duplicate. */
function resolveOptimal(
  ids: readonly string[] | undefined,
  optimal: string | undefined,
): string[] | undefined {
  if (ids === undefined) return undefined;
  const resolved = ids.map((id) => (id === OPTIMAL_REGION && optimal !== undefined ? optimal : id));
  return [...new Set(resolved)];
}

function planRegionSettings(
  spec: ContainerAppSpec,
  live: LiveApp,
  optimal: string | undefined,
  remembered: Readonly<Record<string, unknown>> | undefined,
  diffs: FieldDiff[],
): PatchAppRequest['regionSettings'] | undefined {
  const d = spec.regionSettings;
  if (d === undefined) return undefined;
  const regions: ResolvedRegions = {
    allowed: resolveOptimal(d.allowedRegionIds, optimal),
    required: resolveOptimal(d.requiredRegionIds, optimal),
  };
  const before = diffs.length;
  diffRegionSettings(d, live, regions, remembered, diffs);
  return diffs.length === before ? undefined : regionSettingsRequest(d, live, regions);
}

function planContainers(
  spec: ContainerAppSpec,
  live: LiveApp,
  secrets: AppSecrets,
  remembered: Readonly<Record<string, unknown>> | undefined,
  diffs: FieldDiff[],
  problems: string[],
): PatchAppRequest['containerTemplates'] | undefined {
  const desired = spec.containerTemplates;
  if (desired === undefined) return undefined;
  const variables = new Map<ContainerSpec, DesiredVariable[] | undefined>(
    desired.map((c) => [c, desiredVariables(c, secrets)]),
  );
  const before = diffs.length;
  diffContainers(
    desired,
    live,
    (c) => variables.get(c),
    (name) => rememberedKinds(remembered, name),
    diffs,
  );
  if (diffs.length === before) return undefined;
  const liveByName = new Map(live.containers.map((c) => [c.request.name, c]));
  for (const d of desired) {
    const l = liveByName.get(d.name);
    if (l === undefined) {
      const missing = NEW_CONTAINER_REQUIRED.filter((field) => d[field] === undefined);
      if (missing.length > 0) problems.push(`new container ${d.name} needs ${missing.join(', ')}`);
    } else if (l.inexpressibleEndpoints.length > 0 && d.endpoints === undefined) {
      problems.push(
        `container ${d.name} has endpoints the PATCH request cannot express (${l.inexpressibleEndpoints.join(', ')}); ` +
          'list its endpoints in the YAML to replace them',
      );
    }
  }
  return desired.map((d) => containerRequest(d, liveByName.get(d.name), variables.get(d)));
}

function planVolumes(spec: ContainerAppSpec, live: LiveApp, diffs: FieldDiff[]): PatchAppRequest['volumes'] {
  const desired = spec.volumes;
  if (desired === undefined) return undefined;
  const before = diffs.length;
  diffVolumes(desired, live, diffs);
  return diffs.length === before ? undefined : desired.map((v) => ({ name: v.name, size: v.size }));
}

/** `@optimal` as E7 answered it, or the error that stops the plan of an app that uses it. */
function optimalRegion(spec: ContainerAppSpec, ctx: PlanContext): { id?: string; error?: PlanError } {
  if (!usesOptimalRegion(spec)) return {};
  const region = ctx.optimalRegion;
  if (region !== undefined && 'id' in region) return { id: region.id };
  return {
    error: {
      code: region?.error.code ?? 'READ_FAILED',
      message: `cannot resolve ${OPTIMAL_REGION}: ${region?.error.message ?? 'the optimal region was not read'}`,
    },
  };
}

/**
 * What the state keeps once the app is applied: the nodeSelectors the API never returns, and
 * per container how each declared variable was applied (literal or sensitive, never a value).
 */
function rememberOf(spec: ContainerAppSpec, appId: string): { remember?: Record<string, unknown> } {
  const remember: Record<string, unknown> = {};
  if (spec.regionSettings?.nodeSelectors !== undefined)
    remember.nodeSelectors = spec.regionSettings.nodeSelectors;
  const environment: Record<string, VariableKinds> = {};
  for (const container of spec.containerTemplates ?? []) {
    const kinds = appliedKinds(container);
    if (kinds !== undefined) environment[container.name] = kinds;
  }
  if (Object.keys(environment).length > 0) {
    remember[REMEMBERED_ENVIRONMENT] = environment;
    // A created app's id is not known yet: the next run (a no-change one) records it.
    if (appId !== '') remember[REMEMBERED_APP_ID] = appId;
  }
  return Object.keys(remember).length === 0 ? {} : { remember };
}

/** Pure plan of one app against its live state and its secrets. */
export function planApp(
  desired: DesiredResource<ContainerAppSpec>,
  read: AppRead,
  ctx: PlanContext,
): KindPlan {
  const spec = desired.spec;
  const secrets = read.secrets;
  if (read.app === null) return planCreate(desired, secrets, ctx);
  const live = read.app;
  const optimal = optimalRegion(spec, ctx);
  if (optimal.error !== undefined) return { diffs: [], requests: [], error: optimal.error };
  // A missing secret is never sent as an empty value: nothing is planned for the app.
  if (secrets.problems.length > 0) {
    return {
      diffs: [],
      requests: [],
      error: { code: 'SECRET_UNAVAILABLE', message: secrets.problems.join('; ') },
    };
  }
  const digest = holdsSensitiveValues(spec)
    ? { digest: ctx.keyedDigest(`${desired.digest}\n${sensitiveMaterial(spec, secrets)}`) }
    : {};

  const diffs: FieldDiff[] = [];
  const problems: string[] = [];
  const body: PatchAppRequest = {};
  if (spec.name !== undefined && spec.name !== live.name) {
    diffs.push({ path: 'name', live: live.name, desired: spec.name });
    body.name = spec.name;
  }
  if (spec.runtimeType !== undefined && spec.runtimeType !== live.runtimeType) {
    diffs.push({ path: 'runtimeType', live: live.runtimeType, desired: spec.runtimeType });
    body.runtimeType = spec.runtimeType;
  }
  if (spec.autoScaling !== undefined) {
    const before = diffs.length;
    diffDeclared(spec.autoScaling, live.autoScaling ?? undefined, 'autoScaling', diffs);
    if (diffs.length > before) body.autoScaling = { min: spec.autoScaling.min, max: spec.autoScaling.max };
  }
  const remembered = ctx.remembered(desired.subject);
  const regionSettings = planRegionSettings(spec, live, optimal.id, remembered, diffs);
  if (regionSettings !== undefined) body.regionSettings = regionSettings;
  const containerTemplates = planContainers(spec, live, secrets, remembered, diffs, problems);
  if (containerTemplates !== undefined) body.containerTemplates = containerTemplates;
  const volumes = planVolumes(spec, live, diffs);
  if (volumes !== undefined) body.volumes = volumes;

  const remember = rememberOf(spec, live.id);
  const deletions = diffs.filter((d) => d.destructive).map((d) => d.path);
  if (deletions.length > 0 && spec.allowDeletions !== true) {
    problems.push(`would delete ${deletions.join(', ')}; set allowDeletions: true to allow it`);
  }
  if (problems.length > 0) {
    return { diffs, requests: [], error: { code: 'PLAN_UNSAFE', message: problems.join('; ') }, ...digest };
  }
  if (Object.keys(body).length === 0) return { diffs, requests: [], ...remember, ...digest };
  return { diffs, requests: [writeRequests.patchApp(live.id, body)], ...remember, ...digest };
}
