/**
 * E4 merge-patch semantics, and building an app from a request-shaped description (the seed).
 *
 * Only the top-level fields supplied change. The arrays are replaced, item by item:
 * - containerTemplates: an `id` that matches a live template updates it (id and packageId
 *   kept), an `id` that matches nothing is an error, no `id` creates a template, and live
 *   templates left out are deleted; an empty array is refused (the last container cannot go);
 * - volumes: matched by `name` (the request schema has no id);
 * - endpoints (per template): matched by `displayName`, which keeps the live endpoint's id
 *   and pull zone; new names get fresh ids; left-out endpoints are deleted.
 * An updated template is *replaced* by the item (fields the item leaves out take their
 * defaults, not the live values): a client must send whole templates, which is what the
 * reconciler does. Nothing is applied unless the whole patch is valid.
 */
import { sha256Hex } from '../domain/checksum.js';
import type { FieldError } from './replies.js';
import type { EmulatorState } from './store.js';
import type {
  ContainerRequest,
  EndpointRequest,
  PatchApplicationRequest,
  PatchContainerRequest,
  PortMappingRequest,
  ProbeRequest,
} from './validation/app.js';
import { checkUnique } from './validation/issues.js';
import type {
  Application,
  ContainerEndpoint,
  ContainerTemplate,
  EndpointPortMapping,
  Probe,
  Probes,
  RegionSettings,
} from './wire.js';

/** Outcome of a patch: the app after it, or every problem found. */
export type PatchOutcome =
  | { ok: true; app: Application; nodeSelectors: Record<string, string> }
  | { ok: false; errors: FieldError[] };

const PROBE_DEFAULTS = {
  initialDelaySeconds: 10,
  periodSeconds: 10,
  timeoutSeconds: 7,
  failureThreshold: 3,
  successThreshold: 1,
} as const;

function buildProbe(input: ProbeRequest): Probe {
  const probe: Probe = {
    initialDelaySeconds: input.initialDelaySeconds ?? PROBE_DEFAULTS.initialDelaySeconds,
    periodSeconds: input.periodSeconds ?? PROBE_DEFAULTS.periodSeconds,
    timeoutSeconds: input.timeoutSeconds ?? PROBE_DEFAULTS.timeoutSeconds,
    failureThreshold: input.failureThreshold ?? PROBE_DEFAULTS.failureThreshold,
    successThreshold: input.successThreshold ?? PROBE_DEFAULTS.successThreshold,
  };
  if (input.httpGet !== undefined) {
    probe.httpGet = structuredClone(input.httpGet) as Probe['httpGet'];
  }
  if (input.tcpSocket !== undefined) probe.tcpSocket = structuredClone(input.tcpSocket);
  if (input.grpc !== undefined) probe.grpc = structuredClone(input.grpc);
  return probe;
}

function buildProbes(input: ContainerRequest['probes']): Probes {
  const probes: Probes = {};
  if (input?.startup !== undefined) probes.startup = buildProbe(input.startup);
  if (input?.readiness !== undefined) probes.readiness = buildProbe(input.readiness);
  if (input?.liveness !== undefined) probes.liveness = buildProbe(input.liveness);
  return probes;
}

function buildPortMappings(input: readonly PortMappingRequest[]): EndpointPortMapping[] {
  return input.map((m) => ({
    containerPort: m.containerPort,
    exposedPort: m.exposedPort ?? m.containerPort,
    protocols: m.protocols === undefined ? ['tcp'] : [...m.protocols],
  }));
}

function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'endpoint'
  );
}

