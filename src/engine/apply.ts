/**
 * Apply phase: sends each change's requests and records one outcome per change.
 *
 * Writes to one Shield Zone run one at a time (the real API loses concurrent writes in a
 * zone, Terraform provider #64); everything else runs with bounded concurrency. A failed
 * change never stops the others. Within a change the requests run in order and stop at the
 * first failure, so a resource is never sent half of a change after an error.
 */
import pLimit from 'p-limit';
import type { ApiRequest, WriteOperationId } from '../api/operations.js';
import type { ApiClient } from '../api/types.js';
import { redactSensitive } from '../domain/sensitive.js';
import { ReconcileError, toReconcileError } from '../errors.js';
import { KINDS } from '../kinds/registry.js';
import type { ApplyResult, ChangeOutcome, ChangeResult, PlannedChange, RequestRecord } from './types.js';

export interface ApplyOptions {
  api: ApiClient;
  concurrency: number;
  signal: AbortSignal;
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
    const reply = await options.api.execute(request, { signal: options.signal });
    const audit = kind.checkReply?.(request, reply);
    sent.push({
      operation: request.operation,
      method: request.method,
      path: request.path,
      ...(audit === undefined ? {} : { reply: audit }),
    });
  }
}

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
    sent: [],
    ...(change.skip === undefined ? {} : { skip: change.skip }),
    durationMs: 0,
  });
  if (change.action === 'noop') return result('unchanged');
  if (change.action === 'error') {
    return {
      ...result('failed'),
      error: change.error ?? { code: 'INTERNAL', message: 'change failed to plan' },
    };
  }
  if (change.skip !== undefined) return result('skipped');
  return undefined;
}

/** Sends one change that has requests (applyChanges settles the others first). */
async function applyChange(change: PlannedChange, options: ApplyOptions): Promise<ChangeResult> {
  const started = performance.now();
  const finish = (outcome: ChangeOutcome, sent: RequestRecord[], error?: ReconcileError): ChangeResult => ({
    subject: change.subject,
    kind: change.kind,
    outcome,
    sent,
    ...(error === undefined
      ? {}
      : { error: { code: error.code, message: redactSensitive(error.message, change.requests) } }),
    durationMs: Math.round(performance.now() - started),
  });
  const sent: RequestRecord[] = [];
  try {
    await sendAll(change, options, sent);
    return finish('applied', sent);
  } catch (err) {
    const error = toReconcileError(err);
    if (error.code !== 'API_AMBIGUOUS') return finish('failed', sent, error);
    try {
      const fresh = await options.replan(change);
      if (fresh.action === 'noop') return finish('applied', sent);
      if (fresh.action === 'error' || fresh.skip !== undefined) {
        return finish(
          'failed',
          sent,
          new ReconcileError(fresh.error?.code ?? 'API_AMBIGUOUS', fresh.error?.message ?? error.message),
        );
      }
      await sendAll(fresh, options, sent);
      return finish('applied', sent);
    } catch (retryErr) {
      return finish('failed', sent, toReconcileError(retryErr));
    }
  }
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
  const ordered = changes
    .map((c) => results.get(c.subject))
    .filter((r): r is ChangeResult => r !== undefined);
  const counts: Record<ChangeOutcome, number> = { applied: 0, unchanged: 0, skipped: 0, failed: 0 };
  for (const result of ordered) counts[result.outcome] += 1;
  return { results: ordered, counts, ok: counts.failed === 0 };
}
