/** The messages and errors of leases, the same for every store. */
import { ReconcileError } from '../errors.js';
import type { LeaseHolder } from './backend.js';

export function describeHolder(holder: LeaseHolder): string {
  return `pid ${holder.pid} on host ${holder.host} (edgesync ${holder.command}, since ${holder.since})`;
}

/** Another writer holds the lease: STATE_LOCKED, with the holder in `details` (never a secret). */
export function stateLocked(message: string, holder: LeaseHolder | undefined): ReconcileError {
  return new ReconcileError('STATE_LOCKED', message, {
    ...(holder === undefined
      ? {}
      : { details: { holder: { pid: holder.pid, host: holder.host, since: holder.since } } }),
  });
}

/** The lease is no longer ours: nothing more may be written, to the API or to the state. */
export function leaseLost(reason: string): ReconcileError {
  return new ReconcileError('LEADER_LOST', `the state lease is lost: ${reason}; nothing more is written`);
}
