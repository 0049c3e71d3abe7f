/**
 * Plan phase, pure: desired resources + live snapshot + state → a Plan of plain data.
 * Safety checks live here too, so `plan` shows exactly what `apply` would refuse.
 */

import type { ApiRequest, WriteOperationId } from '../api/operations.js';
import type { DesiredResource } from '../config/types.js';
import type { ObjectId } from '../kinds/common/identity.js';
import type { KindPlan, PlanContext } from '../kinds/common/kind.js';
import { KINDS } from '../kinds/registry.js';
import type { PlanError } from '../kinds/types.js';
import { liveConflicts } from './conflicts.js';
import { type LifecycleOptions, planLifecycle } from './prune.js';
import type { LiveSnapshot } from './read.js';
import { driftCause, type ResourceRecord, type RolloutRecord } from './state.js';
import { type ChangeAction, isWrite, type Plan, type PlannedChange, type PlanSummary } from './types.js';

export interface PlanOptions {
  revision: string;
  /** Global drift mode (`--drift report`): nothing is written. */
  driftMode: 'correct' | 'report';
  /** Refuse a plan that updates more than this share of the managed resources (octoDNS's guard). */
  maxChangePercent: number;
  /** Resources under management, for the threshold; defaults to the planned resources. */
  managedCount?: number;
  /**
   * Writes an earlier reconcile of the same run already made (the daemon's first stage, see
   * daemon/run-stage.ts): they count against the threshold, so splitting a run never lets more
   * through than one plan of everything would.
   */
  writesBefore?: number;
  force: boolean;
  /** The state store's record of a subject. */
  record(subject: string): ResourceRecord | undefined;
  /** What the state knows of a subject's rollouts: a desired state rolled back from is not written (rollout.ts). */
  rollout?(subject: string): RolloutRecord | undefined;
  /** Custom rules and lists: claims, limits and pruning (prune.ts). Absent: none of it (a re-plan). */
  lifecycle?: LifecycleOptions;
  /** HMAC under the state's install key (`StateStore.keyedDigest`), for resources that hold secrets. */
  keyedDigest(data: string): string;
}

/**
 * The diffs and requests of a change that has none: one frozen empty list shared by every such
 * change, rather than two new ones per resource for every run's plan.
 */
const NONE: readonly never[] = Object.freeze([]);

/** The threshold applies only from this many managed resources on. */
const MIN_RESOURCES_FOR_THRESHOLD = 10;

function planOne(resource: DesiredResource, snapshot: LiveSnapshot, options: PlanOptions): PlannedChange {
  const kind = KINDS[resource.kind];
  const shieldZoneId = kind.spec.shieldZoneId(resource.spec);
  const base: Pick<PlannedChange, 'subject' | 'kind' | 'name' | 'source' | 'digest'> & {
    shieldZoneId?: number;
  } = {
    subject: resource.subject,
    kind: resource.kind,
    name: resource.name,
    source: resource.source,
    // The loader's digest covers a literal marked sensitive: keyed, it says nothing about it.
    digest:
      kind.holdsSensitiveValues?.(resource.spec) === true
        ? options.keyedDigest(resource.digest)
        : resource.digest,
  };
  if (shieldZoneId !== undefined) base.shieldZoneId = shieldZoneId;
  const read = snapshot.reads.get(resource.subject);
  if (read === undefined || read.lookup.status === 'error') {
    const error = read?.lookup.status === 'error' ? read.lookup.error : undefined;
    return {
      ...base,
      action: 'error',
      cause: 'unknown',
      diffs: [],
      requests: [],
      error: {
        code: error?.code ?? 'READ_FAILED',
        message: `cannot read live state: ${error?.message ?? 'no reply'}`,
      },
    };
  }
  const record = options.record(resource.subject);
  const ctx: PlanContext = {
    optimalRegion: snapshot.optimalRegion,
    remembered: (subject) => (subject === resource.subject ? record?.remember : undefined),
    keyedDigest: options.keyedDigest,
  };
  const result: KindPlan = kind.plan(resource, read.lookup.live, ctx);
  const via = read.identity?.via;
  const owed = result.error === undefined ? owedAfterCreate(resource, read.identity?.id, options) : NONE;
  const requests = owed.length === 0 ? result.requests : [...result.requests, ...owed];
  const action: ChangeAction =
    result.error !== undefined
      ? 'error'
      : via === 'create'
        ? 'create'
        : via === 'adopt'
          ? 'adopt'
          : requests.length > 0
            ? 'update'
            : 'noop';
  const skip = !isWrite(action)
    ? undefined
    : resource.metadata.suspend
      ? ('suspended' as const)
      : resource.metadata.drift === 'report' || options.driftMode === 'report'
        ? ('report-only' as const)
        : undefined;
  // Built by assignment in the same key order the plan JSON has always had: spreading
  // conditional parts cost two throwaway objects per resource, 10,000 times per plan.
  const change = base as { -readonly [K in keyof PlannedChange]: PlannedChange[K] };
  change.action = action;
  if (result.digest !== undefined) change.digest = result.digest;
  change.cause = result.diffs.length > 0 ? driftCause(record, change.digest) : 'unknown';
  change.diffs = result.diffs.length === 0 ? NONE : result.diffs;
  change.requests = isWrite(action) && requests.length > 0 ? requests : NONE;
  if (skip !== undefined) change.skip = skip;
  if (result.error !== undefined) change.error = result.error;
  if (result.remember !== undefined) change.remember = result.remember;
  if (read.identity !== undefined) change.object = read.identity;
  if (result.followUp === true && action === 'create') change.followUp = true;
  if (result.afterCreate === true && action === 'create') change.afterCreate = true;
  if (owed.length > 0) change.afterCreateOwed = true;
  const failedRollout =
    skip === undefined ? failedRolloutOf(options.rollout?.(resource.subject), change) : undefined;
  return failedRollout === undefined ? change : refused(change, failedRollout);
}

