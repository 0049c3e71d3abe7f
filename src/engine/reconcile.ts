/**
 * One reconcile: read live → plan → (apply) → record. `plan`, `apply` and the daemon all call
 * `reconcile`; they differ only in `mode` and in what they do with the outcome.
 *
 * Audit events are emitted here, once, with a stable `event` field: `reconcile.started`,
 * `drift.detected`, `change.started` (before each write is sent, so a kill mid-write leaves
 * evidence), `change.applied`, `change.failed`, `reconcile.finished`.
 */
import type { ApiClient } from '../api/types.js';
import type { DesiredResource } from '../config/types.js';
import type { SecretReader } from '../domain/secret-sources.js';
import { ReconcileError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Lease } from '../state/backend.js';
import { applyChanges } from './apply.js';
import {
  type InventoryView,
  inventoryView,
  isLifecycleKind,
  type MovedEntry,
  movedEntries,
  withMoves,
} from './inventory.js';
import { type OnlySelection, selectOnly } from './only.js';
import { buildPlan, completePlan, type PlanOptions, planResources } from './plan.js';
import { type LifecycleOptions, orphanEntries } from './prune.js';
import { type ReadOptions, readLiveState, readLiveStateByZone, type ScopeLive } from './read.js';
import {
  DEFAULT_ROLLOUT_POLL_MS,
  followRollouts,
  type Rollback,
  type RollbackRefusal,
  type RolloutResult,
  type RolloutTarget,
  recordRolloutStarted,
  rollbacksFor,
  rolloutTargets,
} from './rollout.js';
import { bindSavedPlan, liveDigests, type SavedPlan } from './saved-plan.js';
import { MAX_RUN_CHANGES, type RunChange, type StateStore } from './state.js';
import type { ApplyResult, ChangeResult, OptimalRegion, Plan, PlannedChange } from './types.js';

/**
 * What one reconcile covers: which documents, at which revision, and what it may prune. A full
 * run needs only `revision`; the daemon's file-change runs pass a subset with `all` and `removed`.
 */
export interface ReconcileSelection {
  /** The desired state's revision: recorded with every resource brought in sync and in the audit. */
  revision: string;
  /** `--prune`: delete custom rules and lists no document claims (docs/design.md, Pruning). Default off. */
  prune?: boolean;
  /**
   * `--only Kind/name…`: reconcile only these subjects of `resources` (documents, or objects
   * the inventory holds whose document is gone: only.ts). An unknown one throws USAGE first.
   */
  only?: readonly string[];
  /**
   * Every desired resource, when `resources` is a subset (the daemon's file-change runs):
   * claims are global. With `removed`, only those removed documents' objects may be pruned.
   */
  all?: readonly DesiredResource[];
  removed?: readonly string[];
  /** Resources under management when `resources` is a subset: the change threshold's whole. */
  managedCount?: number;
  /** Where container secrets (`valueFrom`) are read; without it every `valueFrom` is an error. */
  secrets?: SecretReader;
  /**
   * `apply FILE`: apply this saved plan, and only when the fresh read and plan are the same
   * (saved-plan.ts); otherwise PLAN_STALE is thrown before anything is sent.
   */
  saved?: SavedPlan;
  /** A rollback run: the rollbacks whose resources these are (`rollbacksFor`). */
  rollbacks?: readonly Rollback[];
}

