/**
 * Apply phase: sends each change's requests and records one outcome per change.
 *
 * Writes to one Shield Zone run one at a time (the real API loses concurrent writes in a
 * zone, Terraform provider #64), updates first, then creates, then deletes, so a zone never
 * holds fewer rules than intended; everything else runs with bounded concurrency. A failed
 * change never stops the others. Within a change the requests run in order and stop at the
 * first failure, so a resource is never sent half of a change after an error.
 */
import pLimit from 'p-limit';
import type { ApiRequest, WriteOperationId } from '../api/operations.js';
import type { ApiClient } from '../api/types.js';
import { redactSensitive } from '../domain/sensitive.js';
import { ReconcileError, toReconcileError } from '../errors.js';
import type { ObjectId } from '../kinds/common/identity.js';
import { KINDS } from '../kinds/registry.js';
import type {
  ApplyResult,
  ChangeAction,
  ChangeOutcome,
  ChangeResult,
  PlannedChange,
  RequestRecord,
} from './types.js';

export interface ApplyOptions {
  api: ApiClient;
  concurrency: number;
  signal: AbortSignal;
  /** Before each attempt of each write (retries included): throws to send nothing (fencing). */
  beforeSend?: () => void;
  /**
   * Re-reads and re-plans one change. Used after an ambiguous E4 failure (a write that
   * creates containers timed out after it was sent): sending it again blindly could create
   * duplicate containers, so edgesync looks at the app first.
   */
  replan(change: PlannedChange): Promise<PlannedChange>;
  /** Called as each change finishes (audit log, metrics). */
  onResult?(change: PlannedChange, result: ChangeResult): void;
  /** Called before each request is sent (the daemon counts writes in flight for shutdown). */
  onRequest?(change: PlannedChange, request: ApiRequest<WriteOperationId>): void;
}

async function sendAll(change: PlannedChange, options: ApplyOptions, sent: RequestRecord[]): Promise<void> {
  const kind = KINDS[change.kind];
  for (const request of change.requests) {
    options.onRequest?.(change, request);
    // Recorded before it is sent: a request that fails may still have reached the API, and
    // `change.failed` must list it.
    const record: RequestRecord = {
      operation: request.operation,
      method: request.method,
      path: request.path,
    };
    const index = sent.push(record) - 1;
    let reply: unknown;
    try {
      reply = await options.api.execute(request, {
        signal: options.signal,
        ...(options.beforeSend === undefined ? {} : { beforeSend: options.beforeSend }),
      });
    } catch (err) {
      // A prune answered 404 has nothing left to delete: the object is gone, as asked.
      if (!(change.action === 'delete' && toReconcileError(err).code === 'API_NOT_FOUND')) throw err;
      sent[index] = { ...record, reply: 'already gone' };
      continue;
    }
    const audit = kind.checkReply?.(request, reply as never);
    if (audit !== undefined) sent[index] = { ...record, reply: audit };
  }
}

/** The requests of every change that sends none: one frozen list, not one per resource per run. */
const NOTHING_SENT: readonly RequestRecord[] = Object.freeze([]);

/**
 * The outcome of a change that sends nothing (noop, error, skipped), or undefined for one that
 * must be applied. Settled at once: a no-change reconcile of 10,000 resources used to queue
 * 10,000 lanes through the concurrency limiter for nothing.
 */
function settledWithoutRequests(change: PlannedChange): ChangeResult | undefined {
  const result = (outcome: ChangeOutcome): ChangeResult => ({
    subject: change.subject,
    kind: change.kind,
    outcome,
    sent: NOTHING_SENT,
    ...(change.skip === undefined ? {} : { skip: change.skip }),
    durationMs: 0,
    action: change.action,
    ...(change.object?.id === undefined ? {} : { objectId: change.object.id }),
  });
  if (change.action === 'noop') return result('unchanged');
  if (change.action === 'error') {
    return {
      ...result('failed'),
      error: change.error ?? { code: 'INTERNAL', message: 'change failed to plan' },
    };
  }
  if (change.skip !== undefined) return result('skipped');
  // An adoption that finds the object as declared sends nothing: it only joins the inventory.
  if (change.requests.length === 0) return result('applied');
  return undefined;
}

