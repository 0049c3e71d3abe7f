/**
 * Wire schemas of Magic Containers (`/mc`, camelCase). The GET shapes differ from the PATCH
 * shapes (endpoints are flat in GET, nested under `cdn`/`anycast` in requests); the kinds
 * convert between them. Enum strings are kept as sent: the API's casing changed over time.
 */
import { z } from 'zod';
import type { SensitiveValue } from '../../domain/sensitive.js';
import { WireInt } from './common.js';

/** E7's region; loose, so `inspect optimal-region --json` prints fields this schema does not name. */
const RegionWire = z.looseObject({
  id: z.string(),
  name: z.string().nullish(),
  group: z.string().nullish(),
  hasAnycastSupport: z.boolean().nullish(),
  hasCapacity: z.boolean().nullish(),
});
export const OptimalRegionWire = z.looseObject({ region: RegionWire });
export type OptimalRegionWire = z.infer<typeof OptimalRegionWire>;

const PortMappingWire = z.object({
  containerPort: WireInt,
  exposedPort: WireInt.nullish(),
  protocols: z.array(z.string()).nullish(),
});

export const ContainerEndpointWire = z.object({
  id: z.string().nullish(),
  displayName: z.string(),
  /** cdn | anycast | publicIp (older replies: CDN, Anycast, PublicIp). */
  type: z.string().nullish(),
  isSslEnabled: z.boolean().nullish(),
  /** A string in replies, an integer in requests. */
  pullZoneId: z.union([z.string(), WireInt]).nullish(),
  portMappings: z.array(PortMappingWire).nullish(),
  publicHost: z.string().nullish(),
  stickySessions: z
    .object({
      enabled: z.boolean().nullish(),
      sessionHeaders: z.array(z.string()).nullish(),
      cookieName: z.string().nullish(),
    })
    .nullish(),
});
export type ContainerEndpointWire = z.infer<typeof ContainerEndpointWire>;

export const ProbeWire = z.object({
  initialDelaySeconds: WireInt.nullish(),
  periodSeconds: WireInt.nullish(),
  timeoutSeconds: WireInt.nullish(),
  failureThreshold: WireInt.nullish(),
  successThreshold: WireInt.nullish(),
  httpGet: z
    .object({
      request: z.object({ path: z.string().nullish(), portNumber: WireInt.nullish() }).nullish(),
      response: z.object({ expectedStatusCode: z.string().nullish() }).nullish(),
    })
    .nullish(),
  tcpSocket: z.object({ request: z.object({ portNumber: WireInt.nullish() }).nullish() }).nullish(),
  grpc: z
    .object({
      request: z.object({ portNumber: WireInt.nullish(), serviceName: z.string().nullish() }).nullish(),
    })
    .nullish(),
});
export type ProbeWire = z.infer<typeof ProbeWire>;

export const ContainerTemplateWire = z.object({
  id: z.string(),
  name: z.string(),
  image: z.string().nullish(),
  imageName: z.string().nullish(),
  imageNamespace: z.string().nullish(),
  imageTag: z.string().nullish(),
  imageRegistryId: z.string().nullish(),
  imageDigest: z.string().nullish(),
  imagePullPolicy: z.string().nullish(),
  entryPoint: z
    .object({
      command: z.string().nullish(),
      commandArray: z.array(z.string()).nullish(),
      arguments: z.string().nullish(),
      argumentsArray: z.array(z.string()).nullish(),
      workingDirectory: z.string().nullish(),
    })
    .nullish(),
  probes: z
    .object({ startup: ProbeWire.nullish(), readiness: ProbeWire.nullish(), liveness: ProbeWire.nullish() })
    .nullish(),
  environmentVariables: z.array(z.object({ name: z.string(), value: z.string().nullish() })).nullish(),
  endpoints: z.array(ContainerEndpointWire).nullish(),
  volumeMounts: z.array(z.object({ name: z.string(), mountPath: z.string() })).nullish(),
});
export type ContainerTemplateWire = z.infer<typeof ContainerTemplateWire>;

export const AppWire = z.object({
  id: z.string(),
  name: z.string(),
  status: z.string().nullish(),
  runtimeType: z.string().nullish(),
  autoScaling: z.object({ min: WireInt, max: WireInt }).nullish(),
  regionSettings: z
    .object({
      allowedRegionIds: z.array(z.string()).nullish(),
      requiredRegionIds: z.array(z.string()).nullish(),
      maxAllowedRegions: WireInt.nullish(),
      provisioningType: z.string().nullish(),
    })
    .nullish(),
  containerTemplates: z.array(ContainerTemplateWire),
  /** `size` is a double in the GET schema. */
  volumes: z.array(z.object({ name: z.string(), size: z.number() })).nullish(),
});
export type AppWire = z.infer<typeof AppWire>;