/** How one reconcile writes: whether at all, how fast, behind which guards and which lease. */
export interface WritePolicy {
  /** `plan` reads and plans; `apply` also writes and records the state. */
  mode: 'plan' | 'apply';
  /** `report`: drift is planned and reported, never corrected. */
  driftMode: 'correct' | 'report';
  /** Concurrent reads, and writes to different Shield Zones. */
  concurrency: number;
  maxChangePercent: number;
  /** Lifts the change threshold and the prune guards. */
  force: boolean;
  signal: AbortSignal;
  /** Writes an earlier reconcile of the same daemon run made (PlanOptions.writesBefore). */
  writesBefore?: number;
  /**
   * The writer's lease: checked before each write is sent (a lost lease sends nothing more:
   * docs/state.md, Fencing) and carried by the state's save.
   */
  lease?: Lease;
  /**
   * `apply` mode: when the plan deletes anything (`summary.destructive`), apply nothing and
   * return it `deferred`. The daemon sets it while the files changed too recently to be trusted
   * complete: a half-written file's deletions must never be sent, and neither its other changes.
   */
  holdDestructive?: boolean;
  /**
   * `apply` mode, after the writes (docs/reconcile.md, Rollout health): `wait` (the CLI's
   * default) watches every rollout they started before the run ends, and a failed one fails
   * the run and is rolled back when its document asks; `detach` (the daemon) only returns them
   * as `rollouts.pending`, for the caller to follow without holding the run; `off` (`--no-wait`)
   * watches nothing. Default `off`: the CLI's apply and the daemon say which they want.
   */
  rollouts?: 'wait' | 'detach' | 'off';
  /** How often a rollout's health is read; default 2 s. */
  rolloutPollMs?: number;
}

/** What one reconcile tells, besides its outcome: the audit events and who is told when. */
export interface ReportOptions {
  /** What asked for this run: `cli`, `schedule`, `file-change`, `webhook`, `startup`. */
  trigger: string;
  /** Receives the audit events; silent when absent. */
  audit?: Logger;
  /** `apply` mode: called with the plan just before its writes are sent (the daemon's notifier). */
  beforeApply?(plan: Plan): void;
  /** Take a digest of every live object read (`plan --out`): the outcome's `live`. */
  liveDigests?: boolean;
}

/**
 * One reconcile: the API and state it works on, and its options in three groups — what to
 * reconcile (`selection`), how to write (`write`), what to report (`report`).
 */
export interface ReconcileOptions {
  api: ApiClient;
  state: StateStore;
  selection: ReconcileSelection;
  write: WritePolicy;
  report: ReportOptions;
}

/** What one reconcile did: the plan, the apply results in `apply` mode, and its duration. */
export interface ReconcileOutcome {
  readonly plan: Plan;
  /** Present in `apply` mode. */
  readonly apply?: ApplyResult;
  /** Set when `holdDestructive` kept a plan with deletions from being applied. */
  readonly deferred?: 'destructive';
  readonly durationMs: number;
  /** Subject → digest of its live object as read, when `liveDigests` or `saved` asked. */
  readonly live?: Readonly<Record<string, string>>;
  /** `apply` mode: the rollouts its writes started (absent when none did). */
  readonly rollouts?: RolloutsOutcome;
}

/** What the rollouts of an `apply` did. */
export interface RolloutsOutcome {
  /** `wait`: how each watched rollout ended (the rollback's own included). */
  readonly results: readonly RolloutResult[];
  /** `detach`: the rollouts the caller follows. */
  readonly pending?: readonly RolloutTarget[];
  /** `wait`: the run that applied the rollbacks, when a failed rollout asked for one. */
  readonly rollback?: ReconcileOutcome;
  /** `wait`: failed rollouts asking for a rollback that could not be made, and why. */
  readonly refused?: readonly RollbackRefusal[];
}

/**
 * The inventory as this run may use it: untrusted when the state file could not be read, and
 * with the entries of documents moved to another zone under their own subjects (`movedEntries`).
 * In `apply` mode the move is recorded in the state too, so it outlives this run.
 */
function inventoryOf(options: ReconcileOptions, moves: readonly MovedEntry[]): InventoryView {
  const trusted = options.state.warning === undefined;
  if (options.write.mode !== 'apply')
    return inventoryView(withMoves(options.state.inventory(), moves), trusted);
  for (const move of moves) {
    options.state.setInventory(move.to, move.entry);
    options.state.setInventory(move.from, undefined);
  }
  return inventoryView(options.state.inventory(), trusted);
}