/**
 * What an earlier create of the resource's object still owes (its `afterCreate` requests, an
 * app's deploy, failed): sent by this run unless the document no longer wants it. Only for the
 * object the inventory recorded, found again at the same id.
 */
function owedAfterCreate(
  resource: DesiredResource,
  id: ObjectId | undefined,
  options: PlanOptions,
): readonly ApiRequest<WriteOperationId>[] {
  const entry = options.lifecycle?.inventory.entry(resource.subject);
  if (entry?.afterCreateOwed !== true || id === undefined || entry.id !== id) return NONE;
  const lifecycle = KINDS[resource.kind].lifecycle;
  if (lifecycle?.afterCreateOwed?.wanted(resource.spec) !== true) return NONE;
  return lifecycle.afterCreate?.(id) ?? NONE;
}

/**
 * A desired state whose rollout failed is not written again until its document changes (or a
 * secret it reads does: the digest covers them), like Flux's exhausted remediation: its plan is
 * this error, so the resource stays failed and the run says why (docs/reconcile.md, Rollout health).
 */
function failedRolloutOf(record: RolloutRecord | undefined, change: PlannedChange): PlanError | undefined {
  if (record === undefined || change.action === 'error' || change.action === 'create') return undefined;
  const why = record.error?.message ?? 'it did not reach active';
  if (record.held?.digest === change.digest) {
    return {
      code: 'ROLLOUT_FAILED',
      message: `the rollout of revision ${record.held.revision} failed and was rolled back to ${record.held.to}; it is not applied again until the document changes`,
    };
  }
  if (record.status === 'failed' && record.digest === change.digest) {
    return {
      code: 'ROLLOUT_FAILED',
      message: `the rollout of revision ${record.revision} failed (${why}); it is not applied again until the document changes`,
    };
  }
  return undefined;
}

/** A change that must not be made (engine/conflicts.ts): its diffs still show, nothing is sent. */
function refused(change: PlannedChange, error: PlanError): PlannedChange {
  const { skip: _skip, remember: _remember, ...rest } = change;
  return { ...rest, action: 'error', requests: [], error };
}

/**
 * Counts the plan's changes. An adoption by name that finds its object as declared sends
 * nothing: it is `adopted` (information), not a change, so the round trip export → validate →
 * plan is zero changes (see docs/reconcile.md, Exit codes).
 */
function summarize(changes: readonly PlannedChange[], withPrune: number): PlanSummary {
  let toUpdate = 0;
  let unchanged = 0;
  let skipped = 0;
  let errors = 0;
  let destructive = 0;
  let adopted = 0;
  const by = { create: 0, adopt: 0, delete: 0 };
  for (const change of changes) {
    if (change.action === 'error') errors += 1;
    else if (change.action === 'noop') unchanged += 1;
    else if (change.skip !== undefined) skipped += 1;
    else if (change.action === 'adopt' && change.requests.length === 0) adopted += 1;
    else {
      toUpdate += 1;
      if (change.action === 'create' || change.action === 'adopt' || change.action === 'delete')
        by[change.action] += 1;
    }
    if (change.diffs.some((d) => d.destructive) || (change.action === 'delete' && change.error === undefined))
      destructive += 1;
  }
  // The lifecycle counts appear only when not zero, so plans of documents with ids read as before.
  return {
    resources: changes.length,
    toUpdate,
    ...(by.create > 0 ? { toCreate: by.create } : {}),
    ...(by.adopt > 0 ? { toAdopt: by.adopt } : {}),
    ...(by.delete > 0 ? { toDelete: by.delete } : {}),
    ...(adopted > 0 ? { adopted } : {}),
    unchanged,
    skipped,
    errors,
    destructive,
    ...(withPrune > 0 ? { withPrune } : {}),
  };
}

