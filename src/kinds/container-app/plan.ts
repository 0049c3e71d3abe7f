/**
 * Plan for a ContainerApp: E4 merge-patch with only the top-level fields that differ.
 *
 * The API replaces containerTemplates, volumes and endpoints: an item without an id is created
 * and a live item left out is deleted. So when one of these arrays must change it is sent
 * whole: desired items matched to live ones by name (displayName for endpoints) carry the live
 * container id and the live values of every field the YAML leaves out, new items go without
 * id, and a live item the YAML no longer lists is a deletion, refused unless allowDeletions.
 */
import { writeRequests } from '../../api/operations.js';
import type {
  ContainerRequest,
  EndpointRequest,
  PatchAppRequest,
  PortMappingRequest,
  ProbeRequest,
} from '../../api/wire/mc.js';
import { compact, diffDeclared, jsonEqual, overlay } from '../common/diff.js';
import type { KindPlan, PlanContext } from '../common/kind.js';
import type { DesiredResource, FieldDiff, PlanError } from '../types.js';
import type { LiveApp, LiveContainer } from './convert.js';
import {
  type ContainerAppSpec,
  type ContainerSpec,
  type EndpointSpec,
  OPTIMAL_REGION,
  type ProbeSpec,
  usesOptimalRegion,
} from './spec.js';

const PROBE_HANDLERS = ['httpGet', 'tcpSocket', 'grpc'] as const;
const PROBE_KINDS = ['startup', 'readiness', 'liveness'] as const;
const NEW_CONTAINER_REQUIRED = ['imageRegistryId', 'imageNamespace', 'imageName', 'imageTag'] as const;

/** Compares two keyed lists: matched items via `onMatch`, plus additions and removals. */
function diffKeyed<D, L>(
  desired: readonly D[],
  live: readonly L[],
  desiredKey: (item: D) => string,
  liveKey: (item: L) => string,
  path: string,
  out: FieldDiff[],
  options: {
    onMatch: (d: D, l: L, itemPath: string) => void;
    showAdded: (d: D) => unknown;
    showRemoved: (l: L) => unknown;
    destructive: boolean;
  },
): void {
  const liveByKey = new Map(live.map((l) => [liveKey(l), l]));
  const desiredKeys = new Set<string>();
  for (const d of desired) {
    const key = desiredKey(d);
    desiredKeys.add(key);
    const l = liveByKey.get(key);
    if (l === undefined)
      out.push({ path: `${path}[${key}]`, live: undefined, desired: options.showAdded(d) });
    else options.onMatch(d, l, `${path}[${key}]`);
  }
  for (const l of live) {
    const key = liveKey(l);
    if (!desiredKeys.has(key)) {
      out.push({
        path: `${path}[${key}]`,
        live: options.showRemoved(l),
        desired: undefined,
        ...(options.destructive ? { destructive: true } : {}),
      });
    }
  }
}

/** Names of environment variables whose values plans and audit logs do not print. */
const SENSITIVE_ENV_NAME = /(secret|token|passw(or)?d|private|credential|api_?key|access_?key|auth)/i;

/** An env value as plans show it: `(sensitive)` for secret-looking names (Terraform's `sensitive`). */
function showEnvValue(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return SENSITIVE_ENV_NAME.test(name) ? '(sensitive)' : value;
}

function probeHandler(
  probe: ProbeRequest | ProbeSpec | undefined,
): (typeof PROBE_HANDLERS)[number] | undefined {
  return PROBE_HANDLERS.find((h) => probe?.[h] !== undefined);
}

function diffPortMappings(
  desired: readonly PortMappingRequest[],
  live: readonly PortMappingRequest[],
  path: string,
  out: FieldDiff[],
): void {
  diffKeyed(
    desired,
    live,
    (p) => String(p.containerPort),
    (p) => String(p.containerPort),
    path,
    out,
    {
      onMatch: (d, l, itemPath) => diffDeclared(d, l, itemPath, out),
      showAdded: (d) => d,
      showRemoved: (l) => l,
      destructive: false,
    },
  );
}

function diffEndpoint(d: EndpointSpec, l: EndpointRequest, path: string, out: FieldDiff[]): void {
  const desiredType = d.cdn !== undefined ? 'cdn' : 'anycast';
  const liveType = l.cdn !== undefined ? 'cdn' : 'anycast';
  if (desiredType !== liveType) {
    out.push({ path: `${path}.type`, live: liveType, desired: desiredType });
    return;
  }
  const dBlock = d.cdn ?? d.anycast;
  const lBlock = l.cdn ?? l.anycast;
  if (dBlock === undefined || lBlock === undefined) return;
  const { portMappings: dPorts, ...dRest } = dBlock;
  const { portMappings: lPorts, ...lRest } = lBlock;
  diffDeclared(dRest, lRest, `${path}.${desiredType}`, out);
  diffPortMappings(dPorts, lPorts, `${path}.${desiredType}.portMappings`, out);
}

