/**
 * `ContainerApp` desired state → E4 `PATCH /mc/apps/{appId}` (merge-patch).
 *
 * Ranges and patterns are the seed's and the Magic Containers OpenAPI file's (api-notes E4).
 * Containers and volumes are keyed by `name`, endpoints by `displayName`: the engine matches
 * desired items to live ones by those keys, so each must be unique.
 */
import { z } from 'zod';
import { IMAGE_PULL_POLICIES, PORT_PROTOCOLS, RUNTIME_TYPES } from '../../domain/enums.js';
import {
  SECRET_ENV_NAME,
  SECRET_ENV_PREFIX,
  type SecretSource,
  secretEnvNameProblem,
  secretFilePathProblem,
} from '../../domain/secret-sources.js';
import { caseInsensitiveEnum, uniqueBy, whenValid } from '../common/fields.js';
import type { KindSpecModule, ResolveContext } from '../common/spec-module.js';

/** Placeholder resolved with E7 (optimal region) at plan time. */
export const OPTIMAL_REGION = '@optimal';

const Port = z.number().int('must be an integer').min(1, 'must be 1-65535').max(65535, 'must be 1-65535');
const Seconds = z.number().int('must be an integer').min(1, 'must be 1-3600').max(3600, 'must be 1-3600');
const Threshold = z.number().int('must be an integer').min(1, 'must be 1-1000').max(1000, 'must be 1-1000');
const ShortName = z.string().min(1, 'must not be empty').max(50, 'must be at most 50 characters');

const RegionId = z
  .string()
  .min(1, 'must not be empty')
  .refine((id) => !id.startsWith('@') || id === OPTIMAL_REGION, {
    error: (iss) =>
      `unknown region placeholder ${JSON.stringify(iss.input)}; the only one is ${OPTIMAL_REGION}`,
  });

/** Strict schema of `regionSettings` in the desired state (unknown keys are errors). */
const RegionSettingsSpec = z
  .strictObject({
    allowedRegionIds: z.array(RegionId).optional(),
    requiredRegionIds: z.array(RegionId).optional(),
    maxAllowedRegions: z.number().int().min(1, 'must be at least 1').optional(),
    /** Write-only in the real API (GET does not return it), so drift on it cannot be seen. */
    nodeSelectors: z.record(z.string(), z.string()).optional(),
  })
  .superRefine(
    (r, ctx) => {
      uniqueBy(r.allowedRegionIds ?? [], (id) => id, 'region', ctx, ['allowedRegionIds']);
      uniqueBy(r.requiredRegionIds ?? [], (id) => id, 'region', ctx, ['requiredRegionIds']);
      if (r.maxAllowedRegions !== undefined && (r.requiredRegionIds?.length ?? 0) > r.maxAllowedRegions) {
        ctx.addIssue({
          code: 'custom',
          path: ['maxAllowedRegions'],
          message: `is ${r.maxAllowedRegions}, fewer than the ${r.requiredRegionIds?.length} requiredRegionIds`,
        });
      }
      if (r.allowedRegionIds === undefined || r.requiredRegionIds === undefined) return;
      for (const [index, id] of r.requiredRegionIds.entries()) {
        if (!r.allowedRegionIds.includes(id)) {
          ctx.addIssue({
            code: 'custom',
            path: ['requiredRegionIds', index],
            message: `region ${id} is required but not in allowedRegionIds`,
          });
        }
      }
    },
    { when: whenValid('allowedRegionIds', 'requiredRegionIds', 'maxAllowedRegions') },
  );

const Protocols = z.array(caseInsensitiveEnum('protocol', PORT_PROTOCOLS));

/** Strict schema of an item of `portMappings` in the desired state (unknown keys are errors). */
const PortMappingSpec = z.strictObject({
  containerPort: Port,
  exposedPort: Port.optional(),
  protocols: Protocols.optional(),
});