/** The id a create's reply named (the kind's checkReply audits it as `{id}`). */
function createdId(change: PlannedChange, sent: readonly RequestRecord[]): ObjectId | undefined {
  const operation = KINDS[change.kind].lifecycle?.createOperation;
  if (operation === undefined) return undefined;
  for (const record of sent) {
    if (record.operation !== operation) continue;
    const id = (record.reply as { id?: unknown } | undefined)?.id;
    if (typeof id === 'number' || typeof id === 'string') return id;
  }
  return undefined;
}

/**
 * The write was sent and no reply came back (a timeout, a dropped connection): unlike a 5xx,
 * which the server answered (usually before doing anything), it most likely took effect.
 */
function replyLost(error: ReconcileError): boolean {
  return (error.details as { shape?: unknown } | undefined)?.shape === 'no-reply';
}

/** Why a create whose reply was lost is not sent again (see docs/reconcile.md, Creates and deletes). */
function unknownCreate(change: PlannedChange): string {
  const key = JSON.stringify(change.object?.key ?? change.name);
  const zone = change.object === undefined ? 'the zone' : `Shield Zone ${change.object.shieldZoneId}`;
  return (
    `outcome unknown: the create of ${key} was sent and its reply was lost, and ${zone}'s listing ` +
    'does not show it yet (a listing may lag); it is not sent again in this run: the next run lists the zone again and adopts it by name, or creates it'
  );
}

/** Sends one change that has requests (applyChanges settles the others first). */
async function applyChange(change: PlannedChange, options: ApplyOptions): Promise<ChangeResult> {
  const started = performance.now();
  /** The object a re-plan found (after an ambiguous create, or a create's follow-up). */
  let foundId: ObjectId | undefined;
  const finish = (outcome: ChangeOutcome, sent: RequestRecord[], error?: ReconcileError): ChangeResult => {
    const objectId = createdId(change, sent) ?? foundId ?? change.object?.id;
    return {
      subject: change.subject,
      kind: change.kind,
      outcome,
      sent,
      ...(error === undefined
        ? {}
        : { error: { code: error.code, message: redactSensitive(error.message, change.requests) } }),
      durationMs: Math.round(performance.now() - started),
      action: change.action,
      ...(objectId === undefined ? {} : { objectId }),
    };
  };
  /**
   * Re-reads and re-plans the change, then sends what is still needed. After an ambiguous
   * create this is what keeps one object per key: the fresh listing finds the object the lost
   * reply made (an adoption) or shows it was never made (a create, now safe to send).
   */
  async function replanAndSend(
    sent: RequestRecord[],
    why: ReconcileError | undefined,
  ): Promise<ChangeResult> {
    const fresh = await options.replan(change);
    foundId = fresh.object?.id;
    if (fresh.action === 'noop') return finish('applied', sent);
    if (why === undefined && fresh.action === 'create') {
      // The create succeeded, so a listing without the new object is behind: never create twice.
      const id = createdId(change, sent);
      return finish(
        'failed',
        sent,
        new ReconcileError(
          'API_BAD_RESPONSE',
          `the listing does not show the ${change.kind} #${id} just created; its follow-up was not sent`,
        ),
      );
    }
    if (why !== undefined && replyLost(why) && fresh.action === 'create') {
      // The create probably landed and the listing is behind: a second POST would make a second
      // object with the key. Its outcome is unknown until the next run lists the zone again.
      return finish('failed', sent, new ReconcileError('API_AMBIGUOUS', unknownCreate(change)));
    }
    if (fresh.action === 'error' || fresh.skip !== undefined) {
      const code = fresh.error?.code ?? why?.code ?? 'API_AMBIGUOUS';
      return finish(
        'failed',
        sent,
        new ReconcileError(code, fresh.error?.message ?? why?.message ?? 'failed'),
      );
    }
    await sendAll(fresh, options, sent);
    // A list created only now, after the re-listing, still owes its enabled/action (E3).
    if (fresh.action === 'create' && fresh.followUp === true) return replanAndSend(sent, undefined);
    return finish('applied', sent);
  }
  const sent: RequestRecord[] = [];
  const result = await sendWithReplan(change, options, sent, replanAndSend, finish);
  if (change.afterCreate !== true || result.outcome !== 'applied' || result.objectId === undefined)
    return result;
  // The new object exists (its id from the reply, or from the re-listing after a lost reply):
  // now what the kind does with a created object (an app's deploy).
  const after = KINDS[change.kind].lifecycle?.afterCreate?.(result.objectId) ?? [];
  try {
    await sendAll({ ...change, requests: after }, options, sent);
    return finish('applied', sent);
  } catch (err) {
    // The object exists: the inventory keeps it, with these requests owed to the next run.
    return { ...finish('failed', sent, toReconcileError(err)), afterCreateFailed: true };
  }
}

