/**
 * The second tier of the file watcher's settle check (docs/design.md, Safety invariants): a run reads files once they
 * kept their fingerprint for the debounce, but a plan that deletes anything is applied only
 * once the files have been quiet for `--settle-ms`. A short window cannot tell a finished file
 * from a writer's pause, and a deletion read from a half-written file is not undone by the run
 * that reads the rest (a container comes back with new ids).
 *
 * `holds()` is asked before a run loads; when its plan deletes, the controller calls `defer`,
 * which logs `reconcile.deferred` and asks for a `settle` run of the same scope once the files
 * have been quiet long enough. That run asks `holds()` again, so a file still changing defers
 * again.
 *
 * A pending hold is visible, as a waiting destructive change should be to an operator: `/status`
 * shows `settleHold` (what would be deleted, the trigger, when the settle run is due) until the
 * settle run has run, `edgesync_settle_hold_pending` is 1 meanwhile, every deferred run counts in
 * `edgesync_reconcile_deferred_total`, and the run that starts a hold leaves a `deferred` record
 * in the state store's run history (not one per deferral: a file that keeps changing would push
 * every other run out of the last 20).
 */
import type { StateStore } from '../engine/state.js';
import type { Plan, PlannedChange } from '../engine/types.js';
import { toReconcileError } from '../errors.js';
import type { Logger } from '../log.js';
import type { DaemonMetrics } from './metrics.js';
import type { HeldDeletion, SettleHoldStatus, StatusTracker } from './status.js';

/** Deletions listed in `/status`: a prune of thousands stays a small document. */
const MAX_SHOWN_DELETIONS = 100;

export interface SettleHoldOptions {
  /** `--settle-ms`; 0 holds nothing. */
  readonly settleMs: number;
  /** Milliseconds since a config file last changed (the watcher's); Infinity if none. */
  readonly quietForMs: () => number;
  readonly logger: Logger;
  readonly status: StatusTracker;
  readonly metrics: Pick<DaemonMetrics, 'countDeferred' | 'setSettleHoldPending'>;
  readonly state: Pick<StateStore, 'addRun' | 'save'>;
  /** False once the daemon is stopping: a pending settle run is then dropped. */
  active(): boolean;
  /** Asks for the settle run: `undefined` scope = full. */
  fire(scope: Iterable<string> | undefined): void;
}

/** A run that planned a deletion while the files were not quiet yet. */
interface DeferredRun {
  /** The settle run must be full (a full run, or a removed document's prune). */
  readonly full: boolean;
  /** The subjects this run covered: the settle run covers them again. */
  readonly scope: readonly string[];
  readonly trigger: string;
  readonly revision: string;
  readonly startedAt: Date;
  readonly plan: Plan;
}

export interface SettleHold {
  /** True while the files changed less than settleMs ago: plans that delete must wait. */
  holds(): boolean;
  /** A run's plan that deletes was not applied: log, count and show it, and ask for a settle run. */
  defer(run: DeferredRun): Promise<void>;
  /**
   * A run reconciled `scope` to its end without deferring: nothing it covered waits any more
   * (applied, or no longer planned); the hold ends once nothing is left, or after a full run.
   */
  reconciled(scope: 'full' | readonly string[]): void;
  /** A run ended: the one the settle timer asked for (`settle` among its reasons) ends the hold. */
  ran(reasons: ReadonlySet<string>): void;
  cancel(): void;
}

function deletes(change: PlannedChange): boolean {
  return (
    change.diffs.some((d) => d.destructive) || (change.action === 'delete' && change.error === undefined)
  );
}

/** The subjects whose planned change deletes something (a container, a pruned object…). */
function destructiveSubjects(changes: readonly PlannedChange[]): string[] {
  return changes.filter(deletes).map((c) => c.subject);
}

/** What each change that deletes would delete: field paths only, never a live or desired value. */
function deletionsOf(changes: readonly PlannedChange[]): HeldDeletion[] {
  return changes.filter(deletes).map((c) => ({
    subject: c.subject,
    action: c.action,
    fields: c.diffs.filter((d) => d.destructive).map((d) => d.path),
  }));
}

