/**
 * The per-resource half of `/status`: one record per managed resource, following the loaded
 * resources (`sync`) and the outcome of each change a run made (`record`).
 *
 * A record keeps the desired resource it was loaded from and what the runs found; what
 * `/status` shows of it (its `file:line:col`, its zone as text) is made when the document is
 * (`statusOf`). Records are replaced, never changed in place, so a snapshot of them stays
 * what it was while a response is written.
 */
import { issueLocation } from '../config/issues.js';
import type { DesiredResource } from '../config/types.js';
import { formatValue } from '../engine/render.js';
import type { ChangeResult, FieldDiff, PlannedChange } from '../engine/types.js';
import type { ResourceState, ResourceStatus, StatusError, StatusFieldDiff } from './status-document.js';

export const RESOURCE_STATES: readonly ResourceState[] = [
  'pending',
  'in-sync',
  'suspended',
  'report-only',
  'failed',
];

/** What the daemon keeps of one resource between runs. */
export interface ResourceRecord {
  readonly resource: DesiredResource;
  readonly state: ResourceState;
  readonly drift: ResourceStatus['drift'];
  readonly lastError: StatusError | null;
  readonly lastAppliedAt: string | null;
  readonly lastCheckedAt: string | null;
}

/** The records of every managed resource, by subject. */
export interface ResourceRecords {
  /** Adds new subjects as `pending` and forgets the ones no longer declared. */
  sync(resources: readonly DesiredResource[]): void;
  /** Records one change's outcome of a run, at `at` (an ISO timestamp). */
  record(change: PlannedChange, result: ChangeResult, at: string): void;
  /** A rollout the run loop no longer waits for failed (rollouts.ts): the resource is failed now. */
  markRolloutFailed(subject: string, error: StatusError): void;
  /** Resources that are `failed` now. */
  failedCount(): number;
  /** Counts per kind and state, for the resource gauge. */
  countsByKind(): Map<string, Map<string, number>>;
  /** Every record, sorted by subject. */
  sorted(): readonly ResourceRecord[];
}

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

/** A resource in `/status`, in the document's key order. */
export function statusOf(record: ResourceRecord): ResourceStatus {
  const { resource } = record;
  return {
    subject: resource.subject,
    kind: resource.kind,
    name: resource.name,
    source: issueLocation(resource.source),
    zone: zoneOf(resource),
    state: record.state,
    drift: record.drift,
    lastError: record.lastError,
    lastAppliedAt: record.lastAppliedAt,
    lastCheckedAt: record.lastCheckedAt,
  };
}

/** The record after a change's outcome. */
function recordedOutcome(
  known: ResourceRecord,
  change: PlannedChange,
  result: ChangeResult,
  at: string,
): ResourceRecord {
  const error = result.error ?? (result.outcome === 'failed' ? change.error : undefined);
  return {
    resource: known.resource,
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
        ? { code: error.code, message: error.message, at }
        : null,
    lastAppliedAt: result.outcome === 'applied' ? at : known.lastAppliedAt,
    lastCheckedAt: at,
  };
}

export function createResourceRecords(): ResourceRecords {
  const records = new Map<string, ResourceRecord>();
  // Subjects in order, kept until a subject comes or goes (10,000 compared per /status otherwise).
  let order: string[] | undefined;

  return {
    sync(desired) {
      for (const resource of desired) {
        const known = records.get(resource.subject);
        // The loader hands back the same object for a resource whose file did not change.
        if (known?.resource === resource) continue;
        if (known === undefined) order = undefined;
        records.set(
          resource.subject,
          known === undefined
            ? {
                resource,
                state: 'pending',
                drift: null,
                lastError: null,
                lastAppliedAt: null,
                lastCheckedAt: null,
              }
            : { ...known, resource },
        );
      }
      // Subjects are unique in a loaded state, so equal sizes mean none of the records is gone.
      if (records.size === desired.length) return;
      const seen = new Set(desired.map((resource) => resource.subject));
      for (const subject of [...records.keys()]) {
        if (seen.has(subject)) continue;
        records.delete(subject);
        order = undefined;
      }
    },
    record(change, result, at) {
      const known = records.get(change.subject);
      if (known !== undefined) records.set(change.subject, recordedOutcome(known, change, result, at));
    },
    markRolloutFailed(subject, error) {
      const known = records.get(subject);
      if (known !== undefined)
        records.set(subject, { ...known, state: 'failed', lastError: error, lastCheckedAt: error.at });
    },
    failedCount() {
      let n = 0;
      for (const record of records.values()) if (record.state === 'failed') n += 1;
      return n;
    },
    countsByKind() {
      const out = new Map<string, Map<string, number>>();
      for (const record of records.values()) {
        const { kind } = record.resource;
        let byState = out.get(kind);
        if (byState === undefined) {
          byState = new Map(RESOURCE_STATES.map((s) => [s, 0]));
          out.set(kind, byState);
        }
        byState.set(record.state, (byState.get(record.state) ?? 0) + 1);
      }
      return out;
    },
    sorted() {
      order ??= [...records.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      return order.map((subject) => records.get(subject) as ResourceRecord);
    },
  };
}