/** Strict schema of an item of `endpoints` in the desired state (unknown keys are errors). */
export const EndpointSpec = z
  .strictObject({
    displayName: ShortName,
    cdn: z
      .strictObject({
        isSslEnabled: z.boolean().optional(),
        pullZoneId: z.number().int().positive().optional(),
        stickySessions: z
          .strictObject({
            enabled: z.boolean(),
            /** Required by the API's EndpointRequest (1-3 header names). */
            sessionHeaders: z.array(z.string().min(1)).min(1).max(3),
            cookieName: z.string().optional(),
          })
          .optional(),
        portMappings: z.array(PortMappingSpec).length(1, 'a CDN endpoint has exactly one port mapping'),
      })
      .optional(),
    anycast: z
      .strictObject({
        type: caseInsensitiveEnum('anycast type', ['iPv4'] as const),
        portMappings: z.array(PortMappingSpec).min(1, 'needs at least one port mapping'),
      })
      .optional(),
  })
  .refine((e) => (e.cdn === undefined) !== (e.anycast === undefined), {
    message: 'give exactly one of cdn or anycast',
    path: ['cdn'],
    when: whenValid('cdn', 'anycast'),
  });
/** The parsed (output) form of EndpointSpec: enums as the integers or spellings the API takes. */
export type EndpointSpec = z.infer<typeof EndpointSpec>;

/** Strict schema of one probe (startup, readiness or liveness) in the desired state (unknown keys are errors). */
export const ProbeSpec = z
  .strictObject({
    initialDelaySeconds: Seconds.optional(),
    periodSeconds: Seconds.optional(),
    timeoutSeconds: Seconds.optional(),
    failureThreshold: Threshold.optional(),
    successThreshold: Threshold.optional(),
    httpGet: z
      .strictObject({
        request: z.strictObject({ path: z.string().startsWith('/', 'must start with /'), portNumber: Port }),
        response: z.strictObject({ expectedStatusCode: z.string().min(1).optional() }).optional(),
      })
      .optional(),
    tcpSocket: z.strictObject({ request: z.strictObject({ portNumber: Port }) }).optional(),
    grpc: z
      .strictObject({ request: z.strictObject({ portNumber: Port, serviceName: z.string().optional() }) })
      .optional(),
  })
  .refine((p) => [p.httpGet, p.tcpSocket, p.grpc].filter((x) => x !== undefined).length === 1, {
    message: 'give exactly one of httpGet, tcpSocket or grpc',
    when: whenValid('httpGet', 'tcpSocket', 'grpc'),
  });
/** The parsed (output) form of ProbeSpec: enums as the integers or spellings the API takes. */
export type ProbeSpec = z.infer<typeof ProbeSpec>;

const MountPath = z
  .string()
  .startsWith('/', 'must be an absolute path')
  .refine((p) => !p.includes('..') && !p.includes('//') && !/\s/.test(p), {
    message: 'must not contain "..", "//" or spaces',
  });

/**
 * Where a secret variable's value comes from (docs/design.md, Secrets in container apps): an `EDGESYNC_SECRET_*` variable of
 * edgesync's own environment, or a file of the secrets directory. Read when the plan is made,
 * never by the loader, which stays offline and deterministic.
 */
const ValueFromSpec = z
  .strictObject({
    env: z
      .string()
      .regex(SECRET_ENV_NAME, { error: (iss) => secretEnvNameProblem(String(iss.input)) })
      .optional(),
    file: z
      .string()
      .superRefine((path, ctx) => {
        const problem = secretFilePathProblem(path);
        if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
      })
      // The gist of secretFilePathProblem for editors: relative, no empty or dot-led segment.
      .meta({ pattern: /^[^/.\\][^/\\]*(\/[^/.\\][^/\\]*)*$/.source })
      .optional(),
  })
  .meta({
    description: `a secret: env names an ${SECRET_ENV_PREFIX}* variable of edgesync's environment, file a file of --secrets-dir`,
    // Strict JSON Schema validators want each required key declared beside it.
    oneOf: [
      { properties: { env: true }, required: ['env'] },
      { properties: { file: true }, required: ['file'] },
    ],
  })
  .refine((v) => (v.env === undefined) !== (v.file === undefined), {
    message: 'give exactly one of env or file',
    when: whenValid('env', 'file'),
  })
  .transform((v): SecretSource => (v.env !== undefined ? { env: v.env } : { file: v.file ?? '' }));