export function createSettleHold(options: SettleHoldOptions): SettleHold {
  const { settleMs, logger, status, metrics } = options;
  // One timer (the latest wait wins), the scopes of every deferred run merged.
  let timer: NodeJS.Timeout | undefined;
  let pending: Set<string> | 'full' | undefined;
  // What /status shows, with every deletion (the status lists the first 100); `fired` once the
  // timer asked for the settle run, which ends the hold unless it defers again.
  let shown: { hold: SettleHoldStatus; deletions: readonly HeldDeletion[] } | undefined;
  let fired = false;

  function clear(): void {
    fired = false;
    if (shown === undefined) return;
    shown = undefined;
    status.setSettleHold(null);
    metrics.setSettleHoldPending(false);
  }

  /** The deletions of earlier runs, but for the subjects `covered` (a later run planned those again). */
  function keptBesides(covered: ReadonlySet<string>): HeldDeletion[] {
    return (shown?.deletions ?? []).filter((d) => !covered.has(d.subject));
  }

  function publish(
    hold: Omit<SettleHoldStatus, 'deletions' | 'deletionsOmitted'>,
    all: HeldDeletion[],
  ): void {
    const deletions = all.sort((a, b) => (a.subject < b.subject ? -1 : 1));
    const shownHold: SettleHoldStatus = {
      ...hold,
      deletions: deletions.slice(0, MAX_SHOWN_DELETIONS),
      deletionsOmitted: Math.max(0, deletions.length - MAX_SHOWN_DELETIONS),
    };
    shown = { hold: shownHold, deletions };
    status.setSettleHold(shownHold);
    metrics.setSettleHoldPending(true);
  }

  /** The hold after `run`: its deletions replace those of earlier runs for the subjects it covered. */
  function show(run: DeferredRun, waitMs: number): { first: boolean } {
    const now = Date.now();
    const covered = new Set([...run.scope, ...run.plan.changes.map((c) => c.subject)]);
    const deferredAt = new Date(now).toISOString();
    const first = shown === undefined;
    fired = false;
    const hold = {
      trigger: run.trigger,
      revision: run.revision,
      deferredAt,
      since: shown?.hold.since ?? deferredAt,
      deferrals: (shown?.hold.deferrals ?? 0) + 1,
      settleAt: new Date(now + waitMs).toISOString(),
    };
    publish(hold, [...keptBesides(covered), ...deletionsOf(run.plan.changes)]);
    return { first };
  }

  /** The hold's first run goes into the run history; like a stalled run's, a failed save only warns. */
  async function record(run: DeferredRun): Promise<void> {
    options.state.addRun({
      revision: run.revision,
      trigger: run.trigger,
      startedAt: run.startedAt.toISOString(),
      durationMs: Date.now() - run.startedAt.getTime(),
      result: 'deferred',
      counts: { toUpdate: run.plan.summary.toUpdate, destructive: run.plan.summary.destructive },
    });
    try {
      await options.state.save();
    } catch (err) {
      logger.warn(
        { event: 'state.save.failed', error: toReconcileError(err).message },
        'cannot save the state',
      );
    }
  }

  return {
    holds: () => options.quietForMs() < settleMs,
    async defer(run) {
      const { full, scope, trigger, revision, plan } = run;
      // At least a little: the files' quiet time is measured again by the run it asks for.
      const waitMs = Math.max(50, Math.ceil(settleMs - options.quietForMs()));
      logger.info(
        {
          event: 'reconcile.deferred',
          trigger,
          revision,
          subjects: destructiveSubjects(plan.changes),
          settleMs,
          waitMs,
        },
        'the plan deletes and the files changed too recently; waiting for them to stay unchanged',
      );
      metrics.countDeferred();
      if (timer !== undefined) clearTimeout(timer);
      // The loader reported these subjects as changed once; the settle run must name them again.
      if (full) pending = 'full';
      else if (pending !== 'full') pending = new Set([...(pending ?? []), ...scope]);
      timer = setTimeout(() => {
        const merged = pending;
        timer = undefined;
        pending = undefined;
        if (!options.active()) return;
        fired = true;
        logger.info({ event: 'trigger.received', reason: 'settle' }, 'trigger received');
        options.fire(merged === 'full' ? undefined : merged);
      }, waitMs);
      if (show(run, waitMs).first) await record(run);
    },
    reconciled(scope) {
      if (shown === undefined) return;
      const left = scope === 'full' ? [] : keptBesides(new Set(scope));
      if (left.length === 0) clear();
      else if (left.length < shown.deletions.length) publish(shown.hold, left);
    },
    ran(reasons) {
      if (fired && reasons.has('settle')) clear();
    },
    cancel() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      pending = undefined;
      clear();
    },
  };
}