/**
 * Which inventory subjects this run may prune: all (a full run), those `--only` named (and
 * what its documents left behind), or those of the documents a file-change run saw removed,
 * and of the moved ones it saw change.
 */
function pruneScope(
  options: ReconcileOptions,
  moves: readonly MovedEntry[],
  only: OnlySelection | undefined,
): ReadonlySet<string> | 'full' {
  if (only !== undefined) return only.pruneScope;
  if (options.selection.removed === undefined) return 'full';
  return new Set([...options.selection.removed, ...moves.map((move) => move.to)]);
}

/** Inventory entries whose document is gone (in scope): the prune candidates' zones are read. */
function orphansOf(lifecycle: LifecycleOptions): InventoryView {
  return inventoryView(orphanEntries(lifecycle), lifecycle.inventory.trusted);
}

function lifecycleOf(
  resources: readonly DesiredResource[],
  inventory: InventoryView,
  options: ReconcileOptions,
  moves: readonly MovedEntry[],
  only: OnlySelection | undefined,
): LifecycleOptions {
  return {
    prune: options.selection.prune === true,
    force: options.write.force,
    inventory,
    all: options.selection.all ?? resources,
    scope: pruneScope(options, moves, only),
  };
}

/** Plan options; `lifecycle` absent for a re-plan of one change (no claims, no pruning). */
function planOptions(options: ReconcileOptions, lifecycle?: LifecycleOptions): PlanOptions {
  // A partial run's threshold counts against every managed resource, as a full run's would.
  const managedCount =
    options.selection.managedCount ??
    (options.selection.only === undefined ? undefined : lifecycle?.all.length);
  return {
    ...(lifecycle === undefined ? {} : { lifecycle }),
    revision: options.selection.revision,
    driftMode: options.write.driftMode,
    maxChangePercent: options.write.maxChangePercent,
    force: options.write.force,
    ...(managedCount === undefined ? {} : { managedCount }),
    ...(options.write.writesBefore === undefined ? {} : { writesBefore: options.write.writesBefore }),
    record: (subject) => options.state.resource(subject),
    rollout: (subject) => options.state.rollout(subject),
    keyedDigest: options.state.keyedDigest,
  };
}

function auditDrift(audit: Logger | undefined, plan: Plan): void {
  if (audit === undefined) return;
  for (const change of plan.changes) {
    if (change.diffs.length === 0) continue;
    audit.info(
      {
        event: 'drift.detected',
        subject: change.subject,
        cause: change.cause,
        fields: change.diffs.map((d) => ({
          path: d.path,
          live: d.live,
          desired: d.desired,
          cause: change.cause,
        })),
        ...(change.skip === undefined ? {} : { skip: change.skip }),
      },
      'drift detected',
    );
  }
}

function auditResult(audit: Logger | undefined, change: PlannedChange, result: ChangeResult): void {
  if (audit === undefined) return;
  const object =
    change.object === undefined
      ? {}
      : {
          object: {
            shieldZoneId: change.object.shieldZoneId,
            id: change.object.id ?? result.objectId,
            key: change.object.key,
          },
        };
  if (result.outcome === 'applied') {
    audit.info(
      {
        event: 'change.applied',
        subject: change.subject,
        action: change.action,
        ...object,
        requests: result.sent,
        durationMs: result.durationMs,
      },
      'change applied',
    );
  } else if (result.outcome === 'failed') {
    audit.error(
      {
        event: 'change.failed',
        subject: change.subject,
        action: change.action,
        ...object,
        error: result.error,
        requests: result.sent,
        durationMs: result.durationMs,
      },
      'change failed',
    );
  }
}

/** Applied creates, adoptions and deletes, for the run record (`/status`) and the audit; only those not zero. */
function lifecycleCounts(apply: ApplyResult | undefined): Record<string, number> {
  const counts: Record<string, number> = {};
  const names = { create: 'created', adopt: 'adopted', delete: 'deleted' } as const;
  for (const result of apply?.results ?? []) {
    if (result.outcome !== 'applied') continue;
    if (result.action === 'create' || result.action === 'adopt' || result.action === 'delete') {
      const name = names[result.action];
      counts[name] = (counts[name] ?? 0) + 1;
    }
  }
  return counts;
}