/**
 * A change that writes to the API. An adoption that finds its object as declared sends nothing:
 * it counts as a change of the plan, but not against the threshold, so adopting an account
 * (an export applied for the first time) is not refused.
 */
function writesLive(c: PlannedChange): boolean {
  return isWrite(c.action) && c.skip === undefined && c.requests.length > 0;
}

/** The change threshold: refuses every write when too large a share would change. */
function applyThreshold(changes: PlannedChange[], options: PlanOptions): PlannedChange[] {
  const managed = options.managedCount ?? changes.length;
  const before = options.writesBefore ?? 0;
  const writes = before + changes.filter(writesLive).length;
  if (options.force || managed < MIN_RESOURCES_FOR_THRESHOLD) return changes;
  const percent = (writes * 100) / managed;
  if (percent <= options.maxChangePercent) return changes;
  const earlier = before > 0 ? ` (${before} of them earlier in this run)` : '';
  const message =
    `the plan changes ${writes} of ${managed} managed resources${earlier} (${percent.toFixed(0)}%), ` +
    `more than --max-change-percent ${options.maxChangePercent}; re-run with --force if this is intended`;
  return changes.map((c) =>
    writesLive(c) ? { ...c, action: 'error', requests: [], error: { code: 'PLAN_UNSAFE', message } } : c,
  );
}

const KIND_ORDER = new Map(Object.keys(KINDS).map((kind, index) => [kind, index]));

/** Plans list kinds in registry order, then resources by name, so output is stable. */
function byKindThenName(
  a: { readonly kind: string; readonly name: string },
  b: { readonly kind: string; readonly name: string },
): number {
  return (
    (KIND_ORDER.get(a.kind) ?? 0) - (KIND_ORDER.get(b.kind) ?? 0) ||
    (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  );
}

/**
 * The documents' changes against one read of their live state: each resource planned, and
 * those that reached a live object another one also reached refused. What only every
 * document together can tell (the lifecycle, the threshold) is `completePlan`'s.
 */
export function planResources(
  resources: readonly DesiredResource[],
  snapshot: LiveSnapshot,
  options: PlanOptions,
): PlannedChange[] {
  const conflicts = liveConflicts(resources, snapshot);
  return resources.map((resource) => {
    const change = planOne(resource, snapshot, options);
    const conflict = conflicts.get(resource.subject);
    return conflict === undefined ? change : refused(change, conflict);
  });
}

/**
 * The plan from the changes of every document (planned by one read or several): the lifecycle
 * step over the scopes read, the change threshold, the summary. Pure.
 */
export function completePlan(
  planned: readonly PlannedChange[],
  live: Pick<LiveSnapshot, 'scopes' | 'optimalRegion'>,
  options: PlanOptions,
): Plan {
  const ordered = [...planned].sort(byKindThenName);
  const lifecycle =
    options.lifecycle === undefined
      ? { changes: ordered, notPruned: [], gone: [], ignored: [] }
      : planLifecycle(ordered, live.scopes, options.lifecycle);
  const changes = applyThreshold(lifecycle.changes, options);
  return {
    version: 1,
    revision: options.revision,
    createdAt: new Date().toISOString(),
    changes,
    summary: summarize(changes, lifecycle.notPruned.filter((n) => n.withPrune !== undefined).length),
    ...(live.optimalRegion === undefined ? {} : { optimalRegion: live.optimalRegion }),
    ...(lifecycle.notPruned.length === 0 ? {} : { notPruned: lifecycle.notPruned }),
    ...(lifecycle.gone.length === 0 ? {} : { gone: lifecycle.gone }),
    ...(lifecycle.ignored.length === 0 ? {} : { ignored: lifecycle.ignored }),
  };
}

/** Builds the plan from one read of every resource. Pure: no I/O, the same inputs give the same plan. */
export function buildPlan(
  resources: readonly DesiredResource[],
  snapshot: LiveSnapshot,
  options: PlanOptions,
): Plan {
  return completePlan(planResources(resources, snapshot, options), snapshot, options);
}