/**
 * Strict schema of an item of `environmentVariables`: a literal `value` (hidden everywhere
 * with `sensitive: true`), a `valueFrom` (always sensitive), or only a name (the live value is
 * kept).
 */
export const EnvironmentVariableSpec = z
  .strictObject({
    name: z.string().min(1, 'must not be empty'),
    value: z
      .string()
      .nullable()
      .transform((v) => v ?? '')
      .optional(),
    valueFrom: ValueFromSpec.optional(),
    sensitive: z
      .boolean()
      .meta({
        description: 'true: the value is never printed (plans, logs, /status); valueFrom values always are',
      })
      .optional(),
  })
  .meta({ not: { properties: { value: true, valueFrom: true }, required: ['value', 'valueFrom'] } })
  .superRefine(
    (v, ctx) => {
      if (v.value !== undefined && v.valueFrom !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['valueFrom'],
          message: 'give either value or valueFrom, not both',
        });
      }
      if (v.valueFrom !== undefined && v.sensitive === false) {
        ctx.addIssue({
          code: 'custom',
          path: ['sensitive'],
          message: 'a value from valueFrom is always sensitive; leave sensitive out',
        });
      }
    },
    { when: whenValid('value', 'valueFrom', 'sensitive') },
  );
/** The parsed form of one environment variable. */
export type EnvironmentVariableSpec = z.infer<typeof EnvironmentVariableSpec>;

/** Strict schema of an item of `containerTemplates` in the desired state (unknown keys are errors). */
export const ContainerSpec = z.strictObject({
  name: ShortName,
  /** Registry ids are strings in the API; a YAML number is accepted and kept as its digits. */
  imageRegistryId: z.union([z.string().min(1), z.number().int().nonnegative().transform(String)]).optional(),
  /** `""` is a Docker Hub library image (`nginx`), as the API and the official CLI write it. */
  imageNamespace: z.string().optional(),
  imageName: z.string().min(1).optional(),
  imageTag: z
    .string()
    .regex(/^[\w][\w.-]{0,127}$/, 'is not a valid image tag')
    .optional(),
  image: z.string().min(1).optional(),
  imageDigest: z
    .string()
    .regex(/^sha256:[a-z0-9]{64}$/, 'must look like sha256:<64 hex characters>')
    .optional(),
  imagePullPolicy: caseInsensitiveEnum('imagePullPolicy', IMAGE_PULL_POLICIES).optional(),
  entryPoint: z
    .strictObject({
      command: z.string().optional(),
      commandArray: z.array(z.string()).optional(),
      arguments: z.string().optional(),
      argumentsArray: z.array(z.string()).optional(),
      workingDirectory: z.string().optional(),
    })
    .optional(),
  probes: z
    .strictObject({
      startup: ProbeSpec.optional(),
      readiness: ProbeSpec.optional(),
      liveness: ProbeSpec.optional(),
    })
    .optional(),
  environmentVariables: z
    .array(EnvironmentVariableSpec)
    .superRefine((vars, ctx) => uniqueBy(vars, (v) => v.name, 'environment variable', ctx))
    .optional(),
  endpoints: z.array(EndpointSpec).optional(),
  volumeMounts: z.array(z.strictObject({ name: ShortName, mountPath: MountPath })).optional(),
});
/** The parsed (output) form of ContainerSpec: enums as the integers or spellings the API takes. */
export type ContainerSpec = z.infer<typeof ContainerSpec>;

