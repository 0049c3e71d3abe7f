/**
 * Rollout health (docs/reconcile.md, Rollout health): after a write to an object whose kind
 * rolls out (`KindRollout`: a container app), its health is read every `pollMs` until the API
 * says `active` (succeeded), `failing` (failed), or the document's timeout passes (failed).
 * Watches run concurrently and hold no apply lane; an aborted signal (shutdown, a lost lease)
 * ends them at once as `aborted`. The state keeps per resource how the last rollout went and
 * the last spec that reached `active`, so `onFailure: rollback` can apply it again (then the
 * failed desired state is not applied again until it changes: plan.ts, `rolled-back`).
 *
 * The overview carries no revision, so a read at once after the write could still show the
 * previous rollout's `active`: the first read waits one poll interval.
 */
import type { ApiClient } from '../api/types.js';
import type { DesiredResource } from '../config/types.js';
import { redactSensitive } from '../domain/sensitive.js';
import { toReconcileError } from '../errors.js';
import type { ObjectId } from '../kinds/common/identity.js';
import type { ContainerHealth, HealthStatus } from '../kinds/common/rollout.js';
import { KINDS } from '../kinds/registry.js';
import type { KindName } from '../kinds/types.js';
import type { Logger } from '../log.js';
import type { RolloutRecord, StateStore } from './state.js';
import type { ApplyResult, Plan } from './types.js';

/** How often a rollout's health is read (`--rollout-poll-ms`). */
export const DEFAULT_ROLLOUT_POLL_MS = 2_000;

/** True for the kinds whose writes roll out (an app): `/status` lists their health. */
export function watchesRollouts(kind: KindName): boolean {
  return KINDS[kind].rollout !== undefined;
}

/** One write whose rollout is watched. In memory only: `redact` is a function. */
export interface RolloutTarget {
  readonly subject: string;
  readonly kind: KindName;
  readonly objectId: ObjectId;
  readonly revision: string;
  /** The digest of the desired state written (the plan's, keyed when it holds secrets). */
  readonly digest: string;
  readonly timeoutMs: number;
  readonly onFailure: 'none' | 'rollback';
  /** The spec written, kept (secrets as references or digests) once it reached `active`. */
  readonly spec: unknown;
  /** Set when this write is itself a rollback: it is never rolled back again. */
  readonly rollbackOf?: string;
  /** Removes the values of the write's sensitive variables from the API's words. */
  readonly redact: (text: string) => string;
}

type RolloutOutcome = 'succeeded' | 'failed' | 'aborted' | 'inactive';

export interface RolloutResult {
  readonly subject: string;
  readonly kind: KindName;
  readonly objectId: ObjectId;
  readonly revision: string;
  readonly outcome: RolloutOutcome;
  /** The API's status at the last read (`unknown` when none succeeded). */
  readonly health: HealthStatus;
  readonly durationMs: number;
  /** Failed: `ROLLOUT_FAILED` with the status, the failing container and its reason and message. */
  readonly error?: { readonly code: string; readonly message: string };
  /** The container that explains a failure, when the overview names one. */
  readonly container?: ContainerHealth;
  readonly onFailure: 'none' | 'rollback';
  readonly rollbackOf?: string;
}

interface WatchOptions {
  readonly api: ApiClient;
  readonly signal: AbortSignal;
  readonly pollMs: number;
}

/**
 * The writes of an apply whose rollouts are watched: applied creates (deployed), adoptions
 * and updates that sent requests, of kinds with a rollout part.
 */
