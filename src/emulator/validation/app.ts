/**
 * E4 request body (`PatchApplicationRequest`) validation: the seed's fields plus the real
 * API's `autoScaling`, `runtimeType`, `imagePullPolicy`, `stickySessions`, `anycast`, `image`
 * and `imageDigest` (the documented exception to "no additional properties"); every object
 * strict. Ranges and patterns follow the MC OpenAPI file. Patterns are anchored because the
 * real server is ASP.NET, whose RegularExpressionAttribute requires a whole-string match.
 *
 * Cross-item rules (ids that must exist, unique names, mounts that name a volume) need the
 * live app and live in `app-patch.ts`.
 */
import { z } from 'zod';
import { IMAGE_PULL_POLICIES, PORT_PROTOCOLS, RUNTIME_TYPES } from '../../domain/enums.js';
import { caseInsensitiveEnum } from './enum.js';

/** The seed's app name rule: 1-100 characters of letters, digits, '-' and whitespace. */
const APP_NAME_PATTERN = /^[A-Za-z0-9-\s]+$/;
/** The spec's patterns as written there, for messages (ASP.NET quotes the attribute's pattern). */
const IMAGE_PART_PATTERN_TEXT = '[a-zA-Z0-9]+(?:[./_-]{1,2}[a-zA-Z0-9]+)*';
const IMAGE_TAG_PATTERN_TEXT = '[a-zA-Z0-9]+(?:[._-]{1,2}[a-zA-Z0-9]+)*';
const MOUNT_PATH_PATTERN_TEXT = '^/(?!.*//)(?!.*\\.\\.)(?!.*\\s)([a-zA-Z0-9._-]+/?)+$';
const IMAGE_PART_PATTERN = /^[a-zA-Z0-9]+(?:[./_-]{1,2}[a-zA-Z0-9]+)*$/;
const IMAGE_TAG_PATTERN = /^[a-zA-Z0-9]+(?:[._-]{1,2}[a-zA-Z0-9]+)*$/;
const IMAGE_DIGEST_PATTERN = /^sha256:[a-z0-9]{64}$/;
// The spec's `^/(?!.*//)(?!.*\.\.)(?!.*\s)([a-zA-Z0-9._-]+/?)+$` has a nested quantifier that
// backtracks exponentially on long near-misses; this is the same language without it.
const MOUNT_PATH_PATTERN = /^\/(?!.*\/\/)(?!.*\.\.)[a-zA-Z0-9._/-]+$/;

/** ASP.NET's display name: the C# property, i.e. the JSON name with a capital. */
const pascal = (field: string): string => field.charAt(0).toUpperCase() + field.slice(1);

/** `[Range(min, max)]` as ASP.NET words it. */
function intRange(field: string, min: number, max: number): z.ZodType<number> {
  const message = `The field ${pascal(field)} must be between ${min} and ${max}.`;
  return z.number().int().min(min, { message }).max(max, { message });
}

/** `[RegularExpression(pattern)]` in ASP.NET's words, quoting the spec's pattern. */
function matches(field: string, pattern: string): { message: string } {
  return { message: `The field ${pascal(field)} must match the regular expression '${pattern}'.` };
}

/** `[MinLength]`/`[MaxLength]` on an array, in ASP.NET's words. */
function arrayLength(field: string, bound: 'minimum' | 'maximum', n: number): { message: string } {
  return {
    message: `The field ${pascal(field)} must be a string or array type with a ${bound} length of '${n}'.`,
  };
}

function text(field: string, min: number, max?: number): z.ZodString {
  // `[StringLength(max, MinimumLength = min)]`, or `[MinLength(min)]` alone, in ASP.NET's words.
  const message =
    max === undefined
      ? `The field ${pascal(field)} must be a string or array type with a minimum length of '${min}'.`
      : `The field ${pascal(field)} must be a string with a minimum length of ${min} and a maximum length of ${max}.`;
  let s = z.string().min(min, { message });
  if (max !== undefined) s = s.max(max, { message });
  return s;
}

const port = (field: string) => intRange(field, 1, 65535);

/**
 * `expectedStatusCode`: the MC spec's HttpStatusCode is a *string* enum of camelCase status
 * names (`ok`, `notFound`); the shape is checked, not the name list.
 */
const ExpectedStatusCode = z.string().regex(/^[a-z][A-Za-z]*$/, {
  message: 'The JSON value could not be converted to HttpStatusCode (a camelCase status name such as ok).',
});

