/**
 * What the daemon knows about itself and about every resource, for `GET /status`, the
 * resource gauge and `/readyz`. Flux's vocabulary: `Ready` (idle, waiting for a trigger,
 * nothing failed), `Degraded` (idle, but the last runs left resources failed, or the last run
 * itself failed: an API outage, the state directory), `Reconciling` (a run is in progress),
 * `Stalled` (the desired state does not validate; nothing is written until the files change).
 *
 * Two parts: the daemon's condition (`Condition` below: one record, replaced by every write)
 * and the per-resource records (`status-resources.ts`). The document's shape is
 * `status-document.ts`; its bytes, `status-body.ts`.
 *
 * Everything here is in memory and rebuilt after a restart by the first run; the reconcile
 * history comes from the state store.
 */
import { issueLocation } from '../config/issues.js';
import type { ConfigIssue, DesiredResource } from '../config/types.js';
import type { RunRecord } from '../engine/state.js';
import type { ChangeResult, PlannedChange } from '../engine/types.js';
import type {
  AppHealthStatus,
  DaemonPhase,
  LeaderStatus,
  PullStatus,
  ResourceState,
  RetryStatus,
  SettleHoldStatus,
  StatusDocument,
  StatusError,
  StatusIssue,
  UnclaimedObject,
} from './status-document.js';
import { createResourceRecords, RESOURCE_STATES, type ResourceRecord, statusOf } from './status-resources.js';

export type {
  AppHealthStatus,
  DaemonPhase,
  HeldDeletion,
  SettleHoldStatus,
  StatusDocument,
  UnclaimedObject,
} from './status-document.js';

/**
 * `StatusDocument` split in two: every field but the last, and the records of the last,
 * `resources` (each shown by `statusOf`), sorted by subject.
 */
interface StatusSnapshot {
  readonly head: Omit<StatusDocument, 'resources'>;
  readonly records: readonly ResourceRecord[];
}

/** The mutable status of one daemon; only the controller writes it. */
export interface StatusTracker {
  /** True once a load has succeeded (readiness never goes back). */
  readonly ready: boolean;
  /** True while resources are failed or the last run failed itself. */
  readonly degraded: boolean;
  /** Adds new subjects as `pending` and forgets the ones no longer declared. */
  syncResources(resources: readonly DesiredResource[]): void;
  /** Records one change's outcome of a run. */
  recordResult(change: PlannedChange, result: ChangeResult, at: Date): void;
  /** Resources that are `failed` now. */
  failedCount(): number;
  runStarted(): void;
  runFinished(): void;
  /** The revision a run tried (set by `loaded`, or from git when the load failed). */
  attempted(revision: string): void;
  /** A load succeeded: ready, not stalled, this revision. */
  loaded(revision: string): void;
  stalled(issues: readonly ConfigIssue[], error: StatusError): void;
  setLastError(error: StatusError | null): void;
  /** The last run's own failure (not a resource's), or null after a run that completed. */
  setRunError(error: StatusError | null): void;
  /** Nothing is failed after a run at `revision`; `at` (a run that reconciled) also moves lastSuccessAt. */
  applied(revision: string, at?: Date): void;
  setPull(pull: PullStatus): void;
  setRetry(
    retry: {
      attempt: number;
      at: Date;
      code: string;
      reason: RetryStatus['reason'];
      retryAfterMs?: number;
    } | null,
  ): void;
  setSettleHold(hold: SettleHoldStatus | null): void;
  setUnclaimed(objects: readonly UnclaimedObject[]): void;
  setApps(apps: readonly AppHealthStatus[]): void;
  /** A rollout the run loop no longer waits for failed (rollouts.ts): the resource is failed now. */
  markRolloutFailed(subject: string, error: StatusError): void;
  /** This daemon's role and the leader it knows of; a standby is ready (it stays in a Service). */
  setLeadership(role: StatusDocument['role'], leader: LeaderStatus | null): void;
  /** Counts per kind and state, for the resource gauge. */
  countsByKind(): Map<string, Map<string, number>>;
  document(runs: readonly RunRecord[]): StatusDocument;
  /**
   * The document as it is now, without building its resources: the records themselves. A
   * record is never changed once made (a write replaces it), so the snapshot stays what it
   * was while a response is written from it.
   */
  snapshot(runs: readonly RunRecord[]): StatusSnapshot;
  /** Bumped by every write above: the same count (and runs) means the same document. */
  readonly writes: number;
}

/** The daemon's own condition: everything in /status that is not a resource or a run. */
interface Condition {
  readonly reconciling: boolean;
  /** The config problems while stalled; undefined when the last load succeeded. */
  readonly stalledOn: readonly StatusIssue[] | undefined;
  readonly revision: string | null;
  readonly lastAttemptedRevision: string | null;
  readonly lastAppliedRevision: string | null;
  readonly lastError: StatusError | null;
  /** The last run's own failure; with failed resources, what makes the daemon degraded. */
  readonly runError: StatusError | null;
  readonly lastPull: PullStatus | null;
  readonly retry: RetryStatus | null;
  readonly settleHold: SettleHoldStatus | null;
  readonly unclaimed: readonly UnclaimedObject[];
  readonly apps: readonly AppHealthStatus[];
  readonly lastSuccessAt: string | null;
  readonly role: StatusDocument['role'];
  readonly leader: LeaderStatus | null;
  /** A daemon that stood by is ready from then on, also while it loads as a new leader. */
  readonly stoodBy: boolean;
}

