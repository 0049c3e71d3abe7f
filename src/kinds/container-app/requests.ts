/**
 * The E4 request body's parts. The API replaces containerTemplates, volumes and endpoints
 * whole, so each desired item is sent complete: matched to its live twin by name
 * (displayName for endpoints), it carries the live container id and the live value of every
 * field the YAML leaves out; a new item goes without id.
 */
import type {
  ContainerRequest,
  EndpointRequest,
  PatchAppRequest,
  PortMappingRequest,
  ProbeRequest,
} from '../../api/wire/mc.js';
import { compact, overlay } from '../common/diff.js';
import type { LiveApp, LiveContainer } from './convert.js';
import { PROBE_HANDLERS, probeHandler, type ResolvedRegions } from './diff.js';
import { type DesiredVariable, variableRequests } from './env.js';
import type { ContainerAppSpec, ContainerSpec, EndpointSpec, ProbeSpec } from './spec.js';

function mergePortMappings(
  live: readonly PortMappingRequest[] | undefined,
  desired: readonly PortMappingRequest[],
): PortMappingRequest[] {
  const liveByPort = new Map((live ?? []).map((p) => [p.containerPort, p]));
  return desired.map((d) => compact(overlay(liveByPort.get(d.containerPort) ?? {}, d)) as PortMappingRequest);
}

/** A desired endpoint as a request; left-out fields keep the live endpoint's values. */
function mergeEndpoint(live: EndpointRequest | undefined, d: EndpointSpec): EndpointRequest {
  if (d.cdn !== undefined) {
    const base = live?.cdn;
    return compact({
      displayName: d.displayName,
      cdn: {
        isSslEnabled: d.cdn.isSslEnabled ?? base?.isSslEnabled,
        pullZoneId: d.cdn.pullZoneId ?? base?.pullZoneId,
        stickySessions: d.cdn.stickySessions ?? base?.stickySessions,
        portMappings: mergePortMappings(base?.portMappings, d.cdn.portMappings),
      },
    });
  }
  const anycast = d.anycast ?? { type: 'iPv4', portMappings: [] };
  return {
    displayName: d.displayName,
    anycast: {
      type: anycast.type,
      portMappings: mergePortMappings(live?.anycast?.portMappings, anycast.portMappings),
    },
  };
}

function mergeProbe(live: ProbeRequest | undefined, d: ProbeSpec | undefined): ProbeRequest | undefined {
  if (d === undefined) return live;
  const handler = probeHandler(d);
  const base: ProbeRequest = { ...live };
  // A probe has one handler: when the YAML switches it (tcpSocket → httpGet), drop the live one.
  for (const h of PROBE_HANDLERS) if (h !== handler) delete base[h];
  return compact(overlay(base, d));
}

/**
 * The request item for a desired container, filled from its live twin when there is one.
 * The variables are added after `compact`, which would take a SensitiveValue for a plain
 * object and empty it.
 */
export function containerRequest(
  d: ContainerSpec,
  live: LiveContainer | undefined,
  variables: readonly DesiredVariable[] | undefined,
): ContainerRequest {
  const base = live?.request;
  const liveEndpoints = new Map((base?.endpoints ?? []).map((e) => [e.displayName, e]));
  const request: ContainerRequest = compact({
    id: live?.id,
    name: d.name,
    imageName: d.imageName ?? base?.imageName ?? '',
    imageNamespace: d.imageNamespace ?? base?.imageNamespace ?? '',
    imageTag: d.imageTag ?? base?.imageTag ?? '',
    imageRegistryId: d.imageRegistryId ?? base?.imageRegistryId ?? '',
    image: d.image,
    imageDigest: d.imageDigest,
    imagePullPolicy: d.imagePullPolicy ?? base?.imagePullPolicy,
    entryPoint: d.entryPoint === undefined ? base?.entryPoint : overlay(base?.entryPoint ?? {}, d.entryPoint),
    probes:
      d.probes === undefined && base?.probes === undefined
        ? undefined
        : {
            startup: mergeProbe(base?.probes?.startup, d.probes?.startup),
            readiness: mergeProbe(base?.probes?.readiness, d.probes?.readiness),
            liveness: mergeProbe(base?.probes?.liveness, d.probes?.liveness),
          },
    endpoints: d.endpoints?.map((e) => mergeEndpoint(liveEndpoints.get(e.displayName), e)) ?? base?.endpoints,
    volumeMounts: d.volumeMounts ?? base?.volumeMounts,
  });
  const environmentVariables = variableRequests(variables, base?.environmentVariables);
  if (environmentVariables === undefined) return request;
  // Key order as the API documents it: the variables before endpoints and mounts.
  const { endpoints, volumeMounts, ...head } = request;
  const withVariables: ContainerRequest = { ...head, environmentVariables };
  if (endpoints !== undefined) withVariables.endpoints = endpoints;
  if (volumeMounts !== undefined) withVariables.volumeMounts = volumeMounts;
  return withVariables;
}

/** The region settings to send: declared values (`@optimal` resolved) over the live ones. */
export function regionSettingsRequest(
  d: NonNullable<ContainerAppSpec['regionSettings']>,
  live: LiveApp,
  regions: ResolvedRegions,
): PatchAppRequest['regionSettings'] {
  const l = live.regionSettings;
  return compact({
    allowedRegionIds: regions.allowed ?? l.allowedRegionIds,
    requiredRegionIds: regions.required ?? l.requiredRegionIds,
    maxAllowedRegions: d.maxAllowedRegions ?? l.maxAllowedRegions ?? undefined,
    nodeSelectors: d.nodeSelectors,
  });
}