const ProbeRequest = z.strictObject({
  initialDelaySeconds: intRange('initialDelaySeconds', 1, 3600).nullable().optional(),
  periodSeconds: intRange('periodSeconds', 1, 3600).nullable().optional(),
  timeoutSeconds: intRange('timeoutSeconds', 1, 3600).nullable().optional(),
  failureThreshold: intRange('failureThreshold', 1, 1000).nullable().optional(),
  successThreshold: intRange('successThreshold', 1, 1000).nullable().optional(),
  httpGet: z
    .strictObject({
      request: z
        .strictObject({ path: z.string().optional(), portNumber: port('portNumber').optional() })
        .optional(),
      response: z.strictObject({ expectedStatusCode: ExpectedStatusCode.optional() }).optional(),
    })
    .optional(),
  tcpSocket: z
    .strictObject({ request: z.strictObject({ portNumber: port('portNumber').optional() }).optional() })
    .optional(),
  grpc: z
    .strictObject({
      request: z
        .strictObject({
          portNumber: port('portNumber').optional(),
          serviceName: z.string().nullable().optional(),
        })
        .optional(),
    })
    .optional(),
});
export type ProbeRequest = z.infer<typeof ProbeRequest>;

const PortMappingRequest = z.strictObject({
  containerPort: port('containerPort'),
  exposedPort: port('exposedPort').nullable().optional(),
  protocols: z.array(caseInsensitiveEnum('Protocol', PORT_PROTOCOLS)).optional(),
});
export type PortMappingRequest = z.infer<typeof PortMappingRequest>;

const StickySessionRequest = z.strictObject({
  enabled: z.boolean().optional(),
  sessionHeaders: z
    .array(z.string())
    .min(1, arrayLength('sessionHeaders', 'minimum', 1))
    .max(3, arrayLength('sessionHeaders', 'maximum', 3)),
  cookieName: z.string().optional(),
});

const CdnEndpointRequest = z.strictObject({
  isSslEnabled: z.boolean().optional(),
  stickySessions: StickySessionRequest.optional(),
  pullZoneId: z.number().int().nullable().optional(),
  portMappings: z
    .array(PortMappingRequest)
    .min(1, arrayLength('portMappings', 'minimum', 1))
    .max(1, arrayLength('portMappings', 'maximum', 1)),
});

const AnycastEndpointRequest = z.strictObject({
  type: caseInsensitiveEnum('AnycastIpProtocolVersion', ['iPv4'] as const),
  portMappings: z.array(PortMappingRequest).min(1, arrayLength('portMappings', 'minimum', 1)),
});

/** An endpoint: exactly one of `cdn` and `anycast`. No `id`: endpoints are matched by displayName. */
export const EndpointRequest = z
  .strictObject({
    displayName: text('displayName', 1, 50),
    cdn: CdnEndpointRequest.optional(),
    anycast: AnycastEndpointRequest.optional(),
  })
  .superRefine((endpoint, ctx) => {
    if ((endpoint.cdn === undefined) === (endpoint.anycast === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['cdn'],
        message: 'An endpoint needs exactly one of cdn and anycast.',
      });
    }
  });
export type EndpointRequest = z.infer<typeof EndpointRequest>;

const EntryPointRequest = z.strictObject({
  command: z.string().nullable().optional(),
  commandArray: z.array(z.string()).nullable().optional(),
  arguments: z.string().nullable().optional(),
  argumentsArray: z.array(z.string()).nullable().optional(),
  workingDirectory: z.string().nullable().optional(),
});

