/**
 * The plan and its results as plain data. A plan can be printed, rendered as JSON or
 * Markdown, compared in tests and applied later; it holds no closures.
 */
import type { ApiRequest, WriteOperationId } from '../api/operations.js';
import type { ObjectId, ObjectIdentity } from '../kinds/common/identity.js';
import type { FieldDiff, KindName, OptimalRegion, PlanError, SourceLocation } from '../kinds/types.js';

export type { FieldDiff, OptimalRegion } from '../kinds/types.js';

/**
 * Why live differs from desired, from the state store: the YAML changed since the last apply
 * (`desired-changed`), or it did not and live was edited by someone else (`out-of-band`).
 */
export type DriftCause = 'desired-changed' | 'out-of-band' | 'unknown';

/**
 * `update`: requests will be sent. `create`: a custom rule or list is created (`+`). `adopt`:
 * an existing one found by its key joins the inventory (requests only if it differs).
 * `delete`: a custom rule or list no document claims is pruned (`-`). `noop`: live equals
 * desired. `error`: live could not be read, the change is refused (deletion without
 * allowDeletions, a threshold, a zone limit) or it cannot be expressed; nothing is sent for it.
 */
export type ChangeAction = 'create' | 'adopt' | 'update' | 'delete' | 'noop' | 'error';

/** The actions that change something (and count for thresholds and exit codes). */
export function isWrite(action: ChangeAction): boolean {
  return action === 'create' || action === 'adopt' || action === 'update' || action === 'delete';
}

/** Why a live object is pruned: its inventory entry lost its document, or its zone is exclusive. */
type PruneReason = 'inventory' | 'exclusive';

/** A prune candidate that is not deleted this run, and why (information, not a change). */
export interface PruneNote {
  readonly kind: KindName;
  /** The Shield Zone of the object; absent for objects of the whole account (apps). */
  readonly shieldZoneId?: number;
  readonly id: ObjectId;
  readonly key: string;
  /** The inventory subject that owned it, when there is one. */
  readonly subject?: string;
  readonly reason: string;
  /**
   * Set when only `--prune` is missing: with it the object would be deleted (`delete`) or the
   * deletion refused by a guard without `--force` (`refused`). Absent when something else keeps
   * it (an unreadable state, a rename, a zone that could not be read).
   */
  readonly withPrune?: 'delete' | 'refused';
  /** With `withPrune: 'refused'`: the guard's message. */
  readonly guard?: string;
}

/** A live object of an exclusive zone that an `ignore` glob keeps from being pruned. */
export interface IgnoredObject {
  readonly kind: KindName;
  readonly shieldZoneId?: number;
  readonly id: ObjectId;
  readonly key: string;
  /** The glob that matched the name. */
  readonly glob: string;
  /** The ShieldZone document that declares it. */
  readonly shieldZone: string;
}

/** Why an `update` is not written: `metadata.suspend`, or drift mode `report`. */
type SkipReason = 'suspended' | 'report-only';

export interface PlannedChange {
  readonly subject: string;
  readonly kind: KindName;
  readonly name: string;
  readonly source: SourceLocation;
  readonly action: ChangeAction;
  readonly cause: DriftCause;
  readonly diffs: readonly FieldDiff[];
  /** The exact requests apply sends, in order. Empty unless `action` is `update`. */
  readonly requests: readonly ApiRequest<WriteOperationId>[];
  readonly skip?: SkipReason;
  readonly error?: PlanError;
  /** The desired resource's digest, recorded in the state store once applied. */
  readonly digest: string;
  /** Shield Zone the requests write to: writes to one zone are serialised. */
  readonly shieldZoneId?: number;
  /** Write-only values to store once applied (see KindPlan.remember). */
  readonly remember?: Readonly<Record<string, unknown>>;
  /** Custom rules and lists: the live object this change resolves to (or creates, or deletes). */
  readonly object?: ObjectIdentity;
  /** A delete: why the object is pruned. */
  readonly prune?: PruneReason;
  /** A create that apply re-plans once the object exists (an access list's E3). */
  readonly followUp?: boolean;
  /** A create after which the kind's `lifecycle.afterCreate` requests go, at the new id (an app's deploy). */
  readonly afterCreate?: boolean;
  /**
   * The object was created by an earlier run whose `afterCreate` requests then failed: they are
   * this change's last requests (docs/reconcile.md, Container apps).
   */
  readonly afterCreateOwed?: boolean;
  /**
   * A rollback (`spec.rollout.onFailure: rollback`): the revision whose rollout failed, and the
   * last one that reached `active`, applied again; `notes`: what of it could not be restored.
   */
  readonly rollback?: { readonly from: string; readonly to: string; readonly notes: readonly string[] };
}

