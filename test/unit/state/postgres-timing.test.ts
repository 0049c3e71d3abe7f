/**
 * The Postgres lease's timings, all derived from `--lease-seconds` (docs/state.md, Failover):
 * the holder stops trusting its lease before the server could free its lock for another
 * writer, and with the default a standby leads within 15 s of the leader's host going silent.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_POSTGRES_LEASE_MS, postgresLeaseTiming } from '../../../src/state/postgres-backend.js';

/** When the server drops a silent client's session: keepalive idle, then `count` unanswered probes. */
function serverDropMs(leaseMs: number): number {
  const { idle, interval, count } = postgresLeaseTiming(leaseMs).keepalive;
  return (idle + count * interval) * 1000;
}

describe('the Postgres lease timing', () => {
  it('gives the documented figures at the default of 10 s', () => {
    const timing = postgresLeaseTiming();

    expect(DEFAULT_POSTGRES_LEASE_MS).toBe(10_000);
    expect(timing).toEqual({
      heartbeatMs: 1666,
      validMs: 5000,
      pollMs: 1000,
      leaseMs: 10_000,
      keepalive: { idle: 5, interval: 2, count: 3 },
    });
    // A silent leader's lock is free after 11 s; a standby polling every second leads by 12 s.
    expect(serverDropMs(DEFAULT_POSTGRES_LEASE_MS) + timing.pollMs).toBe(12_000);
  });

  it.each([2_000, 5_000, 10_000, 30_000, 60_000])(
    'at %i ms the holder stops trusting its lease before the server frees the lock',
    (leaseMs) => {
      const timing = postgresLeaseTiming(leaseMs);

      expect(timing.validMs).toBeLessThan(serverDropMs(leaseMs));
      expect(timing.heartbeatMs).toBeLessThan(timing.validMs);
    },
  );
});