/** A live endpoint from its request; `live` keeps the id and pull zone of the one it replaces. */
export function buildEndpoint(
  input: EndpointRequest,
  live: ContainerEndpoint | undefined,
  state: EmulatorState,
  region: string,
): ContainerEndpoint {
  const id = live?.id ?? state.nextId('e');
  if (input.cdn !== undefined) {
    const cdn = input.cdn;
    const pullZoneId =
      cdn.pullZoneId !== null && cdn.pullZoneId !== undefined
        ? String(cdn.pullZoneId)
        : live?.type === 'cdn'
          ? live.pullZoneId
          : String(state.nextNumber());
    const endpoint: ContainerEndpoint = {
      id,
      displayName: input.displayName,
      publicHost: live?.type === 'cdn' ? live.publicHost : `${slug(input.displayName)}-${id}.b-cdn.net`,
      type: 'cdn',
      isSslEnabled: cdn.isSslEnabled ?? false,
      pullZoneId,
      portMappings: buildPortMappings(cdn.portMappings),
      internalIpAddresses: [],
      publicIpAddresses: [],
    };
    if (cdn.stickySessions !== undefined) {
      endpoint.stickySessions = {
        enabled: cdn.stickySessions.enabled ?? true,
        sessionHeaders: [...cdn.stickySessions.sessionHeaders],
        cookieName: cdn.stickySessions.cookieName ?? '_bunny_sticky',
      };
    }
    return endpoint;
  }
  // Anycast: a public IPv4 from TEST-NET-3, stable while the endpoint lives.
  const anycast = input.anycast as NonNullable<EndpointRequest['anycast']>;
  const address = live?.type === 'anycast' ? live.publicHost : `203.0.113.${(state.nextNumber() % 254) + 1}`;
  return {
    id,
    displayName: input.displayName,
    publicHost: address,
    type: 'anycast',
    isSslEnabled: false,
    // The GET schema requires a non-empty pullZoneId even where no pull zone exists.
    pullZoneId: '0',
    portMappings: buildPortMappings(anycast.portMappings),
    internalIpAddresses: [],
    publicIpAddresses: [{ address, region }],
  };
}

function fakeDigest(image: string): string {
  return `sha256:${sha256Hex(image)}`;
}

function buildTemplate(
  input: ContainerRequest,
  live: ContainerTemplate | undefined,
  state: EmulatorState,
  region: string,
): ContainerTemplate {
  const liveEndpoints = new Map((live?.endpoints ?? []).map((e) => [e.displayName, e]));
  const repository =
    input.imageNamespace === '' ? input.imageName : `${input.imageNamespace}/${input.imageName}`;
  const image = input.image ?? `${repository}:${input.imageTag}`;
  const entry = input.entryPoint;
  return {
    id: live?.id ?? state.nextId('c'),
    name: input.name,
    packageId: live?.packageId ?? state.nextId('p'),
    image,
    imageName: input.imageName,
    imageNamespace: input.imageNamespace,
    imageTag: input.imageTag,
    imageRegistryId: input.imageRegistryId,
    imageDigest: input.imageDigest ?? fakeDigest(image),
    imagePullPolicy: input.imagePullPolicy ?? 'ifNotPresent',
    entryPoint: {
      command: entry?.command ?? null,
      commandArray: entry?.commandArray ?? null,
      arguments: entry?.arguments ?? null,
      argumentsArray: entry?.argumentsArray ?? null,
      workingDirectory: entry?.workingDirectory ?? null,
    },
    probes: buildProbes(input.probes),
    environmentVariables: (input.environmentVariables ?? []).map((v) => ({ ...v })),
    endpoints: (input.endpoints ?? []).map((e) =>
      buildEndpoint(e, liveEndpoints.get(e.displayName), state, region),
    ),
    volumeMounts: (input.volumeMounts ?? []).map((m) => ({ ...m })),
  };
}