function diffContainer(d: ContainerSpec, l: LiveContainer, path: string, out: FieldDiff[]): void {
  const live = l.request;
  const { environmentVariables, endpoints, volumeMounts, probes, name: _name, ...rest } = d;
  diffDeclared(rest, { ...live, ...l.observed }, path, out);
  for (const kind of PROBE_KINDS) {
    const dp = probes?.[kind];
    if (dp === undefined) continue;
    const lp = live.probes?.[kind];
    const probePath = `${path}.probes.${kind}`;
    diffDeclared(dp, lp, probePath, out);
    const liveHandler = probeHandler(lp);
    if (liveHandler !== undefined && liveHandler !== probeHandler(dp)) {
      out.push({ path: `${probePath}.${liveHandler}`, live: lp?.[liveHandler], desired: undefined });
    }
  }
  if (environmentVariables !== undefined) {
    diffKeyed(
      environmentVariables,
      live.environmentVariables ?? [],
      (v) => v.name,
      (v) => v.name,
      `${path}.environmentVariables`,
      out,
      {
        onMatch: (dv, lv, itemPath) => {
          if (dv.value !== undefined && dv.value !== lv.value) {
            out.push({
              path: itemPath,
              live: showEnvValue(lv.name, lv.value),
              desired: showEnvValue(dv.name, dv.value),
            });
          }
        },
        showAdded: (dv) => showEnvValue(dv.name, dv.value ?? ''),
        showRemoved: (lv) => showEnvValue(lv.name, lv.value),
        destructive: false,
      },
    );
  }
  if (endpoints !== undefined) {
    diffKeyed(
      endpoints,
      live.endpoints ?? [],
      (e) => e.displayName,
      (e) => e.displayName,
      `${path}.endpoints`,
      out,
      {
        onMatch: (de, le, itemPath) => diffEndpoint(de, le, itemPath, out),
        showAdded: (de) => de,
        showRemoved: (le) => le,
        destructive: true,
      },
    );
  }
  if (volumeMounts !== undefined) {
    diffKeyed(
      volumeMounts,
      live.volumeMounts ?? [],
      (m) => m.name,
      (m) => m.name,
      `${path}.volumeMounts`,
      out,
      {
        onMatch: (dm, lm, itemPath) => diffDeclared(dm.mountPath, lm.mountPath, `${itemPath}.mountPath`, out),
        showAdded: (dm) => dm.mountPath,
        showRemoved: (lm) => lm.mountPath,
        destructive: false,
      },
    );
  }
}

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

/** The request item for a desired container, filled from its live twin when there is one. */
function containerRequest(d: ContainerSpec, live: LiveContainer | undefined): ContainerRequest {
  const base = live?.request;
  const liveEnv = new Map((base?.environmentVariables ?? []).map((v) => [v.name, v.value]));
  const liveEndpoints = new Map((base?.endpoints ?? []).map((e) => [e.displayName, e]));
  return compact({
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
    environmentVariables:
      d.environmentVariables?.map((v) => ({ name: v.name, value: v.value ?? liveEnv.get(v.name) ?? '' })) ??
      base?.environmentVariables,
    endpoints: d.endpoints?.map((e) => mergeEndpoint(liveEndpoints.get(e.displayName), e)) ?? base?.endpoints,
    volumeMounts: d.volumeMounts ?? base?.volumeMounts,
  });
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return jsonEqual([...new Set(a)].sort(), [...new Set(b)].sort());
}

/** Replaces `@optimal` with E7's region id, keeping order and dropping a resulting duplicate. */
export function resolveOptimal(
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
  const l = live.regionSettings;
  const allowed = resolveOptimal(d.allowedRegionIds, optimal);
  const required = resolveOptimal(d.requiredRegionIds, optimal);
  const before = diffs.length;
  if (allowed !== undefined && !sameSet(allowed, l.allowedRegionIds)) {
    diffs.push({ path: 'regionSettings.allowedRegionIds', live: l.allowedRegionIds, desired: allowed });
  }
  if (required !== undefined && !sameSet(required, l.requiredRegionIds)) {
    diffs.push({ path: 'regionSettings.requiredRegionIds', live: l.requiredRegionIds, desired: required });
  }
  if (d.maxAllowedRegions !== undefined && d.maxAllowedRegions !== l.maxAllowedRegions) {
    diffs.push({
      path: 'regionSettings.maxAllowedRegions',
      live: l.maxAllowedRegions,
      desired: d.maxAllowedRegions,
    });
  }
  // The API never returns nodeSelectors: compare with what the last apply sent.
  if (d.nodeSelectors !== undefined && !jsonEqual(remembered?.nodeSelectors, d.nodeSelectors)) {
    diffs.push({
      path: 'regionSettings.nodeSelectors',
      live: remembered?.nodeSelectors ?? '(not readable from the API)',
      desired: d.nodeSelectors,
    });
  }
  if (diffs.length === before) return undefined;
  const maxAllowedRegions = d.maxAllowedRegions ?? l.maxAllowedRegions ?? undefined;
  return compact({
    allowedRegionIds: allowed ?? l.allowedRegionIds,
    requiredRegionIds: required ?? l.requiredRegionIds,
    maxAllowedRegions,
    nodeSelectors: d.nodeSelectors,
  });
}

