/**
 * What differs between a desired app and its live state, field by field: containers, volumes
 * and endpoints matched by name (displayName for endpoints), environment variables by name
 * (env.ts), region lists as sets. Only declared fields are compared; the FieldDiffs carry
 * display values only (secrets already `(sensitive)`).
 */
import type {
  ContainerRequest,
  EndpointRequest,
  PortMappingRequest,
  ProbeRequest,
} from '../../api/wire/mc.js';
import { diffDeclared, jsonEqual } from '../common/diff.js';
import type { FieldDiff } from '../types.js';
import type { LiveApp, LiveContainer } from './convert.js';
import { type DesiredVariable, diffVariables, type VariableKinds } from './env.js';
import type { ContainerAppSpec, ContainerSpec, EndpointSpec, ProbeSpec } from './spec.js';

export const PROBE_HANDLERS = ['httpGet', 'tcpSocket', 'grpc'] as const;
const PROBE_KINDS = ['startup', 'readiness', 'liveness'] as const;

/** The handler a probe uses (exactly one is set), if any. */
export function probeHandler(
  probe: ProbeRequest | ProbeSpec | undefined,
): (typeof PROBE_HANDLERS)[number] | undefined {
  return PROBE_HANDLERS.find((h) => probe?.[h] !== undefined);
}

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

function diffContainer(
  d: ContainerSpec,
  l: LiveContainer,
  variables: readonly DesiredVariable[] | undefined,
  applied: VariableKinds | undefined,
  path: string,
  out: FieldDiff[],
): void {
  const live = l.request;
  const { environmentVariables: _variables, endpoints, volumeMounts, probes, name: _name, ...rest } = d;
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
  if (variables !== undefined) {
    diffVariables(variables, live.environmentVariables ?? [], applied, `${path}.environmentVariables`, out);
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

function containerSummary(c: ContainerSpec | Omit<ContainerRequest, 'id'>): string {
  return `${c.imageNamespace ?? '?'}/${c.imageName ?? '?'}:${c.imageTag ?? '?'}`;
}

/**
 * Diffs of the declared containers (keyed by name); `variables` gives each one's resolved env,
 * `applied` how each container's variables were last applied (env.ts, `VariableKinds`).
 */
export function diffContainers(
  desired: readonly ContainerSpec[],
  live: LiveApp,
  variables: (container: ContainerSpec) => readonly DesiredVariable[] | undefined,
  applied: (container: string) => VariableKinds | undefined,
  out: FieldDiff[],
): void {
  diffKeyed(
    desired,
    live.containers,
    (c) => c.name,
    (c) => c.request.name,
    'containerTemplates',
    out,
    {
      onMatch: (d, l, path) => diffContainer(d, l, variables(d), applied(d.name), path, out),
      showAdded: (d) => `new container ${containerSummary(d)}`,
      showRemoved: (l) => `container ${l.id} ${containerSummary(l.request)}`,
      destructive: true,
    },
  );
}

/** Diffs of the declared volumes (keyed by name). */
export function diffVolumes(
  desired: ContainerAppSpec['volumes'] & {},
  live: LiveApp,
  out: FieldDiff[],
): void {
  diffKeyed(
    desired,
    live.volumes,
    (v) => v.name,
    (v) => v.name,
    'volumes',
    out,
    {
      onMatch: (d, l, path) => diffDeclared(d.size, l.size, `${path}.size`, out),
      showAdded: (d) => `${d.size} GB`,
      showRemoved: (l) => `${l.size} GB`,
      destructive: true,
    },
  );
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return jsonEqual([...new Set(a)].sort(), [...new Set(b)].sort());
}

/** The region settings with `@optimal` resolved, as the request and the diff use them. */
export interface ResolvedRegions {
  readonly allowed: string[] | undefined;
  readonly required: string[] | undefined;
}

/** Diffs of the declared region settings; nodeSelectors against what the last apply sent. */
export function diffRegionSettings(
  d: NonNullable<ContainerAppSpec['regionSettings']>,
  live: LiveApp,
  regions: ResolvedRegions,
  remembered: Readonly<Record<string, unknown>> | undefined,
  out: FieldDiff[],
): void {
  const l = live.regionSettings;
  if (regions.allowed !== undefined && !sameSet(regions.allowed, l.allowedRegionIds)) {
    out.push({ path: 'regionSettings.allowedRegionIds', live: l.allowedRegionIds, desired: regions.allowed });
  }
  if (regions.required !== undefined && !sameSet(regions.required, l.requiredRegionIds)) {
    out.push({
      path: 'regionSettings.requiredRegionIds',
      live: l.requiredRegionIds,
      desired: regions.required,
    });
  }
  if (d.maxAllowedRegions !== undefined && d.maxAllowedRegions !== l.maxAllowedRegions) {
    out.push({
      path: 'regionSettings.maxAllowedRegions',
      live: l.maxAllowedRegions,
      desired: d.maxAllowedRegions,
    });
  }
  // The API never returns nodeSelectors: compare with what the last apply sent.
  if (d.nodeSelectors !== undefined && !jsonEqual(remembered?.nodeSelectors, d.nodeSelectors)) {
    out.push({
      path: 'regionSettings.nodeSelectors',
      live: remembered?.nodeSelectors ?? '(not readable from the API)',
      desired: d.nodeSelectors,
    });
  }
}
