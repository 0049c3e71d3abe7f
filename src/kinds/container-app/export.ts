/**
 * Export of `ContainerApp`: one `GET /mc/apps/{appId}`, converted with the same code the plan
 * uses (`normalizeApp`: the GET shape → the PATCH request shape, enum casing settled), then
 * stripped of what the API owns.
 *
 * Left out: container, endpoint and volume ids (matching is by name), `image` (derived from
 * registry/namespace/name/tag), `imageDigest` unless the live image reference pins it
 * (`…@sha256:…`: a digest taken from an unpinned tag would freeze the app on today's build
 * when the tag moves), CDN `pullZoneId` (the API creates the pull zone), `publicHost`,
 * `nodeSelectors` (the API never returns them) and empty lists (an app leaves out what it does
 * not manage, as everywhere in the format).
 *
 * Variables whose names look secret (`looksSecret`), and those the state says the last apply
 * sent as secrets (from `valueFrom` or marked `sensitive`), are written as `valueFrom`
 * placeholders naming an `EDGESYNC_SECRET_*` variable, with a warning, unless
 * `includeSecretValues`: an export is meant to be committed, and a secret never belongs in git.
 */
import type { AppWire, EndpointRequest } from '../../api/wire/mc.js';
import { looksSecret, SECRET_ENV_PREFIX } from '../../domain/secret-sources.js';
import { revealed } from '../../domain/sensitive.js';
import { compact } from '../common/diff.js';
import type { ExportedSpec, ExportSettings, KindExporter } from '../common/export.js';
import { type LiveContainer, normalizeApp } from './convert.js';
import { rememberedKinds } from './env.js';
import { readAccountApps } from './lifecycle.js';

function nonEmpty<T>(items: readonly T[] | undefined): readonly T[] | undefined {
  return items === undefined || items.length === 0 ? undefined : items;
}

function text(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** The live digest, when the live image reference is pinned to it (`repo@sha256:…`). */
function pinnedDigest(observed: LiveContainer['observed']): string | undefined {
  const { image, imageDigest } = observed;
  if (image === undefined || imageDigest === undefined) return undefined;
  return image.endsWith(`@${imageDigest}`) ? imageDigest : undefined;
}

function endpointToSpec(endpoint: EndpointRequest): Record<string, unknown> {
  if (endpoint.cdn !== undefined) {
    const { isSslEnabled, stickySessions, portMappings } = endpoint.cdn;
    return compact({
      displayName: endpoint.displayName,
      cdn: {
        isSslEnabled,
        // The API requires 1-3 session headers; sticky sessions without them cannot be written.
        stickySessions:
          stickySessions !== undefined && (stickySessions.sessionHeaders?.length ?? 0) > 0
            ? stickySessions
            : undefined,
        portMappings,
      },
    });
  }
  return { displayName: endpoint.displayName, anycast: endpoint.anycast };
}

/** The placeholder variable of a secret-looking one: `EDGESYNC_SECRET_` + its name, upper-cased, `_` for the rest. */
function placeholderVariable(name: string): string {
  return `${SECRET_ENV_PREFIX}${name.toUpperCase().replace(/[^A-Z0-9_]/g, '_')}`;
}

function variablesToSpec(
  container: LiveContainer,
  appId: string,
  settings: ExportSettings,
  warnings: string[],
): Record<string, unknown>[] | undefined {
  const variables = nonEmpty(container.request.environmentVariables);
  if (variables === undefined) return undefined;
  const applied = rememberedKinds(settings.remembered?.(appId), container.request.name);
  return variables.map((v) => {
    const appliedAsSecret = applied?.[v.name] === 'sensitive';
    if (settings.includeSecretValues || !(looksSecret(v.name) || appliedAsSecret))
      return { name: v.name, value: revealed(v.value) };
    const env = placeholderVariable(v.name);
    const why = appliedAsSecret ? 'was applied as a secret' : 'looks secret';
    warnings.push(
      `app ${appId}, container ${container.request.name}: ${v.name} ${why} and is written as ` +
        `valueFrom: { env: ${env} }; set ${env} where edgesync runs, or re-run with --include-secret-values`,
    );
    return { name: v.name, valueFrom: { env } };
  });
}

function containerToSpec(
  container: LiveContainer,
  appId: string,
  settings: ExportSettings,
  warnings: string[],
): Record<string, unknown> {
  const r = container.request;
  let endpoints = nonEmpty(r.endpoints)?.map(endpointToSpec);
  if (container.inexpressibleEndpoints.length > 0) {
    // Listing only the expressible ones would delete the others at the next change of the list.
    endpoints = undefined;
    warnings.push(
      `app ${appId}, container ${r.name}: endpoints ${container.inexpressibleEndpoints.join(', ')} are of a type ` +
        'the format cannot express (publicIp, internalIp); its endpoints are left out (unmanaged)',
    );
  }
  return compact({
    name: r.name,
    imageRegistryId: text(r.imageRegistryId),
    imageNamespace: text(r.imageNamespace),
    imageName: text(r.imageName),
    imageTag: text(r.imageTag),
    imageDigest: pinnedDigest(container.observed),
    imagePullPolicy: r.imagePullPolicy,
    entryPoint: r.entryPoint,
    probes: r.probes,
    environmentVariables: variablesToSpec(container, appId, settings, warnings),
    endpoints,
    volumeMounts: nonEmpty(r.volumeMounts),
  });
}

/** One live app in the desired-state format. */
function appToSpec(
  wire: AppWire,
  settings: ExportSettings = { includeSecretValues: false },
  /** True when no other app of the account has its name: the document finds it by name, no appId. */
  uniqueName = false,
): ExportedSpec {
  const live = normalizeApp(wire);
  const warnings: string[] = [];
  const region = live.regionSettings;
  const spec = compact({
    appId: uniqueName ? undefined : live.id,
    name: live.name,
    runtimeType: live.runtimeType ?? undefined,
    autoScaling: live.autoScaling ?? undefined,
    regionSettings: {
      allowedRegionIds: region.allowedRegionIds,
      requiredRegionIds: region.requiredRegionIds,
      maxAllowedRegions: region.maxAllowedRegions ?? undefined,
    },
    containerTemplates: live.containers.map((c) => containerToSpec(c, live.id, settings, warnings)),
    volumes: nonEmpty(live.volumes),
  });
  return { kind: 'ContainerApp', liveName: live.name, id: live.id, spec, warnings };
}

/** One app by id. */
export const containerAppExporter: KindExporter<'app'> = {
  kind: 'ContainerApp',
  scope: 'app',
  async read(appId, ctx, settings) {
    const [wire, apps] = await Promise.all([
      ctx.limit(() => ctx.api.getApp(appId, { signal: ctx.signal })),
      readAccountApps(ctx),
    ]);
    // Written without appId where the name finds it (see docs/configuration.md, Container apps).
    const unique = apps.filter((app) => app.name === wire.name).length === 1;
    return [appToSpec(wire, settings, unique)];
  },
};