const START: Condition = {
  reconciling: false,
  stalledOn: undefined,
  revision: null,
  lastAttemptedRevision: null,
  lastAppliedRevision: null,
  lastError: null,
  runError: null,
  lastPull: null,
  retry: null,
  settleHold: null,
  unclaimed: [],
  apps: [],
  lastSuccessAt: null,
  role: 'leader',
  leader: null,
  stoodBy: false,
};

function phaseOf(condition: Condition, degraded: boolean): DaemonPhase {
  if (condition.reconciling) return 'Reconciling';
  if (condition.stalledOn !== undefined) return 'Stalled';
  return degraded ? 'Degraded' : 'Ready';
}

/** Creates an empty tracker: not ready, no resources. */
export function createStatusTracker(): StatusTracker {
  const records = createResourceRecords();
  let condition = START;
  let writes = 0;
  // Every change a run records carries the same Date: one timestamp string for all of them.
  let stamp: { readonly at: Date; readonly iso: string } | undefined;

  /** Every write goes through here, so `writes` cannot miss one. */
  function write(change: Partial<Condition> = {}): void {
    writes += 1;
    condition = { ...condition, ...change };
  }

  function degraded(): boolean {
    return condition.runError !== null || records.failedCount() > 0;
  }

  function snapshot(runs: readonly RunRecord[]): StatusSnapshot {
    const sorted = records.sorted();
    const counts = Object.fromEntries(RESOURCE_STATES.map((s) => [s, 0])) as Record<ResourceState, number>;
    for (const record of sorted) counts[record.state] += 1;
    const isDegraded = degraded();
    const head = {
      status: phaseOf(condition, isDegraded),
      role: condition.role,
      leader: condition.leader,
      ready: condition.revision !== null || condition.stoodBy,
      degraded: isDegraded,
      revision: condition.revision,
      lastAttemptedRevision: condition.lastAttemptedRevision,
      lastAppliedRevision: condition.lastAppliedRevision,
      lastError: condition.lastError,
      issues: condition.stalledOn ?? [],
      lastPull: condition.lastPull,
      retry: condition.retry,
      settleHold: condition.settleHold,
      unclaimed: condition.unclaimed,
      apps: condition.apps,
      lastSuccessAt: condition.lastSuccessAt,
      runs: [...runs].reverse(),
      counts,
    };
    return { head, records: sorted };
  }

  return {
    get ready() {
      return condition.revision !== null || condition.stoodBy;
    },
    get degraded() {
      return degraded();
    },
    get writes() {
      return writes;
    },
    syncResources(desired) {
      write();
      records.sync(desired);
    },
    recordResult(change, result, at) {
      write();
      if (stamp?.at !== at) stamp = { at, iso: at.toISOString() };
      records.record(change, result, stamp.iso);
    },
    failedCount: () => records.failedCount(),
    runStarted: () => write({ reconciling: true }),
    runFinished: () => write({ reconciling: false }),
    attempted: (revision) => write({ lastAttemptedRevision: revision }),
    loaded: (revision) => write({ stalledOn: undefined, revision, lastAttemptedRevision: revision }),
    stalled(issues, error) {
      write({
        stalledOn: issues.map((issue) => ({ ...issue, location: issueLocation(issue) })),
        lastError: error,
      });
    },
    setLastError: (error) => write({ lastError: error }),
    setRunError: (error) => write({ runError: error }),
    applied(revision, at) {
      write({
        lastAppliedRevision: revision,
        ...(at === undefined ? {} : { lastSuccessAt: at.toISOString() }),
      });
    },
    setPull: (pull) => write({ lastPull: pull }),
    setRetry(next) {
      write({
        retry:
          next === null
            ? null
            : {
                attempt: next.attempt,
                at: next.at.toISOString(),
                code: next.code,
                reason: next.reason,
                retryAfterMs: next.retryAfterMs ?? null,
              },
      });
    },
    setSettleHold: (hold) => write({ settleHold: hold }),
    setUnclaimed: (objects) => write({ unclaimed: objects }),
    setApps: (apps) => write({ apps }),
    markRolloutFailed(subject, error) {
      write();
      records.markRolloutFailed(subject, error);
    },
    setLeadership: (role, leader) =>
      write({ role, leader, ...(role === 'standby' ? { stoodBy: true } : {}) }),
    countsByKind: () => records.countsByKind(),
    document(runs) {
      const { head, records: sorted } = snapshot(runs);
      return { ...head, resources: sorted.map(statusOf) };
    },
    snapshot,
  };
}
