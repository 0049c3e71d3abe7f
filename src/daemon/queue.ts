/**
 * The reconcile queue. Triggers (cron, file watcher, webhooks, start-up) only *request* a run;
 * at most one run is in progress, and every request that arrives during a run merges into one
 * follow-up run (controller-runtime's dedupe). A burst of 50 webhooks is therefore at most two
 * runs: the one in progress and one after it.
 */

/** Why a run was requested. A follow-up merges the reasons of every request it absorbed. */
export interface RunRequest {
  readonly reasons: ReadonlySet<string>;
  /** Subjects whose documents changed (file-change triggers); absent = full reconcile. */
  readonly subjects?: ReadonlySet<string>;
  /** True when any merged request asked for a full reconcile. */
  readonly full: boolean;
}

export type RunFn = (request: RunRequest) => Promise<void>;

export interface ReconcileQueue {
  /** Asks for a run. `subjects` narrows it to those resources; omit it for a full run. */
  request(reason: string, subjects?: Iterable<string>): void;
  /** Resolves when no run is in progress or pending. */
  idle(): Promise<void>;
  /** Stops accepting requests and drops the pending one; resolves when the current run ends. */
  close(): Promise<void>;
}

interface Pending {
  reasons: Set<string>;
  subjects: Set<string>;
  full: boolean;
}

/** Creates a queue that calls `run` one request at a time. `run` must not throw (it is caught and dropped). */
export function createReconcileQueue(run: RunFn): ReconcileQueue {
  let pending: Pending | undefined;
  let current: Promise<void> | undefined;
  let closed = false;
  let idleWaiters: Array<() => void> = [];

  function settleIdle(): void {
    if (current !== undefined || pending !== undefined) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  function pump(): void {
    if (current !== undefined || pending === undefined || closed) {
      settleIdle();
      return;
    }
    const next = pending;
    pending = undefined;
    const request: RunRequest = next.full
      ? { reasons: next.reasons, full: true }
      : { reasons: next.reasons, subjects: next.subjects, full: false };
    current = run(request)
      .catch(() => undefined)
      .finally(() => {
        current = undefined;
        pump();
      });
  }

  return {
    request(reason, subjects) {
      if (closed) return;
      pending ??= { reasons: new Set(), subjects: new Set(), full: false };
      pending.reasons.add(reason);
      if (subjects === undefined) pending.full = true;
      else for (const s of subjects) pending.subjects.add(s);
      // Defer to a microtask so requests made in the same tick start one run, not two.
      queueMicrotask(pump);
    },
    idle() {
      if (current === undefined && pending === undefined) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    async close() {
      closed = true;
      pending = undefined;
      await current;
      settleIdle();
    },
  };
}