/** Strict schema of an item of `volumes` in the desired state (unknown keys are errors). */
const VolumeSpec = z.strictObject({
  name: ShortName,
  /** Gigabytes (10^9 bytes). */
  size: z.number().int('must be an integer (GB)').min(1, 'must be 1-100 (GB)').max(100, 'must be 1-100 (GB)'),
});

/** Strict schema of the `spec` of a ContainerApp document (unknown keys are errors). */
export const ContainerAppSpec = z
  .strictObject({
    /**
     * The app's id. Without it the app is found by the inventory, then by `name` in the
     * account's app listing, and created when no app has that name.
     */
    appId: z.string().min(1, 'must not be empty').optional(),
    name: z
      .string()
      .min(1, 'must be 1-100 characters')
      .max(100, 'must be 1-100 characters')
      .regex(/^[A-Za-z0-9\-\s]+$/, 'may contain only letters, digits, "-" and spaces')
      .optional(),
    runtimeType: caseInsensitiveEnum('runtimeType', RUNTIME_TYPES).optional(),
    autoScaling: z
      .strictObject({
        min: z.number().int().min(1, 'must be 1-1000').max(1000, 'must be 1-1000'),
        max: z.number().int().min(1, 'must be 1-1000').max(1000, 'must be 1-1000'),
      })
      .refine((a) => a.min <= a.max, {
        message: 'min must not exceed max',
        path: ['min'],
        when: whenValid('min', 'max'),
      })
      .optional(),
    regionSettings: RegionSettingsSpec.optional(),
    containerTemplates: z.array(ContainerSpec).min(1, 'an app needs at least one container').optional(),
    volumes: z.array(VolumeSpec).optional(),
    /** Lets the plan delete live containers, endpoints and volumes the YAML no longer lists. */
    allowDeletions: z.boolean().optional(),
    /** false: an app edgesync creates is not deployed (default true). */
    deploy: z.boolean().optional(),
    /**
     * How a write's rollout is watched (docs/reconcile.md, Rollout health): the app's overview
     * until `active`, for at most `timeoutSeconds`; `onFailure: rollback` applies the last
     * revision that reached `active` again. edgesync's own settings: never sent to the API.
     */
    rollout: z
      .strictObject({
        timeoutSeconds: z
          .number()
          .int('must be an integer')
          .min(1, 'must be 1-3600')
          .max(3600, 'must be 1-3600')
          .optional(),
        onFailure: z.enum(['none', 'rollback']).optional(),
      })
      .optional(),
  })
  .refine((app) => app.appId !== undefined || app.name !== undefined, {
    message: 'give the app a name (it is found or created by name) or an appId',
    path: ['name'],
    when: whenValid('appId', 'name'),
  })
  .superRefine(
    (app, ctx) => {
      const containers = app.containerTemplates ?? [];
      uniqueBy(containers, (c) => c.name, 'container name', ctx, ['containerTemplates']);
      uniqueBy(app.volumes ?? [], (v) => v.name, 'volume name', ctx, ['volumes']);
      const endpointNames = new Set<string>();
      const volumeNames = app.volumes === undefined ? undefined : new Set(app.volumes.map((v) => v.name));
      for (const [ci, container] of containers.entries()) {
        for (const [ei, endpoint] of (container.endpoints ?? []).entries()) {
          if (endpointNames.has(endpoint.displayName)) {
            ctx.addIssue({
              code: 'custom',
              path: ['containerTemplates', ci, 'endpoints', ei, 'displayName'],
              message: `duplicate endpoint displayName ${JSON.stringify(endpoint.displayName)} in this app`,
            });
          }
          endpointNames.add(endpoint.displayName);
        }
        for (const [mi, mount] of (container.volumeMounts ?? []).entries()) {
          if (volumeNames !== undefined && !volumeNames.has(mount.name)) {
            ctx.addIssue({
              code: 'custom',
              path: ['containerTemplates', ci, 'volumeMounts', mi, 'name'],
              message: `mounts volume ${JSON.stringify(mount.name)}, which is not in volumes`,
            });
          }
        }
      }
    },
    { when: whenValid('containerTemplates', 'volumes') },
  )
  .superRefine(
    (app, ctx) => {
      for (const path of placeholdersOutsideRegionLists(app, [])) {
        ctx.addIssue({
          code: 'custom',
          path,
          message: `${OPTIMAL_REGION} is only allowed in regionSettings.allowedRegionIds and requiredRegionIds`,
        });
      }
    },
    // Runs on whatever parsed: the walk reads any JSON value.
    { when: () => true },
  );