function containerSummary(c: ContainerSpec | Omit<ContainerRequest, 'id'>): string {
  return `${c.imageNamespace ?? '?'}/${c.imageName ?? '?'}:${c.imageTag ?? '?'}`;
}

function planContainers(
  spec: ContainerAppSpec,
  live: LiveApp,
  diffs: FieldDiff[],
  problems: string[],
): ContainerRequest[] | undefined {
  const desired = spec.containerTemplates;
  if (desired === undefined) return undefined;
  const before = diffs.length;
  diffKeyed(
    desired,
    live.containers,
    (c) => c.name,
    (c) => c.request.name,
    'containerTemplates',
    diffs,
    {
      onMatch: (d, l, path) => diffContainer(d, l, path, diffs),
      showAdded: (d) => `new container ${containerSummary(d)}`,
      showRemoved: (l) => `container ${l.id} ${containerSummary(l.request)}`,
      destructive: true,
    },
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
  return desired.map((d) => containerRequest(d, liveByName.get(d.name)));
}

function planVolumes(spec: ContainerAppSpec, live: LiveApp, diffs: FieldDiff[]): PatchAppRequest['volumes'] {
  const desired = spec.volumes;
  if (desired === undefined) return undefined;
  const before = diffs.length;
  diffKeyed(
    desired,
    live.volumes,
    (v) => v.name,
    (v) => v.name,
    'volumes',
    diffs,
    {
      onMatch: (d, l, path) => diffDeclared(d.size, l.size, `${path}.size`, diffs),
      showAdded: (d) => `${d.size} GB`,
      showRemoved: (l) => `${l.size} GB`,
      destructive: true,
    },
  );
  return diffs.length === before ? undefined : desired.map((v) => ({ name: v.name, size: v.size }));
}

/** Pure plan of one app against its live state. */
export function planApp(
  desired: DesiredResource<ContainerAppSpec>,
  live: LiveApp,
  ctx: PlanContext,
): KindPlan {
  const spec = desired.spec;
  let optimal: string | undefined;
  if (usesOptimalRegion(spec)) {
    const region = ctx.optimalRegion;
    if (region === undefined || 'error' in region) {
      const error: PlanError = {
        code: region?.error.code ?? 'READ_FAILED',
        message: `cannot resolve ${OPTIMAL_REGION}: ${region?.error.message ?? 'the optimal region was not read'}`,
      };
      return { diffs: [], requests: [], error };
    }
    optimal = region.id;
  }

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
  const regionSettings = planRegionSettings(spec, live, optimal, remembered, diffs);
  if (regionSettings !== undefined) body.regionSettings = regionSettings;
  const containerTemplates = planContainers(spec, live, diffs, problems);
  if (containerTemplates !== undefined) body.containerTemplates = containerTemplates;
  const volumes = planVolumes(spec, live, diffs);
  if (volumes !== undefined) body.volumes = volumes;

  const remember =
    spec.regionSettings?.nodeSelectors === undefined
      ? undefined
      : { nodeSelectors: spec.regionSettings.nodeSelectors };
  const deletions = diffs.filter((d) => d.destructive).map((d) => d.path);
  if (deletions.length > 0 && spec.allowDeletions !== true) {
    problems.push(`would delete ${deletions.join(', ')}; set allowDeletions: true to allow it`);
    return { diffs, requests: [], error: { code: 'PLAN_UNSAFE', message: problems.join('; ') } };
  }
  if (problems.length > 0)
    return { diffs, requests: [], error: { code: 'PLAN_UNSAFE', message: problems.join('; ') } };
  if (Object.keys(body).length === 0) return { diffs, requests: [], ...(remember ? { remember } : {}) };
  return { diffs, requests: [writeRequests.patchApp(spec.appId, body)], ...(remember ? { remember } : {}) };
}
