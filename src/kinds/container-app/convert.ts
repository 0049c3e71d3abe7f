/**
 * Live app (GET shape) → the PATCH request shape, which is also the form the spec is diffed
 * against. GET and PATCH differ: endpoints are flat in GET (`type`, `isSslEnabled`,
 * `portMappings`) and nested under `cdn`/`anycast` in requests; `pullZoneId` is a string in
 * GET and an integer in requests; enum casing changed over time (`Tcp` → `tcp`).
 */
import type {
  AppWire,
  ContainerEndpointWire,
  ContainerRequest,
  ContainerTemplateWire,
  EndpointRequest,
  PortMappingRequest,
  ProbeRequest,
  ProbeWire,
} from '../../api/wire/mc.js';
import { IMAGE_PULL_POLICIES, PORT_PROTOCOLS, RUNTIME_TYPES } from '../../domain/enums.js';
import { compact } from '../common/diff.js';

/** The seed's spelling of a string enum value, matched case-insensitively; unknown values kept. */
function canonicalCase(values: readonly string[], value: string): string {
  return values.find((v) => v.toLowerCase() === value.toLowerCase()) ?? value;
}

/** undefined for an object whose members were all null (the API returns `entryPoint: {}` that way). */
function nonEmpty<T extends object>(value: T | undefined): T | undefined {
  return value !== undefined && Object.keys(value).length > 0 ? value : undefined;
}

/** A live container: its id, its request form, and endpoints a request cannot express. */
export interface LiveContainer {
  id: string;
  request: Omit<ContainerRequest, 'id'>;
  /** What the API derived and reports; compared when the YAML pins them, never sent back otherwise. */
  observed: { image?: string; imageDigest?: string };
  /** Display names of endpoints whose type (publicIp, internalIp) PATCH cannot send back. */
  inexpressibleEndpoints: string[];
}

export interface LiveApp {
  id: string;
  name: string;
  runtimeType: string | null;
  autoScaling: { min: number; max: number } | null;
  regionSettings: {
    allowedRegionIds: string[];
    requiredRegionIds: string[];
    maxAllowedRegions: number | null;
  };
  containers: LiveContainer[];
  volumes: Array<{ name: string; size: number }>;
}

function portMappings(wire: ContainerEndpointWire['portMappings']): PortMappingRequest[] {
  return (wire ?? []).map((pm) =>
    compact({
      containerPort: pm.containerPort,
      exposedPort: pm.exposedPort ?? undefined,
      protocols: pm.protocols?.map((p) => canonicalCase(PORT_PROTOCOLS, p)),
    }),
  );
}

/** GET endpoint → request endpoint; undefined for types a request cannot express. */
function endpointRequest(wire: ContainerEndpointWire): EndpointRequest | undefined {
  const type = (wire.type ?? 'cdn').toLowerCase();
  if (type === 'cdn') {
    const pullZoneId =
      wire.pullZoneId === null || wire.pullZoneId === undefined ? undefined : Number(wire.pullZoneId);
    const sticky = wire.stickySessions;
    return compact({
      displayName: wire.displayName,
      cdn: {
        isSslEnabled: wire.isSslEnabled ?? false,
        pullZoneId: Number.isInteger(pullZoneId) ? pullZoneId : undefined,
        stickySessions:
          sticky === null || sticky === undefined
            ? undefined
            : {
                enabled: sticky.enabled ?? false,
                sessionHeaders: sticky.sessionHeaders ?? undefined,
                cookieName: sticky.cookieName ?? undefined,
              },
        portMappings: portMappings(wire.portMappings),
      },
    });
  }
  if (type === 'anycast') {
    return {
      displayName: wire.displayName,
      anycast: { type: 'iPv4', portMappings: portMappings(wire.portMappings) },
    };
  }
  return undefined;
}

