/**
 * What the daemon knows about itself and about every resource, for `GET /status`, the
 * resource gauge and `/readyz`. Flux's vocabulary: `Ready` (idle, waiting for a trigger,
 * nothing failed), `Degraded` (idle, but the last runs left resources failed, or the last run
 * itself failed: an API outage, the state directory), `Reconciling` (a run is in progress),
 * `Stalled` (the desired state does not validate; nothing is written until the files change).
 *
 * Everything here is in memory and rebuilt after a restart by the first run; the reconcile
 * history comes from the state store.
 */
import { issueLocation } from '../config/issues.js';
import type { ConfigIssue, DesiredResource } from '../config/types.js';
import { formatValue } from '../engine/render.js';
import type { RunRecord } from '../engine/state.js';
import type { ChangeResult, DriftCause, FieldDiff, PlannedChange } from '../engine/types.js';

/** The daemon's condition. */
export type DaemonPhase = 'Ready' | 'Degraded' | 'Reconciling' | 'Stalled';

/**
 * One resource's state after the last run that covered it. `pending`: loaded, not reconciled
 * yet. `in-sync`: live equals desired (found so, or applied). `suspended` / `report-only`:
 * live differs and edgesync does not write it (`metadata.suspend`, `metadata.drift: report` or
 * `--drift report`). `failed`: it could not be read, planned or applied (see `lastError`).
 */
type ResourceState = 'pending' | 'in-sync' | 'suspended' | 'report-only' | 'failed';

/** An error as /status shows it: the code, a message safe to show, and when. */
interface StatusError {
  readonly code: string;
  readonly message: string;
  readonly at: string;
}

/**
 * One differing field as the plan prints it: values on one short line, `(sensitive)` for a
 * secret, `(absent)` for a missing live item, `(deleted)` for an item the YAML drops.
 */
interface StatusFieldDiff {
  readonly path: string;
  readonly live: string;
  readonly desired: string;
}

/** One resource in /status. */
interface ResourceStatus {
  readonly subject: string;
  readonly kind: string;
  readonly name: string;
  /** `file:line:col` of the document in the config directory. */
  readonly source: string;
  /** The Shield Zone id the resource belongs to, as text; null for DNS zones and apps. */
  readonly zone: string | null;
  readonly state: ResourceState;
  /** Present while live differs from desired: the cause, the differing paths, and their values. */
  readonly drift: {
    readonly cause: DriftCause;
    readonly fields: readonly string[];
    readonly diffs: readonly StatusFieldDiff[];
  } | null;
  readonly lastError: StatusError | null;
  readonly lastAppliedAt: string | null;
  readonly lastCheckedAt: string | null;
}

/** A config issue in /status, with its `file:line:col` location ready to click. */
interface StatusIssue extends ConfigIssue {
  readonly location: string;
}

/** The last `git pull --ff-only` (with `--git-pull`). */
interface PullStatus {
  readonly at: string;
  readonly ok: boolean;
  readonly error?: string;
}

/** The pending retry: when, after which failure, and whether a Retry-After set the delay. */
interface RetryStatus {
  readonly attempt: number;
  readonly at: string;
  readonly code: string;
  /** `backoff`, or `retry-after` when the API's Retry-After was longer than the backoff. */
  readonly reason: 'backoff' | 'retry-after';
  /** The wait the API asked for (capped), when it asked. */
  readonly retryAfterMs: number | null;
}

/** One subject a held plan would delete from: the whole object (a prune), or these items of it. */
export interface HeldDeletion {
  readonly subject: string;
  /** The plan's action: `delete` (the object itself) or `update` (`fields` go). */
  readonly action: string;
  /** The deleted containers, endpoints, volumes (`containerTemplates[worker]`); names, never values. */
  readonly fields: readonly string[];
}

/** A plan that deletes, held until the files stay unchanged for `--settle-ms` (`settle-hold.ts`). */
export interface SettleHoldStatus {
  /** Of the last run that deferred; `since` is when the first of the hold's `deferrals` runs did. */
  readonly trigger: string;
  readonly revision: string;
  readonly deferredAt: string;
  readonly since: string;
  readonly deferrals: number;
  /** When the `settle` run is due. */
  readonly settleAt: string;
  /** Sorted by subject, at most 100; `deletionsOmitted` counts the rest. */
  readonly deletions: readonly HeldDeletion[];
  readonly deletionsOmitted: number;
}

/**
 * A live object no document claims any more that is not pruned (`unclaimed.ts`): with
 * `--prune` off, a removed document's rule or list; or one a reason keeps (a rename since
 * edgesync wrote it, an unreadable state).
 */
