/**
 * The second tier of the file watcher's settle check (design §9): a run reads files once they
 * kept their fingerprint for the debounce, but a plan that deletes anything is applied only
 * once the files have been quiet for `--settle-ms`. A short window cannot tell a finished file
 * from a writer's pause, and a deletion read from a half-written file is not undone by the run
 * that reads the rest (a container comes back with new ids).
 *
 * `holds()` is asked before a run loads; when its plan deletes, the controller calls `defer`,
 * which logs `reconcile.deferred` and asks for a `settle` run of the same scope once the files
 * have been quiet long enough. That run asks `holds()` again, so a file still changing defers
 * again.
 */
import type { PlannedChange } from '../engine/types.js';
import type { Logger } from '../log.js';

export interface SettleHoldOptions {
  /** `--settle-ms`; 0 holds nothing. */
  readonly settleMs: number;
  /** Milliseconds since a config file last changed (the watcher's); Infinity if none. */
  readonly quietForMs: () => number;
  readonly logger: Logger;
  /** False once the daemon is stopping: a pending settle run is then dropped. */
  active(): boolean;
  /** Asks for the settle run: `undefined` scope = full. */
  fire(scope: Iterable<string> | undefined): void;
}

export interface SettleHold {
  /** True while the files changed less than settleMs ago: plans that delete must wait. */
  holds(): boolean;
  /** A run's plan that deletes was not applied: log it and ask for a settle run. */
  defer(run: {
    full: boolean;
    scope: readonly string[];
    trigger: string;
    revision: string;
    changes: readonly PlannedChange[];
  }): void;
  cancel(): void;
}

/** The subjects whose planned change deletes something (a container, a pruned object…). */
export function destructiveSubjects(changes: readonly PlannedChange[]): string[] {
  return changes
    .filter((c) => c.diffs.some((d) => d.destructive) || (c.action === 'delete' && c.error === undefined))
    .map((c) => c.subject);
}

export function createSettleHold(options: SettleHoldOptions): SettleHold {
  const { settleMs, logger } = options;
  // One timer (the latest wait wins), the scopes of every deferred run merged.
  let timer: NodeJS.Timeout | undefined;
  let pending: Set<string> | 'full' | undefined;

  return {
    holds: () => options.quietForMs() < settleMs,
    defer({ full, scope, trigger, revision, changes }) {
      // At least a little: the files' quiet time is measured again by the run it asks for.
      const waitMs = Math.max(50, Math.ceil(settleMs - options.quietForMs()));
      logger.info(
        {
          event: 'reconcile.deferred',
          trigger,
          revision,
          subjects: destructiveSubjects(changes),
          settleMs,
          waitMs,
        },
        'the plan deletes and the files changed too recently; waiting for them to stay unchanged',
      );
      if (timer !== undefined) clearTimeout(timer);
      // The loader reported these subjects as changed once; the settle run must name them again.
      if (full) pending = 'full';
      else if (pending !== 'full') pending = new Set([...(pending ?? []), ...scope]);
      timer = setTimeout(() => {
        const merged = pending;
        timer = undefined;
        pending = undefined;
        if (!options.active()) return;
        logger.info({ event: 'trigger.received', reason: 'settle' }, 'trigger received');
        options.fire(merged === 'full' ? undefined : merged);
      }, waitMs);
    },
    cancel() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      pending = undefined;
    },
  };
}