function templateErrors(
  appId: string,
  items: readonly ContainerRequest[],
  live: readonly ContainerTemplate[],
): FieldError[] {
  const errors: FieldError[] = [];
  if (items.length === 0) {
    errors.push({ field: 'containerTemplates', message: 'Cannot delete the last container template.' });
    return errors;
  }
  const liveIds = new Set(live.map((t) => t.id));
  const seenIds = new Set<string>();
  for (const [i, item] of items.entries()) {
    if (item.id === null || item.id === undefined) continue;
    if (!liveIds.has(item.id)) {
      errors.push({
        field: `containerTemplates[${i}].id`,
        message: `Container template '${item.id}' does not exist in application '${appId}'.`,
      });
    } else if (seenIds.has(item.id)) {
      errors.push({
        field: `containerTemplates[${i}].id`,
        message: `Container template '${item.id}' is listed twice.`,
      });
    }
    seenIds.add(item.id);
  }
  // Every known client identifies containers by name (docs/api-notes.md, Container apps); a repeat is refused,
  // which also shows a blindly retried create as a 400.
  errors.push(
    ...checkUnique(
      items,
      (t) => t.name,
      (i) => `containerTemplates[${i}].name`,
      'container name',
    ),
  );
  // Endpoint display names identify endpoints app-wide (PUT /apps/{id}/endpoints/{displayName}).
  const seenEndpoints = new Set<string>();
  for (const [i, item] of items.entries()) {
    for (const [j, endpoint] of (item.endpoints ?? []).entries()) {
      if (seenEndpoints.has(endpoint.displayName)) {
        errors.push({
          field: `containerTemplates[${i}].endpoints[${j}].displayName`,
          message: `Duplicate endpoint displayName '${endpoint.displayName}'.`,
        });
      }
      seenEndpoints.add(endpoint.displayName);
    }
  }
  return errors;
}

function mergeRegionSettings(
  live: RegionSettings,
  liveSelectors: Record<string, string>,
  patch: NonNullable<PatchApplicationRequest['regionSettings']>,
): { settings: RegionSettings; nodeSelectors: Record<string, string> } {
  // Omitted keeps; null clears (RFC 7386 reading of a PATCH).
  const settings: RegionSettings = {
    allowedRegionIds:
      patch.allowedRegionIds === undefined ? [...live.allowedRegionIds] : [...(patch.allowedRegionIds ?? [])],
    requiredRegionIds:
      patch.requiredRegionIds === undefined
        ? [...live.requiredRegionIds]
        : [...(patch.requiredRegionIds ?? [])],
    maxAllowedRegions:
      patch.maxAllowedRegions === undefined ? live.maxAllowedRegions : patch.maxAllowedRegions,
    provisioningType: live.provisioningType,
  };
  const nodeSelectors =
    patch.nodeSelectors === undefined ? { ...liveSelectors } : { ...(patch.nodeSelectors ?? {}) };
  return { settings, nodeSelectors };
}

function regionErrors(settings: RegionSettings): FieldError[] {
  const errors: FieldError[] = [];
  const allowed = new Set(settings.allowedRegionIds);
  for (const [i, id] of settings.requiredRegionIds.entries()) {
    if (!allowed.has(id)) {
      errors.push({
        field: `regionSettings.requiredRegionIds[${i}]`,
        message: `Required region '${id}' is not in allowedRegionIds.`,
      });
    }
  }
  errors.push(
    ...checkUnique(
      settings.allowedRegionIds,
      (r) => r,
      (i) => `regionSettings.allowedRegionIds[${i}]`,
      'region',
    ),
  );
  return errors;
}

function mountErrors(
  templates: readonly ContainerTemplate[],
  volumeNames: ReadonlySet<string>,
  templatesPatched: boolean,
): FieldError[] {
  const errors: FieldError[] = [];
  for (const [i, template] of templates.entries()) {
    for (const [j, mount] of template.volumeMounts.entries()) {
      if (volumeNames.has(mount.name)) continue;
      errors.push(
        templatesPatched
          ? {
              field: `containerTemplates[${i}].volumeMounts[${j}].name`,
              message: `Volume '${mount.name}' is not a volume of the application.`,
            }
          : {
              field: 'volumes',
              message: `Volume '${mount.name}' is mounted by container '${template.name}' and cannot be deleted.`,
            },
      );
    }
  }
  return errors;
}

function instancesFor(app: Application): Application['containerInstances'] {
  return app.containerTemplates.map((t, i) => ({
    id: `${t.id}-0`,
    templateId: t.id,
    podId: `${app.id}-${slug(t.name)}-0`,
    nodeIpAddress: `10.0.${Math.floor(i / 250)}.${(i % 250) + 2}`,
  }));
}

function displayEndpointOf(app: Application): Application['displayEndpoint'] {
  for (const template of app.containerTemplates) {
    const endpoint = template.endpoints[0];
    if (endpoint !== undefined) return { id: endpoint.id, address: endpoint.publicHost, type: endpoint.type };
  }
  return undefined;
}