/** Drops from the inventory the objects deleted out of band whose documents are gone too. */
function forgetGone(options: ReconcileOptions, gone: readonly string[]): void {
  if (gone.length === 0) return;
  for (const subject of gone) options.state.setInventory(subject, undefined);
  options.report.audit?.info(
    { event: 'inventory.forgotten', subjects: gone },
    'objects already deleted outside edgesync, and their documents gone: no longer in the inventory',
  );
}

/**
 * Keeps the inventory in step with what was applied: a created, adopted or pinned object is
 * owned by its subject from now on; a pruned one is forgotten. A create whose follow-up (an
 * app's deploy) failed is owned too, with that follow-up owed until a run sends it.
 */
function recordInventory(options: ReconcileOptions, change: PlannedChange, result: ChangeResult): void {
  const object = change.object;
  if (object === undefined || !isLifecycleKind(change.kind)) return;
  if (change.action === 'delete') {
    const owned = options.state.inventory().get(change.subject);
    if (owned?.id === object.id) options.state.setInventory(change.subject, undefined);
    return;
  }
  const id = result.objectId ?? object.id;
  if (id === undefined) return;
  const owed = result.afterCreateFailed === true;
  const owned = options.state.inventory().get(change.subject);
  if (
    owned?.id === id &&
    owned.key === object.key &&
    owned.shieldZoneId === object.shieldZoneId &&
    (owned.afterCreateOwed === true) === owed
  )
    return;
  options.state.setInventory(change.subject, {
    kind: change.kind,
    shieldZoneId: object.shieldZoneId,
    id,
    key: object.key,
    ...(owed ? { afterCreateOwed: true as const } : {}),
  });
}

/**
 * The read and plan phases, zone by zone (`readLiveStateByZone`): each zone's live snapshot is
 * planned as soon as it is read and is garbage once its changes exist, so a run never holds the
 * live objects of every zone at once (docs/performance.md, Memory). What needs every zone (the
 * lifecycle step, the threshold) runs on the changes once all are planned. In `apply` mode it
 * also records the read hints (access-list checksums) for the next run.
 */
async function readAndPlan(
  resources: readonly DesiredResource[],
  readOptions: ReadOptions,
  options: ReconcileOptions,
  lifecycle: LifecycleOptions,
): Promise<{ plan: Plan; live?: Record<string, string> }> {
  const wantDigests = options.report.liveDigests === true || options.selection.saved !== undefined;
  const live: Record<string, string> = {};
  const planned: PlannedChange[] = [];
  const scopes = new Map<string, ScopeLive>();
  let optimalRegion: OptimalRegion | undefined;
  const settings = planOptions(options, lifecycle);
  await readLiveStateByZone(
    resources,
    { ...readOptions, orphans: orphansOf(lifecycle) },
    (zone, snapshot) => {
      for (const change of planResources(zone, snapshot, settings)) planned.push(change);
      for (const [key, scope] of snapshot.scopes) scopes.set(key, scope);
      optimalRegion ??= snapshot.optimalRegion;
      if (wantDigests) Object.assign(live, liveDigests(zone, snapshot));
      if (options.write.mode === 'apply') {
        for (const [subject, read] of snapshot.reads) {
          if (read.lookup.status === 'found') options.state.setHint(subject, read.hint);
        }
      }
    },
  );
  const fresh = completePlan(planned, { scopes, optimalRegion }, settings);
  if (!wantDigests) return { plan: withRollbacks(fresh, options.selection.rollbacks) };
  // A saved plan replaces the fresh one only when the two are the same; else this throws.
  const { saved } = options.selection;
  const plan = saved === undefined ? fresh : bindSavedPlan(saved, fresh, live);
  return { plan: withRollbacks(plan, options.selection.rollbacks), live };
}

