/**
 * Leadership of `edgesync run` (docs/state.md, Leadership): of the daemons sharing one state
 * store, the one holding its lease leads — it alone runs reconciles and writes; the others stand
 * by, serve their HTTP routes, and keep trying to take the lease.
 *
 * The loop: try the lease → standby while another holds it (shown in `/status` with the holder,
 * `edgesync_leader` 0) → leader once it is ours: `lead` starts a term (re-reads the state, runs a
 * full reconcile) → the term lasts until the lease is lost or the daemon stops. A lost lease
 * aborts the term's fence at once (the run in flight sends nothing more), logs `leader.lost`,
 * and the daemon stands by again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ReconcileError, toReconcileError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Lease, LeaseHolder, StateBackend } from '../state/backend.js';
import { leaseLost } from '../state/lease.js';
import type { DaemonMetrics } from './metrics.js';
import type { StatusTracker } from './status.js';
import type { LeaderStatus } from './status-document.js';

/** How long a standby waits in one try of the lease before it refreshes who leads. */
const STANDBY_REFRESH_MS = 2000;
/** After a failed try (the store unreachable), the wait before the next one. */
const RETRY_AFTER_FAILURE_MS = 1000;
/**
 * A leader that lost its lease waits this long before it competes again: the lost lease may be
 * its own fault (a flaky network, a stalled host), and a standby that polls more often than this
 * takes over first.
 */
const REJOIN_AFTER_LOSS_MS = 3000;

/** A term of leadership, as `lead` runs it. */
export interface LeaderTerm {
  /** Ends the term: waits for the run in flight (bounded by `timeoutMs`, then aborted). */
  end(timeoutMs: number): Promise<void>;
}

export interface LeadershipOptions {
  readonly backend: StateBackend;
  readonly logger: Logger;
  readonly status: StatusTracker;
  readonly metrics: DaemonMetrics;
  /**
   * Starts a term under `lease`: `fence` is aborted (with LEADER_LOST) the moment the lease is
   * lost. A throw (the state cannot be read) gives the lease up and tries again.
   */
  lead(lease: Lease, fence: AbortSignal): Promise<LeaderTerm>;
}

export interface Leadership {
  /** Resolves once the first try of the lease ended: this daemon leads or stands by. */
  readonly started: Promise<void>;
  readonly role: 'leader' | 'standby';
  /** Stops trying; a leader ends its term (bounded by `timeoutMs`) and releases the lease. */
  stop(timeoutMs: number): Promise<void>;
}

function leaderStatus(holder: LeaseHolder, term: number): LeaderStatus {
  return { pid: holder.pid, host: holder.host, since: holder.since, term };
}

