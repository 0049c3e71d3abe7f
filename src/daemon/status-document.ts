/**
 * The `GET /status` document: what the daemon shows of itself and of every resource. The
 * status page reads it through `ui/status-shape.ts` (a type test keeps the two in step); the
 * tracker (`status.ts`) builds it.
 */
import type { ConfigIssue } from '../config/types.js';
import type { RunRecord } from '../engine/state.js';
import type { DriftCause } from '../engine/types.js';

/** The daemon's condition. */
export type DaemonPhase = 'Ready' | 'Degraded' | 'Reconciling' | 'Stalled';

/**
 * One resource's state after the last run that covered it. `pending`: loaded, not reconciled
 * yet. `in-sync`: live equals desired (found so, or applied). `suspended` / `report-only`:
 * live differs and edgesync does not write it (`metadata.suspend`, `metadata.drift: report` or
 * `--drift report`). `failed`: it could not be read, planned or applied (see `lastError`).
 */
export type ResourceState = 'pending' | 'in-sync' | 'suspended' | 'report-only' | 'failed';

/** An error as /status shows it: the code, a message safe to show, and when. */
export interface StatusError {
  readonly code: string;
  readonly message: string;
  readonly at: string;
}

/**
 * One differing field as the plan prints it: values on one short line, `(sensitive)` for a
 * secret, `(absent)` for a missing live item, `(deleted)` for an item the YAML drops.
 */
export interface StatusFieldDiff {
  readonly path: string;
  readonly live: string;
  readonly desired: string;
}

/** One resource in /status. */
export interface ResourceStatus {
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
export interface StatusIssue extends ConfigIssue {
  readonly location: string;
}

/** The last `git pull --ff-only` (with `--git-pull`). */
export interface PullStatus {
  readonly at: string;
  readonly ok: boolean;
  readonly error?: string;
}

/** The pending retry: when, after which failure, and whether a Retry-After set the delay. */
export interface RetryStatus {
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
/** Who leads the state store, as `/status` shows it (docs/state.md, Leadership). */
export interface LeaderStatus {
  readonly pid: number;
  readonly host: string;
  /** When the leader took the lease (ISO). */
  readonly since: string;
  readonly term: number;
}

export interface StatusDocument {
  readonly status: DaemonPhase;
  /** `leader` while this daemon holds the lease and writes; `standby` while another one does. */
  readonly role: 'leader' | 'standby';
  /** The leader (this daemon, or the one a standby waits for); null while unknown. */
  readonly leader: LeaderStatus | null;
  /**
   * True once the desired state has loaded successfully, or once the daemon stood by (a
   * standby stays in its Service): what /readyz answers.
   */
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