/**
 * Computes the app after an E4 patch without touching `live`. The caller stores the result
 * only when `ok`, which is what makes a failed patch change nothing.
 */
export function patchApp(
  live: Application,
  liveSelectors: Record<string, string>,
  patch: PatchApplicationRequest,
  state: EmulatorState,
): PatchOutcome {
  const errors: FieldError[] = [];
  const next: Application = structuredClone(live);
  let nodeSelectors = { ...liveSelectors };

  if (patch.name !== undefined && patch.name !== null) next.name = patch.name;
  if (patch.runtimeType !== undefined) next.runtimeType = patch.runtimeType;
  // min > max is not refused: no source states that rule (docs/design.md, The emulator).
  if (patch.autoScaling !== undefined) next.autoScaling = { ...patch.autoScaling };
  if (patch.regionSettings !== undefined) {
    const merged = mergeRegionSettings(live.regionSettings, liveSelectors, patch.regionSettings);
    next.regionSettings = merged.settings;
    nodeSelectors = merged.nodeSelectors;
    errors.push(...regionErrors(next.regionSettings));
  }
  if (patch.volumes !== undefined && patch.volumes !== null) {
    errors.push(
      ...checkUnique(
        patch.volumes,
        (v) => v.name,
        (i) => `volumes[${i}].name`,
        'volume name',
      ),
    );
    next.volumes = patch.volumes.map((v) => ({ name: v.name, size: v.size }));
  }
  const templatesPatched = patch.containerTemplates !== undefined && patch.containerTemplates !== null;
  if (templatesPatched) {
    const items = patch.containerTemplates as ContainerRequest[];
    const itemErrors = templateErrors(live.id, items, live.containerTemplates);
    errors.push(...itemErrors);
    if (itemErrors.length === 0) {
      const liveById = new Map(live.containerTemplates.map((t) => [t.id, t]));
      const region = next.regionSettings.allowedRegionIds[0] ?? 'DE';
      next.containerTemplates = items.map((item) =>
        buildTemplate(
          item,
          item.id === null || item.id === undefined ? undefined : liveById.get(item.id),
          state,
          region,
        ),
      );
    }
  }
  errors.push(
    ...mountErrors(next.containerTemplates, new Set(next.volumes.map((v) => v.name)), templatesPatched),
  );

  if (errors.length > 0) return { ok: false, errors };
  next.containerInstances = instancesFor(next);
  const display = displayEndpointOf(next);
  if (display === undefined) delete next.displayEndpoint;
  else next.displayEndpoint = display;
  return { ok: true, app: next, nodeSelectors };
}

/**
 * A new app from a request-shaped description (the seed's `apps` entries): the same
 * building rules as E4, starting from an empty app. Throws nothing; returns errors.
 */
export function createApp(
  input: {
    id: string;
    name: string;
    status?: Application['status'];
    runtimeType?: string;
    autoScaling?: { min: number; max: number };
    regionSettings?: PatchApplicationRequest['regionSettings'];
    containerTemplates: ContainerRequest[];
    volumes?: { name: string; size: number }[];
  },
  state: EmulatorState,
): PatchOutcome {
  const empty: Application = {
    id: input.id,
    name: input.name,
    status: input.status ?? 'active',
    runtimeType: 'shared',
    regionSettings: {
      allowedRegionIds: ['DE'],
      requiredRegionIds: ['DE'],
      maxAllowedRegions: null,
      provisioningType: 'static',
    },
    containerTemplates: [],
    containerInstances: [],
    volumes: [],
    autoScaling: { min: 1, max: 1 },
    networkSettings: { ingressBandwidthLimit: 0, egressBandwidthLimit: 0 },
  };
  const patch: PatchApplicationRequest = {
    containerTemplates: input.containerTemplates.map((t) => ({ ...t, id: undefined })),
    volumes: input.volumes ?? [],
  };
  if (input.runtimeType !== undefined)
    patch.runtimeType = input.runtimeType as PatchApplicationRequest['runtimeType'];
  if (input.autoScaling !== undefined) patch.autoScaling = input.autoScaling;
  if (input.regionSettings !== undefined) patch.regionSettings = input.regionSettings;
  const outcome = patchApp(empty, {}, patch, state);
  if (!outcome.ok) return outcome;
  // Seeds may pin container ids so tests and demos can refer to them.
  for (const [i, template] of outcome.app.containerTemplates.entries()) {
    const pinned = input.containerTemplates[i]?.id;
    if (pinned !== null && pinned !== undefined) template.id = pinned;
  }
  outcome.app.containerInstances = instancesFor(outcome.app);
  return outcome;
}

