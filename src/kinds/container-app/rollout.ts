/**
 * The rollout of a container app (docs/reconcile.md, Rollout health): its health is
 * `GET /mc/apps/{id}/overview` (the app's status, and per region the pods' containers with
 * their status, restarts, reason and message); the spec kept to roll back to holds secrets
 * only as `valueFrom` references or keyed digests of sensitive literals.
 */
import type { AppOverviewWire } from '../../api/wire/mc.js';
import type { KindRollout } from '../common/kind.js';
import type { ContainerHealth, Health, HealthStatus } from '../common/rollout.js';
import type { ContainerAppSpec, EnvironmentVariableSpec } from './spec.js';

/** The default of `spec.rollout.timeoutSeconds` (docs/design.md, Container apps: lifecycle and rollout health). */
const DEFAULT_TIMEOUT_SECONDS = 300;

const STATUSES: ReadonlySet<string> = new Set(['active', 'progressing', 'failing', 'inactive', 'suspended']);

/** The overview as health: the app's status, and every container its pods list. */
function healthOf(overview: AppOverviewWire): Health {
  const status = (overview.status ?? 'unknown').toLowerCase();
  const containers: ContainerHealth[] = [];
  for (const region of overview.regions ?? []) {
    for (const pod of region.pods ?? []) {
      for (const c of pod.containers ?? []) {
        containers.push({
          name: c.name ?? '(unnamed)',
          ...(c.status == null ? {} : { status: c.status }),
          restarts: c.numberOfRestarts ?? 0,
          ...(c.reason == null || c.reason === '' ? {} : { reason: c.reason }),
          ...(c.message == null || c.message === '' ? {} : { message: c.message }),
        });
      }
    }
  }
  return { status: (STATUSES.has(status) ? status : 'unknown') as HealthStatus, containers };
}

/** A sensitive literal as the kept spec holds it: its name and a keyed digest of the value. */
interface KeptSecret {
  readonly name: string;
  readonly sensitive: true;
  readonly keptDigest: string;
}

function isKeptSecret(v: unknown): v is KeptSecret {
  return typeof v === 'object' && v !== null && typeof (v as KeptSecret).keptDigest === 'string';
}

function mapVariables(
  spec: ContainerAppSpec,
  map: (
    container: string,
    v: EnvironmentVariableSpec | KeptSecret,
  ) => EnvironmentVariableSpec | KeptSecret | undefined,
): ContainerAppSpec {
  if (spec.containerTemplates === undefined) return spec;
  return {
    ...spec,
    containerTemplates: spec.containerTemplates.map((c) =>
      c.environmentVariables === undefined
        ? c
        : {
            ...c,
            environmentVariables: c.environmentVariables
              .map((v) => map(c.name, v))
              .filter((v): v is EnvironmentVariableSpec => v !== undefined),
          },
    ),
  };
}

export const appRollout: KindRollout<ContainerAppSpec> = {
  settings(spec, action) {
    return {
      // A created app is deployed after unless `deploy: false`; without a deploy nothing starts.
      watch: !(action === 'create' && spec.deploy === false),
      timeoutMs: (spec.rollout?.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
      onFailure: spec.rollout?.onFailure ?? 'none',
    };
  },
  async readHealth(id, ctx) {
    return healthOf(await ctx.api.getAppOverview(String(id), { signal: ctx.signal }));
  },
  keep(spec, keyedDigest) {
    return mapVariables(spec, (_container, v) =>
      'sensitive' in v && v.sensitive === true && 'value' in v && v.value !== undefined
        ? { name: v.name, sensitive: true, keptDigest: keyedDigest(v.value) }
        : v,
    );
  },
  restore(kept, current, keyedDigest) {
    const notes: string[] = [];
    const spec = mapVariables(kept as ContainerAppSpec, (container, v) => {
      if (!isKeptSecret(v)) return v;
      const now = current.containerTemplates
        ?.find((c) => c.name === container)
        ?.environmentVariables?.find((e) => e.name === v.name);
      if (
        now?.value !== undefined &&
        now.valueFrom === undefined &&
        keyedDigest(now.value) === v.keptDigest
      ) {
        return { name: v.name, value: now.value, sensitive: true };
      }
      notes.push(
        `the earlier value of ${container}'s sensitive variable ${v.name} is not kept (only its digest): it keeps its current value`,
      );
      return undefined;
    });
    return { spec, notes };
  },
};