/** Sends the change; an ambiguous failure is re-read and re-planned, never resent blindly. */
async function sendWithReplan(
  change: PlannedChange,
  options: ApplyOptions,
  sent: RequestRecord[],
  replanAndSend: (sent: RequestRecord[], why: ReconcileError | undefined) => Promise<ChangeResult>,
  finish: (outcome: ChangeOutcome, sent: RequestRecord[], error?: ReconcileError) => ChangeResult,
): Promise<ChangeResult> {
  try {
    await sendAll(change, options, sent);
    // A created access list gets its enabled/action at the configuration id a fresh listing names.
    if (change.followUp === true) return await replanAndSend(sent, undefined);
    return finish('applied', sent);
  } catch (err) {
    const error = toReconcileError(err);
    if (error.code !== 'API_AMBIGUOUS') return finish('failed', sent, error);
    try {
      return await replanAndSend(sent, error);
    } catch (retryErr) {
      return finish('failed', sent, toReconcileError(retryErr));
    }
  }
}

/** Write order inside a zone's lane: updates (and adoptions), then creates, then deletes. */
const LANE_ORDER: Partial<Record<ChangeAction, number>> = { create: 1, delete: 2 };

function byLaneOrder(a: PlannedChange, b: PlannedChange): number {
  return (LANE_ORDER[a.action] ?? 0) - (LANE_ORDER[b.action] ?? 0);
}

/**
 * Lanes of the changes that send requests: the changes of one Shield Zone form one sequential
 * lane; every other change is a lane of its own. The longest lanes start first, so the last
 * zone does not run alone at the end.
 */
function lanes(changes: readonly PlannedChange[]): PlannedChange[][] {
  const byZone = new Map<number, PlannedChange[]>();
  const out: PlannedChange[][] = [];
  for (const change of changes) {
    if (change.shieldZoneId === undefined) {
      out.push([change]);
      continue;
    }
    const lane = byZone.get(change.shieldZoneId);
    if (lane === undefined) byZone.set(change.shieldZoneId, [change]);
    else lane.push(change);
  }
  for (const lane of byZone.values()) lane.sort(byLaneOrder);
  return [...byZone.values(), ...out].sort((a, b) => b.length - a.length);
}

/** Applies every change of a plan and returns each outcome. */
export async function applyChanges(
  changes: readonly PlannedChange[],
  options: ApplyOptions,
): Promise<ApplyResult> {
  const limit = pLimit(options.concurrency);
  const results = new Map<string, ChangeResult>();
  function record(change: PlannedChange, result: ChangeResult): void {
    results.set(change.subject, result);
    options.onResult?.(change, result);
  }
  const writes: PlannedChange[] = [];
  for (const change of changes) {
    const settled = settledWithoutRequests(change);
    if (settled === undefined) writes.push(change);
    else record(change, settled);
  }
  await Promise.all(
    lanes(writes).map((lane) =>
      limit(async () => {
        for (const change of lane) record(change, await applyChange(change, options));
      }),
    ),
  );
  const ordered = changes.map((c) => {
    const result = results.get(c.subject);
    if (result === undefined) throw new ReconcileError('INTERNAL', `no outcome for ${c.subject}`);
    return result;
  });
  const counts: Record<ChangeOutcome, number> = { applied: 0, unchanged: 0, skipped: 0, failed: 0 };
  for (const result of ordered) counts[result.outcome] += 1;
  return { results: ordered, counts, ok: counts.failed === 0 };
}