/** One container template of the request; `id` present = update that template, absent = create. */
export const ContainerRequest = z.strictObject({
  id: z.string().nullable().optional(),
  name: text('name', 1, 50),
  image: z.string().nullable().optional(),
  imageName: text('imageName', 1).regex(IMAGE_PART_PATTERN, {
    ...matches('imageName', IMAGE_PART_PATTERN_TEXT),
  }),
  // "" is a Docker Hub library image (`nginx`): the official bunny CLI's `apps push` sends it,
  // and the real API accepts it although the spec says minLength 1.
  imageNamespace: z.literal('').or(
    text('imageNamespace', 1).regex(IMAGE_PART_PATTERN, {
      ...matches('imageNamespace', IMAGE_PART_PATTERN_TEXT),
    }),
  ),
  imageTag: text('imageTag', 1).regex(IMAGE_TAG_PATTERN, {
    ...matches('imageTag', IMAGE_TAG_PATTERN_TEXT),
  }),
  imageDigest: z
    .string()
    .regex(IMAGE_DIGEST_PATTERN, matches('imageDigest', 'sha256:[a-z0-9]{64}'))
    .nullable()
    .optional(),
  // Required, but "" is accepted although the spec says minLength 1: the official bunny CLI
  // sends "" for every container whose bunny.jsonc names no registry (`apps push`, `deploy
  // --image`), and the API's owner would not ship a client the API refuses.
  imageRegistryId: z.string(),
  imagePullPolicy: caseInsensitiveEnum('ImagePullPolicy', IMAGE_PULL_POLICIES).optional(),
  entryPoint: EntryPointRequest.optional(),
  probes: z
    .strictObject({
      startup: ProbeRequest.optional(),
      readiness: ProbeRequest.optional(),
      liveness: ProbeRequest.optional(),
    })
    .optional(),
  environmentVariables: z
    .array(z.strictObject({ name: text('name', 1), value: z.string().optional() }))
    .optional(),
  endpoints: z.array(EndpointRequest).optional(),
  volumeMounts: z
    .array(
      z.strictObject({
        name: text('name', 1, 50),
        mountPath: text('mountPath', 1).regex(MOUNT_PATH_PATTERN, {
          ...matches('mountPath', MOUNT_PATH_PATTERN_TEXT),
        }),
      }),
    )
    .optional(),
});
export type ContainerRequest = z.infer<typeof ContainerRequest>;

/** A volume: matched by name (the request has no id), size in GB. */
export const VolumeRequest = z.strictObject({
  name: text('name', 1, 50),
  size: intRange('size', 1, 100),
});
export type VolumeRequest = z.infer<typeof VolumeRequest>;

/** `autoScaling`: both bounds required, 1-1000. */
export const AutoScalingRequest = z.strictObject({
  min: intRange('min', 1, 1000),
  max: intRange('max', 1, 1000),
});

/** `regionSettings`: every field optional; `nodeSelectors` is a string map (write-only in the real API). */
export const RegionSettingsRequest = z.strictObject({
  allowedRegionIds: z.array(z.string()).nullable().optional(),
  requiredRegionIds: z.array(z.string()).nullable().optional(),
  // No range: no source states one (the spec has none; issue 27's fuzzer flagged 1-1000).
  maxAllowedRegions: z.number().int().nullable().optional(),
  nodeSelectors: z.record(z.string(), z.string()).nullable().optional(),
});
export type RegionSettingsRequest = z.infer<typeof RegionSettingsRequest>;

/** The app name as E4 checks it. */
export const AppName = text('name', 1, 100).regex(APP_NAME_PATTERN, {
  ...matches('name', '[A-Za-z0-9-\\s]+'),
});

/**
 * `PatchContainerRequest` (`PATCH /mc/apps/{appId}/containers/{containerId}`): every field of a
 * container but its id, each optional; what is left out keeps its value. The official CLI's
 * `apps deploy --image` sends the image fields (`imageNamespace: ""` for a Docker Hub library image).
 */
export const PatchContainerRequest = ContainerRequest.omit({ id: true }).partial();
export type PatchContainerRequest = z.infer<typeof PatchContainerRequest>;

/** The E4 body. `name`, `containerTemplates` and `volumes` are nullable in the spec; null keeps. */
export const PatchApplicationRequest = z.strictObject({
  name: AppName.nullable().optional(),
  runtimeType: caseInsensitiveEnum('ApplicationRuntimeType', RUNTIME_TYPES).optional(),
  autoScaling: AutoScalingRequest.optional(),
  regionSettings: RegionSettingsRequest.optional(),
  containerTemplates: z.array(ContainerRequest).nullable().optional(),
  volumes: z.array(VolumeRequest).nullable().optional(),
});
export type PatchApplicationRequest = z.infer<typeof PatchApplicationRequest>;

/**
 * `PUT /mc/apps/{appId}/containers/{containerId}/env` body: an object of string values that
 * replaces every variable; a name must not be empty (`EnvironmentVariable.name` minLength 1).
 */
export const ContainerEnvRequest = z.record(z.string(), z.string()).superRefine((env, ctx) => {
  if (Object.hasOwn(env, '')) {
    ctx.addIssue({
      code: 'custom',
      path: [''],
      message: "The field Name must be a string or array type with a minimum length of '1'.",
    });
  }
});