export interface PlanSummary {
  readonly resources: number;
  /** Every write: updates, creates, adoptions with field differences, and deletes. */
  readonly toUpdate: number;
  /** Of `toUpdate`, the creates, adoptions and deletes; present only when not zero. */
  readonly toCreate?: number;
  readonly toAdopt?: number;
  readonly toDelete?: number;
  /**
   * Adoptions by name with no field difference: information, not changes (apply records them
   * in the inventory and sends nothing). Present only when not zero.
   */
  readonly adopted?: number;
  /** Objects `--prune` would delete (or refuse without `--force`) while it is off; only when not zero. */
  readonly withPrune?: number;
  readonly unchanged: number;
  readonly skipped: number;
  readonly errors: number;
  readonly destructive: number;
}

/** A plan of a part of the configuration (`--only`; engine/only.ts). */
export interface PartialPlan {
  /** The subjects named, as given (duplicates dropped). */
  readonly only: readonly string[];
  /** How many documents were selected, of how many the configuration has. */
  readonly documents: number;
  readonly of: number;
  /** Named subjects with no document: objects edgesync owns, pruned with `--prune`. */
  readonly withoutDocument: number;
}

export interface Plan {
  readonly version: 1;
  /** Git SHA or config digest the plan was made from. */
  readonly revision: string;
  /**
   * The API base URL the live state was read from. The CLI adds it (`withApi`) so every format
   * says which account's API a plan is about; a missing --base-url means the production API.
   */
  readonly api?: string;
  readonly createdAt: string;
  readonly changes: readonly PlannedChange[];
  readonly summary: PlanSummary;
  /**
   * What `@optimal` stood for in this plan (E7's region id, or why E7 failed); present only
   * when some app uses it, so a plan with no change still says where the apps are pinned.
   */
  readonly optimalRegion?: OptimalRegion;
  /** What would be pruned but is not (--prune off, unreadable state, a guard): information only. */
  readonly notPruned?: readonly PruneNote[];
  /** Live objects of exclusive zones that `ignore` globs keep (information). */
  readonly ignored?: readonly IgnoredObject[];
  /**
   * Inventory subjects whose document is gone and whose object is too (deleted out of band):
   * an apply drops them from the inventory, as a refresh drops what no longer exists.
   */
  readonly gone?: readonly string[];
  /** Present when `--only` selected a part of the configuration: nothing else was read or planned. */
  readonly partial?: PartialPlan;
}

/** Outcome of one change at apply time (flux's vocabulary). */
export type ChangeOutcome = 'applied' | 'unchanged' | 'skipped' | 'failed';

export interface RequestRecord {
  readonly operation: WriteOperationId;
  readonly method: string;
  readonly path: string;
  /** Reply of the request, reduced to what is worth auditing (e.g. the DNSSEC status object). */
  readonly reply?: unknown;
}

export interface ChangeResult {
  readonly subject: string;
  readonly kind: KindName;
  readonly outcome: ChangeOutcome;
  /** Requests that were sent and succeeded. */
  readonly sent: readonly RequestRecord[];
  readonly error?: PlanError;
  readonly skip?: SkipReason;
  readonly durationMs: number;
  /** What the change did: its planned action (`create`, `delete`, …). */
  readonly action?: ChangeAction;
  /** The id of the object a create made (or a re-plan found), for the inventory. */
  readonly objectId?: ObjectId;
  /** The object was created but its `afterCreate` requests failed: the inventory records them as owed. */
  readonly afterCreateFailed?: boolean;
}

export interface ApplyResult {
  /** One per change of the plan applied, in its order: `results[i]` is the outcome of `changes[i]`. */
  readonly results: readonly ChangeResult[];
  readonly counts: Readonly<Record<ChangeOutcome, number>>;
  /** True when nothing failed (neither at plan time nor at apply time). */
  readonly ok: boolean;
}