// A type, not an interface: the status page's shape of /status reads it as a plain record.
export type UnclaimedObject = {
  readonly kind: string;
  readonly shieldZoneId?: number;
  readonly id: number | string;
  readonly key: string;
  /** The inventory subject (the document) that owned it, if any. */
  readonly subject?: string;
  /** Why it is not pruned: `not pruned: --prune is off`. */
  readonly reason: string;
  /** When a run first found it unclaimed. */
  readonly since: string;
};

/**
 * A container app's health in `/status` `apps` (rollouts.ts): its last watched rollout as the
 * state records it. A type, not an interface: the status page reads it as a plain record.
 */
export type AppHealthStatus = {
  readonly subject: string;
  readonly name: string;
  readonly appId: string | null;
  /** `progressing` while watched, then `succeeded`, `failed`, `aborted`, `inactive`; `unknown` before any. */
  readonly status: string;
  /** The API's word at the last read: `active`, `progressing`, `failing`, `inactive`… */
  readonly health: string;
  readonly revision: string | null;
  /** Why the rollout failed: the container's status, reason and message (never an env value). */
  readonly reason: string | null;
  /** The revision applied again by `onFailure: rollback`, while the failed one is held. */
  readonly rolledBackTo: string | null;
  readonly at: string | null;
};

/** The whole `GET /status` document. */
export interface StatusDocument {
  readonly status: DaemonPhase;
  /** True once the desired state has loaded successfully (what /readyz answers). */
  readonly ready: boolean;
  /** Resources are failed, or the last run itself failed (shown even while `Reconciling`). */
  readonly degraded: boolean;
  /** Revision of the desired state last loaded successfully: git SHA or `config:<digest>`. */
  readonly revision: string | null;
  readonly lastAttemptedRevision: string | null;
  /** Revision of the last run after which no resource was failed. */
  readonly lastAppliedRevision: string | null;
  readonly lastError: StatusError | null;
  /** The config problems while `Stalled`, sorted; empty otherwise. */
  readonly issues: readonly StatusIssue[];
  readonly lastPull: PullStatus | null;
  readonly retry: RetryStatus | null;
  /** A plan that deletes, deferred until the files are quiet; null once its settle run has run. */
  readonly settleHold: SettleHoldStatus | null;
  /** Unclaimed objects, sorted by kind, zone and id, at most 100 (the gauge counts them all). */
  readonly unclaimed: readonly UnclaimedObject[];
  /** Each container app's last watched rollout, by subject (`edgesync_app_health`). */
  readonly apps: readonly AppHealthStatus[];
  readonly lastSuccessAt: string | null;
  /** The last reconcile records of the state store, newest first. */
  readonly runs: readonly RunRecord[];
  /** Resources per state. */
  readonly counts: Readonly<Record<ResourceState, number>>;
  /** Every managed resource, by subject. */
  readonly resources: readonly ResourceStatus[];
}

/** `StatusDocument` split in two: every field but the last, and the last, `resources`. */
interface StatusSnapshot {
  readonly head: Omit<StatusDocument, 'resources'>;
  readonly resources: readonly ResourceStatus[];
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
  /** Counts per kind and state, for the resource gauge. */
  countsByKind(): Map<string, Map<string, number>>;
  document(runs: readonly RunRecord[]): StatusDocument;
  /**
   * The document without copying its resources: the records themselves, sorted by subject.
   * A record is never changed once made (a write replaces it), so one that is the same object
   * as in an earlier snapshot serialises to the same JSON.
   */
  snapshot(runs: readonly RunRecord[]): StatusSnapshot;
  /** Bumped by every write above: the same count (and runs) means the same document. */
  readonly writes: number;
}

const STATES: readonly ResourceState[] = ['pending', 'in-sync', 'suspended', 'report-only', 'failed'];

function stateOf(change: PlannedChange, result: ChangeResult): ResourceState {
  switch (result.outcome) {
    case 'applied':
    case 'unchanged':
      return 'in-sync';
    case 'failed':
      return 'failed';
    case 'skipped':
      return change.skip === 'suspended' ? 'suspended' : 'report-only';
  }
}

/** A field diff with display values (the plan's formatting: see docs/daemon.md, Status page). */
function statusFieldDiff(diff: FieldDiff): StatusFieldDiff {
  return {
    path: diff.path,
    live: formatValue(diff.live),
    desired: diff.desired === undefined ? '(deleted)' : formatValue(diff.desired),
  };
}

/** The Shield Zone a resource's spec names (`shieldZoneId`), as text. */
function zoneOf(resource: DesiredResource): string | null {
  const spec = resource.spec as { shieldZoneId?: unknown } | null;
  const id = typeof spec === 'object' && spec !== null ? spec.shieldZoneId : undefined;
  return typeof id === 'number' ? String(id) : null;
}