/** E4 request body pieces (PatchApplicationRequest), built by edgesync. */
export interface PortMappingRequest {
  containerPort: number;
  exposedPort?: number;
  protocols?: string[];
}
export interface EndpointRequest {
  displayName: string;
  cdn?: {
    isSslEnabled?: boolean;
    pullZoneId?: number;
    stickySessions?: { enabled: boolean; sessionHeaders?: string[]; cookieName?: string };
    portMappings: PortMappingRequest[];
  };
  anycast?: { type: string; portMappings: PortMappingRequest[] };
}
export interface ProbeRequest {
  initialDelaySeconds?: number;
  periodSeconds?: number;
  timeoutSeconds?: number;
  failureThreshold?: number;
  successThreshold?: number;
  httpGet?: { request: { path: string; portNumber: number }; response?: { expectedStatusCode?: string } };
  tcpSocket?: { request: { portNumber: number } };
  grpc?: { request: { portNumber: number; serviceName?: string } };
}
/** A secret's value is a SensitiveValue: it prints as `(sensitive)`, and is sent as it is. */
export interface EnvironmentVariableRequest {
  name: string;
  value: string | SensitiveValue;
}
export interface ContainerRequest {
  /** Present: update of that live template. Absent: a new container. */
  id?: string;
  name: string;
  imageName: string;
  imageNamespace: string;
  imageTag: string;
  imageRegistryId: string;
  image?: string;
  imageDigest?: string;
  imagePullPolicy?: string;
  entryPoint?: {
    command?: string;
    commandArray?: string[];
    arguments?: string;
    argumentsArray?: string[];
    workingDirectory?: string;
  };
  probes?: { startup?: ProbeRequest; readiness?: ProbeRequest; liveness?: ProbeRequest };
  environmentVariables?: EnvironmentVariableRequest[];
  endpoints?: EndpointRequest[];
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}
export interface PatchAppRequest {
  name?: string;
  runtimeType?: string;
  autoScaling?: { min: number; max: number };
  regionSettings?: {
    allowedRegionIds?: string[];
    requiredRegionIds?: string[];
    maxAllowedRegions?: number;
    nodeSelectors?: Record<string, string>;
  };
  containerTemplates?: ContainerRequest[];
  volumes?: Array<{ name: string; size: number }>;
}

export const PatchAppReplyWire = z.object({ id: z.string() });

/** `POST /mc/apps`: the AddApplicationRequest (name, runtimeType, autoScaling and regionSettings required). */
export interface CreateAppRequest extends PatchAppRequest {
  name: string;
  runtimeType: string;
  autoScaling: { min: number; max: number };
  regionSettings: NonNullable<PatchAppRequest['regionSettings']>;
}

/** `POST /mc/apps` answers 201 `{id}`. */
export const CreatedAppWire = z.object({ id: z.string() });

/** One app of `GET /mc/apps` (ListApplicationsResponse item). */
export const AppListItemWire = z.object({ id: z.string(), name: z.string(), status: z.string().nullish() });
export type AppListItemWire = z.infer<typeof AppListItemWire>;

/** `GET /mc/apps`: cursor-paged; `cursor` is null (or absent) on the last page. */
export const AppListWire = z.object({
  items: z.array(AppListItemWire).nullish(),
  cursor: z.string().nullish(),
});
export type AppListWire = z.infer<typeof AppListWire>;

/** `GET /mc/apps/{id}/overview`: the rollout's state, per region, pod and container. */
export const AppOverviewWire = z.object({
  status: z.string().nullish(),
  regions: z
    .array(
      z.object({
        region: z.string().nullish(),
        pods: z
          .array(
            z.object({
              name: z.string().nullish(),
              containers: z
                .array(
                  z.object({
                    name: z.string().nullish(),
                    status: z.string().nullish(),
                    reason: z.string().nullish(),
                    message: z.string().nullish(),
                    numberOfRestarts: z.number().nullish(),
                  }),
                )
                .nullish(),
            }),
          )
          .nullish(),
      }),
    )
    .nullish(),
});
export type AppOverviewWire = z.infer<typeof AppOverviewWire>;
