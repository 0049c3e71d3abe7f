/**
 * The stages of one daemon run and the reconcile of one stage (run.ts runs them in
 * order). A scoped run is one stage; a full run whose load brought changes is two: the changed
 * resources first, then the rest.
 */
import type { ApiClient } from '../api/types.js';
import type { LoadResult } from '../config/loader.js';
import type { DesiredResource } from '../config/types.js';
import type { SecretReader } from '../domain/secret-sources.js';
import { withConflictPeers } from '../engine/conflicts.js';
import { reconcile } from '../engine/reconcile.js';
import type { RolloutTarget } from '../engine/rollout.js';
import type { StateStore } from '../engine/state.js';
import type { ChangeResult, Plan } from '../engine/types.js';
import type { Logger } from '../log.js';
import type { Lease } from '../state/backend.js';
import type { DaemonMetrics } from './metrics.js';
import type { RunObserver, RunTally } from './notify/run-summary.js';
import type { RunRequest } from './queue.js';
import type { StatusTracker } from './status.js';

/** How the engine is driven: the flags of `plan`/`apply` that the daemon shares. */
export interface ReconcileSettings {
  readonly concurrency: number;
  readonly maxChangePercent: number;
  readonly force: boolean;
  readonly driftMode: 'correct' | 'report';
  /** `--prune`: delete custom rules and lists no document claims (docs/design.md, Pruning). */
  readonly prune?: boolean;
  /** Where container secrets (`valueFrom`) are read from. */
  readonly secrets?: SecretReader;
  /** `--rollout-poll-ms`: how often a watched rollout's health is read (docs/daemon.md, Rollout health). */
  readonly rolloutPollMs?: number;
}

/**
 * The resources a run covers, in the order it reconciles them. A scoped run: the changed ones
 * plus the ones a retry asked for. A full run: all of them, except that when its load brought
 * changes (a webhook's pull, a push the schedule found) those go first, in a stage of their
 * own, so a push is applied as fast as a file edit rather than after a read of everything.
 *
 * Kept for a figure users feel (docs/design.md, Targets: push-to-applied p50 ≤ 300 ms, webhooks
 * included). The latency section of `npm run bench` at 10,000 resources, 8 trials a way, both
 * builds in one run on a loaded shared host (2026-12-02): webhook p50 576 ms (p95 767 ms) with
 * the first stage, 5,797 ms (p95 33 s) with one stage of everything, where the push waits for a
 * read of all 10,000. File edits are scoped runs and do not change (286–598 ms, load-bound).
 */
export function stagesOf(request: RunRequest, loaded: LoadResult): readonly (readonly DesiredResource[])[] {
  const all = loaded.state.resources;
  const wanted = new Set([...loaded.changes.added, ...loaded.changes.changed, ...(request.subjects ?? [])]);
  // With the documents that may reach the same live object: their conflict must show here too.
  const changed = withConflictPeers(
    all.filter((resource) => wanted.has(resource.subject)),
    all,
  );
  if (!request.full) return [changed];
  if (changed.length === 0 || changed.length === all.length) return [all];
  const first = new Set(changed.map((resource) => resource.subject));
  return [changed, all.filter((resource) => !first.has(resource.subject))];
}

/** What the stages of one controller share: where they read and write, and what they report to. */
export interface StageContext {
  readonly api: ApiClient;
  readonly state: StateStore;
  readonly settings: ReconcileSettings;
  /** The writer's lease: checked before each write, carried by each save. */
  readonly lease?: Lease;
  /** Aborted when the daemon stops, or when its lease is lost (fencing). */
  readonly signal: AbortSignal;
  readonly status: StatusTracker;
  readonly metrics: DaemonMetrics;
  /** `component: audit`: the engine's reconcile events. */
  readonly audit: Logger;
  readonly observer?: RunObserver;
  /** Takes the rollouts a stage's writes started: watched beside the run loop (rollouts.ts), never holding the run. */
  readonly follow?: (pending: readonly RolloutTarget[]) => void;
}

/** One stage of one run. */
export interface StageInput {
  readonly scope: readonly DesiredResource[];
  readonly loaded: LoadResult;
  readonly revision: string;
  readonly trigger: string;
  /** Writes the earlier stages of this run planned: they count into this one's change threshold. */
  readonly writesBefore: number;
  /** The run's totals for its notification. */
  readonly tally: RunTally;
  /** A full run (schedule, webhook, start-up): it prunes whatever no document claims. */
  readonly full: boolean;
  /** Only the last stage of a run prunes, once the documents of the first are applied. */
  readonly last: boolean;
  /** The files changed too recently: apply nothing when the plan deletes anything. */
  readonly holdDestructive: boolean;
}

/** How a stage ended: its results and planned writes, or the plan it deferred (it deletes). */
export interface StageOutcome {
  readonly at: Date;
  readonly results: readonly ChangeResult[];
  readonly writes: number;
  readonly plan: Plan;
  readonly deferred?: Plan;
}

/** Reconciles one stage and records each resource's status and the drift and change metrics. */
export async function reconcileStage(context: StageContext, input: StageInput): Promise<StageOutcome> {
  const { settings, metrics, status, observer } = context;
  const { loaded, revision, trigger } = input;
  const outcome = await reconcile(input.scope, {
    api: context.api,
    state: context.state,
    selection: {
      revision,
      // Claims are global; a file-change run prunes only what its removed documents owned.
      prune: settings.prune === true && input.last,
      all: loaded.state.resources,
      ...(input.full ? {} : { removed: loaded.changes.removed }),
      managedCount: loaded.state.resources.length,
      ...(settings.secrets === undefined ? {} : { secrets: settings.secrets }),
    },
    write: {
      mode: 'apply',
      driftMode: settings.driftMode,
      concurrency: settings.concurrency,
      maxChangePercent: settings.maxChangePercent,
      force: settings.force,
      signal: context.signal,
      writesBefore: input.writesBefore,
      holdDestructive: input.holdDestructive,
      ...(context.lease === undefined ? {} : { lease: context.lease }),
      rollouts: 'detach',
    },
    report: {
      trigger,
      audit: context.audit,
      beforeApply: (plan) => {
        const writes = plan.summary.toUpdate;
        if (writes > 0) observer?.applyStarting({ revision, trigger, writes });
      },
    },
  });
  context.follow?.(outcome.rollouts?.pending ?? []);
  if (outcome.deferred !== undefined) {
    return { at: new Date(), results: [], writes: 0, plan: outcome.plan, deferred: outcome.plan };
  }
  input.tally.add(outcome.plan, outcome.apply);
  const at = new Date();
  const results: ChangeResult[] = [];
  for (const [index, change] of outcome.plan.changes.entries()) {
    if (change.diffs.length > 0) metrics.countDrift(change.kind, change.cause);
    // One result per change, in the plan's order (ApplyResult).
    const result = outcome.apply?.results[index];
    if (result === undefined) continue;
    status.recordResult(change, result, at);
    metrics.countChange(change.kind, result.outcome, change.action);
    results.push(result);
  }
  metrics.setResources(status.countsByKind());
  return { at, results, writes: outcome.plan.summary.toUpdate, plan: outcome.plan };
}