/** Creates an empty tracker: not ready, no resources. */
export function createStatusTracker(): StatusTracker {
  // Records are replaced, never changed in place: see snapshot().
  const resources = new Map<string, ResourceStatus>();
  // Subjects in order, kept until a subject comes or goes (10,000 compared per /status otherwise).
  let sorted: string[] | undefined;
  // The desired resource each record's source was last taken from. The loader hands back the
  // same object for a resource whose file did not change, so syncResources skips it at once:
  // formatting 10,000 locations took 7-13 ms of every triggered run.
  const syncedFrom = new Map<string, DesiredResource>();
  let reconciling = false;
  let stalledOn: readonly StatusIssue[] | undefined;
  let revision: string | null = null;
  let lastAttemptedRevision: string | null = null;
  let lastAppliedRevision: string | null = null;
  let lastError: StatusError | null = null;
  let runError: StatusError | null = null;
  let lastPull: PullStatus | null = null;
  let retry: StatusDocument['retry'] = null;
  let settleHold: SettleHoldStatus | null = null;
  let unclaimed: readonly UnclaimedObject[] = [];
  let apps: readonly AppHealthStatus[] = [];
  let lastSuccessAt: string | null = null;
  let writes = 0;

  function failedCount(): number {
    let n = 0;
    for (const resource of resources.values()) if (resource.state === 'failed') n += 1;
    return n;
  }

  function degraded(): boolean {
    return runError !== null || failedCount() > 0;
  }

  function phase(): DaemonPhase {
    if (reconciling) return 'Reconciling';
    if (stalledOn !== undefined) return 'Stalled';
    return degraded() ? 'Degraded' : 'Ready';
  }

  function snapshot(runs: readonly RunRecord[]): StatusSnapshot {
    const counts = Object.fromEntries(STATES.map((s) => [s, 0])) as Record<ResourceState, number>;
    sorted ??= [...resources.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const list = sorted.map((subject) => resources.get(subject) as ResourceStatus);
    for (const resource of list) counts[resource.state] += 1;
    const head = {
      status: phase(),
      ready: revision !== null,
      degraded: degraded(),
      revision,
      lastAttemptedRevision,
      lastAppliedRevision,
      lastError,
      issues: stalledOn ?? [],
      lastPull,
      retry,
      settleHold,
      unclaimed,
      apps,
      lastSuccessAt,
      runs: [...runs].reverse(),
      counts,
    };
    return { head, resources: list };
  }

  return {
    get ready() {
      return revision !== null;
    },
    get degraded() {
      return degraded();
    },
    get writes() {
      return writes;
    },
    syncResources(desired) {
      writes += 1;
      for (const resource of desired) {
        if (syncedFrom.get(resource.subject) === resource) continue;
        syncedFrom.set(resource.subject, resource);
        const source = issueLocation(resource.source);
        const zone = zoneOf(resource);
        const known = resources.get(resource.subject);
        if (known !== undefined) {
          if (known.source !== source || known.zone !== zone) {
            resources.set(resource.subject, { ...known, source, zone });
          }
          continue;
        }
        sorted = undefined;
        resources.set(resource.subject, {
          subject: resource.subject,
          kind: resource.kind,
          name: resource.name,
          source,
          zone,
          state: 'pending',
          drift: null,
          lastError: null,
          lastAppliedAt: null,
          lastCheckedAt: null,
        });
      }
      // Subjects are unique in a loaded state, so equal sizes mean none of the records is gone.
      if (resources.size === desired.length) return;
      const seen = new Set(desired.map((resource) => resource.subject));
      for (const subject of [...resources.keys()]) {
        if (seen.has(subject)) continue;
        resources.delete(subject);
        syncedFrom.delete(subject);
        sorted = undefined;
      }
    },
    recordResult(change, result, at) {
      writes += 1;
      const resource = resources.get(change.subject);
      if (resource === undefined) return;
      const iso = at.toISOString();
      const error = result.error ?? (result.outcome === 'failed' ? change.error : undefined);
      // The fields in the record's order: the JSON of a replaced record keeps its key order.
      resources.set(change.subject, {
        ...resource,
        state: stateOf(change, result),
        drift:
          result.outcome !== 'applied' && change.diffs.length > 0
            ? {
                cause: change.cause,
                fields: change.diffs.map((d) => d.path),
                diffs: change.diffs.map(statusFieldDiff),
              }
            : null,
        lastError:
          result.outcome === 'failed' && error !== undefined
            ? { code: error.code, message: error.message, at: iso }
            : null,
        lastAppliedAt: result.outcome === 'applied' ? iso : resource.lastAppliedAt,
        lastCheckedAt: iso,
      });
    },
    failedCount,
    runStarted() {
      writes += 1;
      reconciling = true;
    },
    attempted(attemptedRevision) {
      writes += 1;
      lastAttemptedRevision = attemptedRevision;
    },
    runFinished() {
      writes += 1;
      reconciling = false;
    },
    loaded(loadedRevision) {
      writes += 1;
      stalledOn = undefined;
      revision = loadedRevision;
      lastAttemptedRevision = loadedRevision;
    },
    stalled(issues, error) {
      writes += 1;
      stalledOn = issues.map((issue) => ({ ...issue, location: issueLocation(issue) }));
      lastError = error;
    },
    setLastError(error) {
      writes += 1;
      lastError = error;
    },
    setRunError(error) {
      writes += 1;
      runError = error;
    },
    applied(appliedRevision, at) {
      writes += 1;
      lastAppliedRevision = appliedRevision;
      if (at !== undefined) lastSuccessAt = at.toISOString();
    },
    setPull(pull) {
      writes += 1;
      lastPull = pull;
    },
    setRetry(next) {
      writes += 1;
      retry =
        next === null
          ? null
          : {
              attempt: next.attempt,
              at: next.at.toISOString(),
              code: next.code,
              reason: next.reason,
              retryAfterMs: next.retryAfterMs ?? null,
            };
    },
    setSettleHold(hold) {
      writes += 1;
      settleHold = hold;
    },
    setUnclaimed(objects) {
      writes += 1;
      unclaimed = objects;
    },
    setApps(next) {
      writes += 1;
      apps = next;
    },
    markRolloutFailed(subject, error) {
      writes += 1;
      const resource = resources.get(subject);
      if (resource === undefined) return;
      resources.set(subject, { ...resource, state: 'failed', lastError: error, lastCheckedAt: error.at });
    },
    countsByKind() {
      const out = new Map<string, Map<string, number>>();
      for (const resource of resources.values()) {
        let byState = out.get(resource.kind);
        if (byState === undefined) {
          byState = new Map(STATES.map((s) => [s, 0]));
          out.set(resource.kind, byState);
        }
        byState.set(resource.state, (byState.get(resource.state) ?? 0) + 1);
      }
      return out;
    },
    document(runs) {
      const { head, resources: list } = snapshot(runs);
      return { ...head, resources: list.map((r) => ({ ...r })) };
    },
    snapshot,
  };
}

/** Resources per piece of the `/status` body: ~25 KB of JSON each. */
const RESOURCES_PER_PIECE = 100;

/** The JSON of some resources of the list, with the comma before them unless they are first. */
function piece(members: readonly ResourceStatus[], first: boolean): Buffer {
  const json = members.map((member) => JSON.stringify(member)).join(',');
  return Buffer.from(first ? json : `,${json}`);
}

/**
 * The bytes of `GET /status`, in pieces, serialised again only when the status or the run
 * records changed, and then only the pieces whose resources changed: the head (everything
 * but `resources`), and each run of `RESOURCES_PER_PIECE` resources whose records are all the
 * same objects as last time is reused. Concatenated, the pieces are
 * `JSON.stringify(tracker.document(runs))` and a newline.
 *
 * Why: with 10,000 resources the document is ~2.5 MB. Serialised whole for every request, a
 * client polling every 20 ms took the daemon from 183 to 227 MB of RSS in 8 s. Serialised
 * whole once per change, the same client still cost a Node 24 daemon ~20 MB over 12
 * triggered runs (194 → 212–215 MB): a run writes the status many times, and every copy
 * was a large string that only a full collection frees. A run that changes one resource now
 * costs one 25 KB piece and the head.
 */
export function createStatusBody(
  tracker: StatusTracker,
  runs: () => readonly RunRecord[],
): () => readonly Buffer[] {
  let cached: { writes: number; runs: readonly RunRecord[]; pieces: readonly Buffer[] } | undefined;
  let groups: ReadonlyArray<{ members: readonly ResourceStatus[]; bytes: Buffer }> = [];
  const tail = Buffer.from(']}\n');
  return () => {
    const current = runs();
    if (cached?.writes === tracker.writes && cached.runs === current) return cached.pieces;
    const { head, resources } = tracker.snapshot(current);
    // `resources` is the document's last key: the head's JSON without its closing brace.
    const pieces: Buffer[] = [Buffer.from(`${JSON.stringify(head).slice(0, -1)},"resources":[`)];
    const next: Array<{ members: readonly ResourceStatus[]; bytes: Buffer }> = [];
    for (let start = 0; start < resources.length; start += RESOURCES_PER_PIECE) {
      const members = resources.slice(start, start + RESOURCES_PER_PIECE);
      // Same position, so the same leading comma or none.
      const previous = groups[next.length];
      const same =
        previous !== undefined &&
        previous.members.length === members.length &&
        members.every((member, i) => member === previous.members[i]);
      const bytes = same ? previous.bytes : piece(members, start === 0);
      next.push({ members, bytes });
      pieces.push(bytes);
    }
    pieces.push(tail);
    groups = next;
    cached = { writes: tracker.writes, runs: current, pieces };
    return pieces;
  };
}