/** A rollback run's plan: each change says which revision it restores, and what it cannot. */
function withRollbacks(plan: Plan, rollbacks: readonly Rollback[] | undefined): Plan {
  if (rollbacks === undefined) return plan;
  const bySubject = new Map(rollbacks.map((r) => [r.resource.subject, r]));
  return {
    ...plan,
    changes: plan.changes.map((change) => {
      const rollback = bySubject.get(change.subject);
      return rollback === undefined
        ? change
        : { ...change, rollback: { from: rollback.from, to: rollback.to, notes: rollback.notes } };
    }),
  };
}

/**
 * `wait`: watches the rollouts the writes started; the failed ones that ask for it are rolled
 * back by a run of their own (a rollback is watched too, and never rolled back again).
 */
async function waitForRollouts(
  targets: readonly RolloutTarget[],
  resources: ReadonlyMap<string, DesiredResource>,
  options: ReconcileOptions,
): Promise<{ results: RolloutResult[]; rollbacks: Rollback[]; refused: RollbackRefusal[] }> {
  const results = await followRollouts(targets, {
    api: options.api,
    signal: options.write.signal,
    pollMs: options.write.rolloutPollMs ?? DEFAULT_ROLLOUT_POLL_MS,
    state: options.state,
    ...(options.report.audit === undefined ? {} : { audit: options.report.audit }),
  });
  const { rollbacks, refused } = rollbacksFor(results, resources, options.state);
  return { results, rollbacks, refused };
}

/**
 * The run of the rollbacks a failed rollout asked for: the kept specs, applied (and watched as
 * `write.rollouts` says). It restores what the same documents held before: no prune, no change
 * threshold, and it covers only the rolled-back resources.
 */
export function reconcileRollbacks(
  rollbacks: readonly Rollback[],
  options: ReconcileOptions,
): Promise<ReconcileOutcome> {
  const { revision, secrets } = options.selection;
  return reconcile(
    rollbacks.map((r) => r.resource),
    {
      ...options,
      selection: { revision, rollbacks, ...(secrets === undefined ? {} : { secrets }) },
      write: { ...options.write, mode: 'apply', force: true, holdDestructive: false, writesBefore: 0 },
      report: { ...options.report, trigger: 'rollback' },
    },
  );
}

/** The run's record of a failed rollout (`/status` runs, the status page's timeline). */
function rolloutRunChanges(results: readonly RolloutResult[]): RunChange[] {
  return results
    .filter((r) => r.outcome === 'failed')
    .map((r) => ({
      subject: r.subject,
      action: 'rollout',
      outcome: 'failed',
      ...(r.error === undefined ? {} : { error: r.error }),
    }));
}