function probeRequest(wire: ProbeWire | null | undefined): ProbeRequest | undefined {
  if (wire === null || wire === undefined) return undefined;
  return compact({
    initialDelaySeconds: wire.initialDelaySeconds ?? undefined,
    periodSeconds: wire.periodSeconds ?? undefined,
    timeoutSeconds: wire.timeoutSeconds ?? undefined,
    failureThreshold: wire.failureThreshold ?? undefined,
    successThreshold: wire.successThreshold ?? undefined,
    httpGet: wire.httpGet?.request
      ? {
          request: {
            path: wire.httpGet.request.path ?? '/',
            portNumber: wire.httpGet.request.portNumber ?? 0,
          },
          response: wire.httpGet.response?.expectedStatusCode
            ? { expectedStatusCode: wire.httpGet.response.expectedStatusCode }
            : undefined,
        }
      : undefined,
    tcpSocket: wire.tcpSocket?.request
      ? { request: { portNumber: wire.tcpSocket.request.portNumber ?? 0 } }
      : undefined,
    grpc: wire.grpc?.request
      ? {
          request: {
            portNumber: wire.grpc.request.portNumber ?? 0,
            serviceName: wire.grpc.request.serviceName ?? undefined,
          },
        }
      : undefined,
  });
}

/**
 * GET template → request form. `image` and `imageDigest` are left out: the API derives them
 * from registry/namespace/name/tag, and sending the old ones back would pin the old image
 * when only the tag changes. They are sent only when the YAML declares them.
 */
function liveContainer(wire: ContainerTemplateWire): LiveContainer {
  const endpoints: EndpointRequest[] = [];
  const inexpressibleEndpoints: string[] = [];
  for (const endpoint of wire.endpoints ?? []) {
    const request = endpointRequest(endpoint);
    if (request === undefined) inexpressibleEndpoints.push(endpoint.displayName);
    else endpoints.push(request);
  }
  const entry = wire.entryPoint;
  const probes = wire.probes;
  return {
    id: wire.id,
    observed: compact({ image: wire.image ?? undefined, imageDigest: wire.imageDigest ?? undefined }),
    inexpressibleEndpoints,
    request: compact({
      name: wire.name,
      imageName: wire.imageName ?? '',
      imageNamespace: wire.imageNamespace ?? '',
      imageTag: wire.imageTag ?? '',
      imageRegistryId: wire.imageRegistryId ?? '',
      imagePullPolicy: wire.imagePullPolicy
        ? canonicalCase(IMAGE_PULL_POLICIES, wire.imagePullPolicy)
        : undefined,
      entryPoint:
        entry === null || entry === undefined
          ? undefined
          : nonEmpty(
              compact({
                command: entry.command ?? undefined,
                commandArray: entry.commandArray ?? undefined,
                arguments: entry.arguments ?? undefined,
                argumentsArray: entry.argumentsArray ?? undefined,
                workingDirectory: entry.workingDirectory ?? undefined,
              }),
            ),
      probes:
        probes === null || probes === undefined
          ? undefined
          : nonEmpty(
              compact({
                startup: probeRequest(probes.startup),
                readiness: probeRequest(probes.readiness),
                liveness: probeRequest(probes.liveness),
              }),
            ),
      environmentVariables: (wire.environmentVariables ?? []).map((v) => ({
        name: v.name,
        value: v.value ?? '',
      })),
      endpoints,
      volumeMounts: (wire.volumeMounts ?? []).map((m) => ({ name: m.name, mountPath: m.mountPath })),
    }),
  };
}

/** Live wire → the comparable form. */
export function normalizeApp(wire: AppWire): LiveApp {
  const region = wire.regionSettings;
  return {
    id: wire.id,
    name: wire.name,
    runtimeType: wire.runtimeType ? canonicalCase(RUNTIME_TYPES, wire.runtimeType) : null,
    autoScaling: wire.autoScaling ?? null,
    regionSettings: {
      allowedRegionIds: region?.allowedRegionIds ?? [],
      requiredRegionIds: region?.requiredRegionIds ?? [],
      maxAllowedRegions: region?.maxAllowedRegions ?? null,
    },
    containers: wire.containerTemplates.map(liveContainer),
    volumes: (wire.volumes ?? []).map((v) => ({ name: v.name, size: v.size })),
  };
}