export function rolloutTargets(
  plan: Plan,
  apply: ApplyResult,
  resourceOf: (subject: string) => DesiredResource | undefined,
  rollbackOf?: ReadonlyMap<string, string>,
): RolloutTarget[] {
  const targets: RolloutTarget[] = [];
  for (const [index, result] of apply.results.entries()) {
    const change = plan.changes[index];
    const rollout = KINDS[result.kind].rollout;
    if (rollout === undefined || change === undefined) continue;
    if (result.outcome !== 'applied' || result.sent.length === 0 || result.objectId === undefined) continue;
    const resource = resourceOf(result.subject);
    if (resource === undefined) continue;
    if (change.action !== 'create' && change.action !== 'adopt' && change.action !== 'update') continue;
    const settings = rollout.settings(resource.spec, change.action);
    if (!settings.watch) continue;
    const from = rollbackOf?.get(result.subject);
    targets.push({
      subject: result.subject,
      kind: result.kind,
      objectId: result.objectId,
      revision: plan.revision,
      digest: change.digest,
      timeoutMs: settings.timeoutMs,
      onFailure: settings.onFailure,
      spec: resource.spec,
      ...(from === undefined ? {} : { rollbackOf: from }),
      redact: (text) => redactSensitive(text, change.requests),
    });
  }
  return targets;
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The container that best explains a rollout that is not `active`: not started or restarting, most restarts first. */
function culprit(containers: readonly ContainerHealth[]): ContainerHealth | undefined {
  const troubled = containers.filter(
    (c) => c.status === 'notStarted' || c.restarts > 0 || c.reason !== undefined,
  );
  return [...troubled].sort((a, b) => b.restarts - a.restarts)[0];
}

function describe(container: ContainerHealth | undefined, redact: (text: string) => string): string {
  if (container === undefined) return '';
  const parts = [
    container.status ?? 'no status',
    `${container.restarts} restart${container.restarts === 1 ? '' : 's'}`,
    ...(container.reason === undefined ? [] : [redact(container.reason)]),
  ];
  const message = container.message === undefined ? '' : `: ${redact(container.message)}`;
  return `; container ${container.name}: ${parts.join(', ')}${message}`;
}

/** Watches one rollout to its end: `active`, `failing`, the timeout, or the signal. */
async function watchRollout(target: RolloutTarget, options: WatchOptions): Promise<RolloutResult> {
  const started = performance.now();
  const deadline = started + target.timeoutMs;
  let health: HealthStatus = 'unknown';
  let containers: readonly ContainerHealth[] = [];
  let readError: string | undefined;
  const rollout = KINDS[target.kind].rollout;
  const end = (outcome: RolloutOutcome, message?: string): RolloutResult => {
    const container = outcome === 'failed' ? culprit(containers) : undefined;
    return {
      subject: target.subject,
      kind: target.kind,
      objectId: target.objectId,
      revision: target.revision,
      outcome,
      health,
      durationMs: Math.round(performance.now() - started),
      ...(message === undefined ? {} : { error: { code: 'ROLLOUT_FAILED', message } }),
      ...(container === undefined ? {} : { container }),
      onFailure: target.onFailure,
      ...(target.rollbackOf === undefined ? {} : { rollbackOf: target.rollbackOf }),
    };
  };
  if (rollout === undefined) return end('succeeded');
  for (;;) {
    await wait(Math.max(0, Math.min(options.pollMs, deadline - performance.now())), options.signal);
    if (options.signal.aborted) return end('aborted');
    try {
      const read = await rollout.readHealth(target.objectId, { api: options.api, signal: options.signal });
      health = read.status;
      containers = read.containers;
      readError = undefined;
    } catch (err) {
      if (options.signal.aborted) return end('aborted');
      // A failed read is not a failed rollout: read again until the timeout.
      readError = toReconcileError(err).message;
    }
    if (readError === undefined) {
      if (health === 'active') return end('succeeded');
      if (health === 'inactive' || health === 'suspended') return end('inactive');
      if (health === 'failing') {
        return end(
          'failed',
          `the rollout failed: the API says failing${describe(culprit(containers), target.redact)}`,
        );
      }
    }
    if (performance.now() >= deadline) {
      const why = readError === undefined ? `still ${health}` : `its health could not be read: ${readError}`;
      return end(
        'failed',
        `the rollout did not reach active within ${Math.round(target.timeoutMs / 1000)} s (${why})${describe(culprit(containers), target.redact)}`,
      );
    }
  }
}

function nowIso(): string {
  return new Date().toISOString();
}

/** The state's record while a rollout is watched (a digest rolled back from stays held unless the document changed). */
export function recordRolloutStarted(state: StateStore, target: RolloutTarget): void {
  const previous = state.rollout(target.subject);
  state.setRollout(target.subject, {
    status: 'progressing',
    health: 'progressing',
    at: nowIso(),
    revision: target.revision,
    digest: target.digest,
    objectId: target.objectId,
    ...(previous?.lastGood === undefined ? {} : { lastGood: previous.lastGood }),
    ...(previous?.held === undefined || target.rollbackOf === undefined ? {} : { held: previous.held }),
  });
}

/** Records how a watched rollout ended; one that reached `active` becomes the one to roll back to. */
function recordRolloutResult(
  state: StateStore,
  target: RolloutTarget,
  result: RolloutResult,
  keyedDigest: (data: string) => string,
): void {
  const previous = state.rollout(target.subject);
  // A newer write's rollout (which replaced this watch) is recorded already: leave it.
  if (previous !== undefined && (previous.digest !== target.digest || previous.revision !== target.revision))
    return;
  const at = nowIso();
  const kept: RolloutRecord['lastGood'] =
    result.outcome === 'succeeded' && target.rollbackOf === undefined
      ? {
          revision: target.revision,
          digest: target.digest,
          at,
          spec: KINDS[target.kind].rollout?.keep(target.spec, keyedDigest),
        }
      : previous?.lastGood;
  state.setRollout(target.subject, {
    status: result.outcome,
    health: result.health,
    at,
    revision: target.revision,
    digest: target.digest,
    objectId: target.objectId,
    ...(result.error === undefined ? {} : { error: result.error }),
    ...(kept === undefined ? {} : { lastGood: kept }),
    ...(previous?.held === undefined || target.rollbackOf === undefined ? {} : { held: previous.held }),
  });
}

function auditResult(audit: Logger | undefined, result: RolloutResult): void {
  if (audit === undefined) return;
  const fields = {
    subject: result.subject,
    objectId: result.objectId,
    revision: result.revision,
    health: result.health,
    durationMs: result.durationMs,
    ...(result.rollbackOf === undefined ? {} : { rollbackOf: result.rollbackOf }),
  };
  if (result.outcome === 'succeeded')
    audit.info({ event: 'rollout.succeeded', ...fields }, 'rollout succeeded');
  else if (result.outcome === 'inactive')
    audit.info({ event: 'rollout.inactive', ...fields }, 'nothing rolls out: the app is not deployed');
  else if (result.outcome === 'aborted')
    audit.warn(
      { event: 'rollout.aborted', ...fields },
      'rollout no longer watched (stopping or no longer leading)',
    );
  else {
    audit.error(
      {
        event: 'rollout.failed',
        ...fields,
        error: result.error,
        ...(result.container === undefined
          ? {}
          : {
              container: {
                name: result.container.name,
                status: result.container.status,
                restarts: result.container.restarts,
                reason: result.container.reason,
              },
            }),
        onFailure: result.rollbackOf === undefined ? result.onFailure : 'none',
      },
      'rollout failed',
    );
  }
}

export interface FollowOptions extends WatchOptions {
  readonly state: StateStore;
  readonly audit?: Logger;
}

/**
 * Watches every target at once and records each result in the state (not saved: the caller
 * saves). The audit log gets `rollout.started` for each, then how each ended.
 */
export async function followRollouts(
  targets: readonly RolloutTarget[],
  options: FollowOptions,
): Promise<RolloutResult[]> {
  for (const target of targets) {
    recordRolloutStarted(options.state, target);
    options.audit?.info(
      {
        event: 'rollout.started',
        subject: target.subject,
        objectId: target.objectId,
        revision: target.revision,
        timeoutMs: target.timeoutMs,
        ...(target.rollbackOf === undefined ? {} : { rollbackOf: target.rollbackOf }),
      },
      'watching the rollout',
    );
  }
  return Promise.all(
    targets.map(async (target) => {
      const result = await watchRollout(target, options);
      recordRolloutResult(options.state, target, result, options.state.keyedDigest);
      auditResult(options.audit, result);
      return result;
    }),
  );
}

/** A failed rollout to remediate: the spec that last reached `active`, as a desired resource. */
export interface Rollback {
  readonly resource: DesiredResource;
  /** The revision rolled back from and the one rolled back to. */
  readonly from: string;
  readonly to: string;
  /** What the kept spec could not bring back (a sensitive literal whose value is not kept). */
  readonly notes: readonly string[];
}

/** Why a failed rollout with `onFailure: rollback` is not rolled back. */
export interface RollbackRefusal {
  readonly subject: string;
  readonly reason: string;
}

/**
 * The rollbacks the failed rollouts ask for (`onFailure: rollback`, never of a rollback), each
 * the last spec that reached `active` with today's document's metadata. The failed desired
 * state is held in the state from now on: planned `rolled-back` until its document changes.
 */
export function rollbacksFor(
  results: readonly RolloutResult[],
  resources: ReadonlyMap<string, DesiredResource>,
  state: StateStore,
): { rollbacks: Rollback[]; refused: RollbackRefusal[] } {
  const rollbacks: Rollback[] = [];
  const refused: RollbackRefusal[] = [];
  for (const result of results) {
    if (result.outcome !== 'failed' || result.onFailure !== 'rollback' || result.rollbackOf !== undefined)
      continue;
    const record = state.rollout(result.subject);
    const resource = resources.get(result.subject);
    const rollout = KINDS[result.kind].rollout;
    if (record === undefined || resource === undefined || rollout === undefined) continue;
    const good = record.lastGood;
    if (good === undefined) {
      refused.push({
        subject: result.subject,
        reason: 'no earlier revision of it reached active: nothing to roll back to',
      });
      continue;
    }
    if (good.digest === record.digest) {
      refused.push({
        subject: result.subject,
        reason: `revision ${good.revision}, the last to reach active, is the one that failed`,
      });
      continue;
    }
    const restored = rollout.restore(good.spec, resource.spec, state.keyedDigest);
    rollbacks.push({
      resource: { ...resource, spec: restored.spec, digest: good.digest },
      from: result.revision,
      to: good.revision,
      notes: restored.notes,
    });
    state.setRollout(result.subject, {
      ...record,
      held: { digest: record.digest, revision: result.revision, at: nowIso(), to: good.revision },
    });
  }
  return { rollbacks, refused };
}