/** The parsed (output) form of ContainerAppSpec: enums as the integers or spellings the API takes. */
export type ContainerAppSpec = z.infer<typeof ContainerAppSpec>;

/** Whether a variable's value is never printed: it comes from valueFrom or is marked sensitive. */
export function isSensitiveVariable(v: EnvironmentVariableSpec): boolean {
  return v.valueFrom !== undefined || v.sensitive === true;
}

/** Whether any variable of the app is sensitive: then its digests are keyed (docs/design.md, Secrets in container apps). */
export function holdsSensitiveValues(spec: ContainerAppSpec): boolean {
  return (spec.containerTemplates ?? []).some((c) =>
    (c.environmentVariables ?? []).some(isSensitiveVariable),
  );
}

/** Whether the app's region lists name `@optimal`, so its plan needs E7's answer. */
export function usesOptimalRegion(spec: ContainerAppSpec): boolean {
  const r = spec.regionSettings;
  return [...(r?.allowedRegionIds ?? []), ...(r?.requiredRegionIds ?? [])].includes(OPTIMAL_REGION);
}

/**
 * Paths of string values equal to "@optimal" anywhere except the two region id lists: E7
 * resolves the placeholder only there, so anywhere else it would reach the API verbatim.
 * One path is extended and shortened as the walk goes, and copied only for a value found:
 * this runs over every node of every app of every load.
 */
function placeholdersOutsideRegionLists(
  value: unknown,
  path: (string | number)[],
  found: (string | number)[][] = [],
): (string | number)[][] {
  if (value === OPTIMAL_REGION) found.push([...path]);
  else if (Array.isArray(value)) {
    const parent = path.at(-1);
    const grandparent = path.at(-2);
    if (
      grandparent === 'regionSettings' &&
      (parent === 'allowedRegionIds' || parent === 'requiredRegionIds')
    ) {
      return found;
    }
    for (const [index, item] of value.entries()) {
      path.push(index);
      placeholdersOutsideRegionLists(item, path, found);
      path.pop();
    }
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      path.push(key);
      placeholdersOutsideRegionLists(item, path, found);
      path.pop();
    }
  }
  return found;
}

function resolveContainerApp(app: ContainerAppSpec, ctx: ResolveContext): ContainerAppSpec {
  if (app.regionSettings?.nodeSelectors !== undefined) {
    ctx.warn(
      ['regionSettings', 'nodeSelectors'],
      'nodeSelectors are write-only in the API: edgesync sends them but cannot see drift on them',
    );
  }
  return app;
}

/** The ContainerApp kind as the config loader sees it: schema, canonical form, target. */
export const containerAppSpec: KindSpecModule<ContainerAppSpec, ContainerAppSpec> = {
  kind: 'ContainerApp',
  schema: ContainerAppSpec,
  resolve: resolveContainerApp,
  // Without an appId the name is the app's key: two documents with one name are an error.
  target: (spec) =>
    spec.appId !== undefined ? `app (id ${spec.appId})` : `app (named ${JSON.stringify(spec.name)})`,
  targetPath: (spec) => (spec.appId !== undefined ? ['appId'] : ['name']),
  shieldZoneId: () => undefined,
};