/** Starts the leadership loop of one daemon. */
export function startLeadership(options: LeadershipOptions): Leadership {
  const { backend, logger, status, metrics } = options;
  const stopping = new AbortController();
  let role: 'leader' | 'standby' = 'standby';
  let markStarted: () => void = () => undefined;
  const started = new Promise<void>((resolve) => {
    markStarted = resolve;
  });
  /** Set while leading: resolves `stopTerm` once the loop was asked to stop. */
  let stopTerm: ((timeoutMs: number) => void) | undefined;
  let stopTimeoutMs = 0;

  const setRole = (next: 'leader' | 'standby', leader: LeaderStatus | null): void => {
    role = next;
    status.setLeadership(next, leader);
    metrics.setLeader(next === 'leader');
    metrics.setCondition(status.ready, status.degraded);
  };

  /** One try of the lease, waiting up to `timeoutMs`; undefined while another holds it. */
  async function tryLease(timeoutMs: number): Promise<Lease | undefined> {
    try {
      return await backend.acquire('run', {
        timeoutMs,
        signal: stopping.signal,
        onTakeover: (previous, why) =>
          logger.warn(
            {
              event: 'state.lock.takenOver',
              why,
              ...(previous === undefined
                ? {}
                : { pid: previous.pid, host: previous.host, since: previous.since }),
            },
            'took over the state lease of a holder that is gone',
          ),
      });
    } catch (err) {
      const error = toReconcileError(err);
      if (error.code !== 'STATE_LOCKED') throw error;
      return undefined;
    }
  }

  /** Stands by until the lease is ours (undefined: the daemon stops first). */
  async function standBy(): Promise<Lease | undefined> {
    let failing = false;
    /** The leader last logged (its term), so a standby logs each new leader once. */
    let logged: number | undefined;
    // The first try does not wait: who leads is shown at once, then refreshed between tries.
    let wait = 0;
    for (;;) {
      if (stopping.signal.aborted) return undefined;
      try {
        const lease = await tryLease(wait);
        wait = STANDBY_REFRESH_MS;
        if (failing) logger.info({ event: 'state.reachable' }, 'the state store answers again');
        failing = false;
        if (lease !== undefined) return lease;
        const current = await backend.holder().catch(() => undefined);
        if (logged !== (current?.term ?? 0)) {
          logged = current?.term ?? 0;
          logger.info(
            {
              event: 'leader.standby',
              leader: current === undefined ? null : leaderStatus(current.holder, current.term),
            },
            'another edgesync leads the state store: standing by',
          );
        }
        setRole('standby', current === undefined ? null : leaderStatus(current.holder, current.term));
      } catch (err) {
        if (stopping.signal.aborted) return undefined;
        const error = toReconcileError(err);
        // Logged once per outage, not once per try.
        if (!failing) {
          logger.warn(
            { event: 'state.unreachable', code: error.code, error: error.message },
            'cannot reach the state store: standing by and trying again',
          );
        }
        failing = true;
        setRole('standby', null);
        markStarted();
        await sleep(RETRY_AFTER_FAILURE_MS, undefined, { signal: stopping.signal }).catch(() => undefined);
        continue;
      }
      markStarted();
    }
  }

  /** Leads under `lease` until it is lost (returns true) or the daemon stops (false). */
  async function leadUnder(lease: Lease): Promise<boolean> {
    const fence = new AbortController();
    let lostReason: string | undefined;
    let onLost: () => void = () => undefined;
    const lost = new Promise<void>((resolve) => {
      onLost = resolve;
    });
    lease.onLost((reason) => {
      lostReason = reason;
      // Synchronously, before anything else runs: no request may start after this.
      fence.abort(leaseLost(reason));
      logger.error(
        { event: 'leader.lost', reason, term: lease.term },
        'the state lease is lost: no further write; standing by',
      );
      onLost();
    });
    const asked = new Promise<void>((resolve) => {
      stopTerm = (timeoutMs) => {
        stopTimeoutMs = timeoutMs;
        resolve();
      };
    });
    logger.info(
      { event: 'leader.elected', term: lease.term, since: lease.holder.since },
      'leading the state store: reading it and reconciling',
    );
    setRole('leader', leaderStatus(lease.holder, lease.term));
    let term: LeaderTerm;
    try {
      term = await options.lead(lease, fence.signal);
    } catch (err) {
      const error = toReconcileError(err);
      logger.error(
        { event: 'leader.start.failed', code: error.code, error: error.message },
        'could not start leading: giving the lease up',
      );
      await lease.release();
      setRole('standby', null);
      await sleep(RETRY_AFTER_FAILURE_MS, undefined, { signal: stopping.signal }).catch(() => undefined);
      return true;
    }
    markStarted();
    if (lostReason !== undefined) onLost();
    await Promise.race([lost, asked]);
    stopTerm = undefined;
    if (lostReason !== undefined) {
      // The fence already aborted the run in flight; this waits for it to unwind.
      await term.end(0);
      await lease.release();
      const current = await backend.holder().catch(() => undefined);
      setRole('standby', current === undefined ? null : leaderStatus(current.holder, current.term));
      await sleep(REJOIN_AFTER_LOSS_MS, undefined, { signal: stopping.signal }).catch(() => undefined);
      return true;
    }
    await term.end(stopTimeoutMs);
    await lease.release();
    return false;
  }

  const loop = (async () => {
    for (;;) {
      const lease = await standBy();
      if (lease === undefined) return;
      if (stopping.signal.aborted) {
        await lease.release();
        return;
      }
      if (!(await leadUnder(lease))) return;
    }
  })().catch((err: unknown) => {
    // A bug here must not leave a daemon that looks alive and never leads.
    logger.fatal(
      { event: 'leader.loop.failed', error: (err as Error).message },
      'the leadership loop failed',
    );
    markStarted();
    throw new ReconcileError('INTERNAL', `the leadership loop failed: ${(err as Error).message}`);
  });

  return {
    started,
    get role() {
      return role;
    },
    async stop(timeoutMs) {
      stopping.abort();
      stopTerm?.(timeoutMs);
      await loop.catch(() => undefined);
    },
  };
}