/** Reads, plans and — in `apply` mode — applies and records. Never throws for one resource. */
export async function reconcile(
  resources: readonly DesiredResource[],
  options: ReconcileOptions,
): Promise<ReconcileOutcome> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const everyMove = movedEntries(options.state.inventory(), options.selection.all ?? resources);
  // Checked before anything is read or recorded: an unknown subject throws here.
  const only =
    options.selection.only === undefined
      ? undefined
      : selectOnly(options.selection.only, resources, options.state.inventory(), everyMove);
  const moves = only?.moves ?? everyMove;
  const selected = only?.resources ?? resources;
  options.report.audit?.info(
    {
      event: 'reconcile.started',
      revision: options.selection.revision,
      trigger: options.report.trigger,
      resources: selected.length,
      mode: options.write.mode,
      ...(only === undefined ? {} : { only: only.partial.only }),
    },
    'reconcile started',
  );
  const inventory = inventoryOf(options, moves);
  const lifecycle = lifecycleOf(resources, inventory, options, moves, only);
  if (options.selection.prune === true && !inventory.trusted) {
    options.report.audit?.warn(
      { event: 'prune.limited', reason: options.state.warning },
      'the state could not be read: this run prunes only in scopes a document declares exclusive',
    );
  }
  const readOptions: ReadOptions = {
    api: options.api,
    signal: options.write.signal,
    concurrency: options.write.concurrency,
    hint: (subject: string) => options.state.hint(subject),
    owned: (subject: string) => inventory.entry(subject),
    ...(options.selection.secrets === undefined ? {} : { secrets: options.selection.secrets }),
  };
  const read = await readAndPlan(selected, readOptions, options, lifecycle);
  const { live } = read;
  const plan = only === undefined ? read.plan : { ...read.plan, partial: only.partial };
  auditDrift(options.report.audit, plan);
  if (
    options.write.mode === 'apply' &&
    options.write.holdDestructive === true &&
    plan.summary.destructive > 0
  ) {
    const durationMs = Math.round(performance.now() - started);
    options.report.audit?.info(
      {
        event: 'reconcile.finished',
        revision: options.selection.revision,
        trigger: options.report.trigger,
        mode: options.write.mode,
        counts: { toUpdate: plan.summary.toUpdate, destructive: plan.summary.destructive },
        durationMs,
        result: 'deferred',
      },
      'reconcile finished without applying: its plan deletes and the files changed too recently',
    );
    return { plan, deferred: 'destructive', durationMs };
  }

  // The resources by subject, built the first time a write needs one: a run with nothing to
  // write never does, and at 100,000 resources the index is megabytes.
  let index: Map<string, DesiredResource> | undefined;
  const bySubject = (): ReadonlyMap<string, DesiredResource> =>
    (index ??= new Map(resources.map((r) => [r.subject, r])));
  let apply: ApplyResult | undefined;
  if (options.write.mode === 'apply') {
    options.report.beforeApply?.(plan);
    const lease = options.write.lease;
    apply = await applyChanges(plan.changes, {
      api: options.api,
      concurrency: options.write.concurrency,
      signal: options.write.signal,
      // Fencing, per attempt: a retry waiting in the client's backoff is checked again too.
      ...(lease === undefined ? {} : { beforeSend: () => lease.assertHeld() }),
      replan: async (change) => {
        // Never fall back to `change` itself: resending an ambiguous create is what this avoids.
        const resource = bySubject().get(change.subject);
        if (resource === undefined)
          throw new ReconcileError('INTERNAL', `no resource ${change.subject} to re-plan`);
        const fresh = await readLiveState([resource], readOptions);
        // The threshold was already passed by the whole plan; this is the same change re-read.
        const replanned = buildPlan([resource], fresh, { ...planOptions(options), force: true });
        const again = replanned.changes[0];
        if (again === undefined)
          throw new ReconcileError('INTERNAL', `re-planning ${change.subject} gave no change`);
        return again;
      },
      onRequest: (change, request) => {
        // Fencing: a lease lost since the last write stops this one (and every one after it).
        options.write.lease?.assertHeld();
        options.report.audit?.info(
          {
            event: 'change.started',
            subject: change.subject,
            operation: request.operation,
            method: request.method,
            path: request.path,
          },
          'sending a write',
        );
      },
      onResult: (change, result) => {
        if (result.afterCreateFailed === true) recordInventory(options, change, result);
        if (result.outcome === 'applied' || result.outcome === 'unchanged') {
          if (change.action !== 'delete') {
            options.state.markInSync(
              change.subject,
              change.digest,
              options.selection.revision,
              change.remember,
            );
          }
          recordInventory(options, change, result);
        }
        auditResult(options.report.audit, change, result);
      },
    });
    forgetGone(options, plan.gone ?? []);
  }
  const rolloutMode = options.write.rollouts ?? 'off';
  const targets =
    apply === undefined || rolloutMode === 'off'
      ? []
      : rolloutTargets(
          plan,
          apply,
          (subject) => bySubject().get(subject),
          new Map((options.selection.rollbacks ?? []).map((r) => [r.resource.subject, r.from])),
        );
  let watched: Awaited<ReturnType<typeof waitForRollouts>> | undefined;
  if (rolloutMode === 'wait' && targets.length > 0)
    watched = await waitForRollouts(targets, bySubject(), options);
  if (rolloutMode === 'detach') for (const target of targets) recordRolloutStarted(options.state, target);
  const rolloutFailures = watched?.results.filter((r) => r.outcome === 'failed').length ?? 0;
  const durationMs = Math.round(performance.now() - started);
  const failed =
    (apply?.counts.failed ?? 0) + rolloutFailures + (options.write.mode === 'plan' ? plan.summary.errors : 0);
  const lifecycleDone = lifecycleCounts(apply);
  const rolloutCounts: Record<string, number> = rolloutFailures > 0 ? { rolloutFailed: rolloutFailures } : {};
  if (options.write.mode === 'apply') {
    const changes = runChanges(plan, apply);
    const failedRollouts = rolloutRunChanges(watched?.results ?? []);
    options.state.addRun({
      revision: options.selection.revision,
      trigger: options.report.trigger,
      startedAt,
      durationMs,
      result: failed > 0 ? 'failed' : 'success',
      counts: { ...(apply?.counts ?? {}), ...lifecycleDone, ...rolloutCounts },
      ...(failedRollouts.length === 0
        ? changes
        : { ...changes, changes: [...(changes.changes ?? []), ...failedRollouts] }),
      ...(only === undefined ? {} : { only: [...only.partial.only] }),
    });
    await options.state.save();
  }
  options.report.audit?.info(
    {
      event: 'reconcile.finished',
      revision: options.selection.revision,
      trigger: options.report.trigger,
      mode: options.write.mode,
      counts:
        apply === undefined
          ? {
              toUpdate: plan.summary.toUpdate,
              unchanged: plan.summary.unchanged,
              skipped: plan.summary.skipped,
              errors: plan.summary.errors,
            }
          : { ...apply.counts, ...lifecycleDone, ...rolloutCounts },
      durationMs,
      result: failed > 0 ? 'failed' : 'success',
    },
    'reconcile finished',
  );
  const rollback =
    watched === undefined || watched.rollbacks.length === 0
      ? undefined
      : await reconcileRollbacks(watched.rollbacks, options);
  const rollouts: RolloutsOutcome | undefined =
    watched !== undefined
      ? {
          results: watched.results,
          ...(rollback === undefined ? {} : { rollback }),
          ...(watched.refused.length === 0 ? {} : { refused: watched.refused }),
        }
      : rolloutMode === 'detach' && targets.length > 0
        ? { results: [], pending: targets }
        : undefined;
  return {
    plan,
    ...(apply === undefined ? {} : { apply }),
    durationMs,
    ...(live === undefined ? {} : { live }),
    ...(rollouts === undefined ? {} : { rollouts }),
  };
}

/**
 * The changes a run record keeps for the status page's run timeline: those that wrote, were
 * skipped or failed, in plan order, at most MAX_RUN_CHANGES. Error messages are the ones
 * `/status` already shows for the resource.
 */
function runChanges(
  plan: Plan,
  apply: ApplyResult | undefined,
): { changes?: RunChange[]; changesOmitted?: number } {
  if (apply === undefined) return {};
  const kept: RunChange[] = [];
  for (const [index, result] of apply.results.entries()) {
    if (result.outcome === 'unchanged') continue;
    const change = plan.changes[index];
    const error = result.error ?? (result.outcome === 'failed' ? change?.error : undefined);
    kept.push({
      subject: result.subject,
      action: result.action ?? change?.action ?? 'update',
      outcome: result.outcome,
      ...(error === undefined ? {} : { error: { code: error.code, message: error.message } }),
    });
  }
  if (kept.length === 0) return {};
  const omitted = kept.length - MAX_RUN_CHANGES;
  return omitted > 0
    ? { changes: kept.slice(0, MAX_RUN_CHANGES), changesOmitted: omitted }
    : { changes: kept };
}