/**
 * `PATCH /mc/apps/{appId}/containers/{containerId}`: the container with the fields the request
 * gives; the others keep their values. A changed image part gives a new `image` (and digest)
 * unless the request names them. Computed without touching `live`, like `patchApp`.
 */
export function patchContainer(
  live: Application,
  containerId: string,
  patch: PatchContainerRequest,
  state: EmulatorState,
): { ok: true; app: Application; template: ContainerTemplate } | { ok: false; errors: FieldError[] } {
  const next: Application = structuredClone(live);
  const template = next.containerTemplates.find((t) => t.id === containerId);
  if (template === undefined) return { ok: false, errors: [] };
  const imageChanged =
    (patch.imageName != null && patch.imageName !== template.imageName) ||
    (patch.imageNamespace != null && patch.imageNamespace !== template.imageNamespace) ||
    (patch.imageTag != null && patch.imageTag !== template.imageTag);
  if (patch.name != null) template.name = patch.name;
  if (patch.imageName != null) template.imageName = patch.imageName;
  if (patch.imageNamespace != null) template.imageNamespace = patch.imageNamespace;
  if (patch.imageTag != null) template.imageTag = patch.imageTag;
  if (patch.imageRegistryId != null) template.imageRegistryId = patch.imageRegistryId;
  if (patch.imagePullPolicy !== undefined) template.imagePullPolicy = patch.imagePullPolicy;
  const repository =
    template.imageNamespace === '' ? template.imageName : `${template.imageNamespace}/${template.imageName}`;
  if (patch.image != null) template.image = patch.image;
  else if (imageChanged) template.image = `${repository}:${template.imageTag}`;
  if (patch.imageDigest != null) template.imageDigest = patch.imageDigest;
  else if (imageChanged || patch.image != null) template.imageDigest = fakeDigest(template.image);
  if (patch.entryPoint !== undefined) {
    const entry = patch.entryPoint;
    template.entryPoint = {
      command: entry.command ?? null,
      commandArray: entry.commandArray ?? null,
      arguments: entry.arguments ?? null,
      argumentsArray: entry.argumentsArray ?? null,
      workingDirectory: entry.workingDirectory ?? null,
    };
  }
  if (patch.probes !== undefined) template.probes = buildProbes(patch.probes);
  if (patch.environmentVariables !== undefined)
    template.environmentVariables = patch.environmentVariables.map((v) => ({ ...v }));
  if (patch.volumeMounts !== undefined) template.volumeMounts = patch.volumeMounts.map((m) => ({ ...m }));
  if (patch.endpoints !== undefined) {
    const liveEndpoints = new Map(template.endpoints.map((e) => [e.displayName, e]));
    const region = next.regionSettings.allowedRegionIds[0] ?? 'DE';
    template.endpoints = patch.endpoints.map((e) =>
      buildEndpoint(e, liveEndpoints.get(e.displayName), state, region),
    );
  }
  const errors = [
    ...checkUnique(
      next.containerTemplates,
      (t) => t.name,
      () => 'name',
      'container name',
    ),
    ...mountErrors(next.containerTemplates, new Set(next.volumes.map((v) => v.name)), true),
  ];
  if (errors.length > 0) return { ok: false, errors };
  next.containerInstances = instancesFor(next);
  const display = displayEndpointOf(next);
  if (display === undefined) delete next.displayEndpoint;
  else next.displayEndpoint = display;
  return { ok: true, app: next, template };
}
