/**
 * The `postgres` store (docs/state.md, The Postgres store): the state of one or more instances
 * in tables edgesync creates and migrates itself (versioned, in one transaction each). The
 * document is one row per instance, replaced in one transaction: a crash never leaves half an
 * inventory. The writer's lease is a session-level advisory lock held on a dedicated
 * connection; taking it bumps the instance's term, and every save checks, in its transaction,
 * that the term it carries is still the current one.
 */
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { ReconcileError } from '../errors.js';
import type {
  AcquireOptions,
  DocumentRead,
  KeyStorage,
  Lease,
  LeaseHolder,
  RelayedTrigger,
  StateBackend,
  TriggerRelay,
} from './backend.js';
import { describeHolder, leaseLost, stateLocked } from './lease.js';

/**
 * How a database lease is watched, all derived from one lease period (`--lease-seconds`,
 * default 10 s here); docs/state.md (The Postgres store) says what each value gives.
 */
interface PostgresLeaseTiming {
  /** The holder pings its lock session this often (a sixth of the lease). */
  readonly heartbeatMs: number;
  /** The holder trusts its lease this long after its last good ping (half the lease). */
  readonly validMs: number;
  /** A waiting writer (a standby) tries the lock this often. */
  readonly pollMs: number;
  /** The lease period: the server ends a lock session that sent nothing for this long. */
  readonly leaseMs: number;
  /**
   * The server's TCP keepalives on the lock session, in whole seconds: a client that vanished
   * (node loss, network cut) is dropped, and its lock freed, about `idle + count × interval`
   * after its last packet — about one lease period, well after the holder stopped trusting it.
   */
  readonly keepalive: { readonly idle: number; readonly interval: number; readonly count: number };
}

/** The lease period of the Postgres store when `--lease-seconds` is not given. */
export const DEFAULT_POSTGRES_LEASE_MS = 10_000;

export function postgresLeaseTiming(leaseMs = DEFAULT_POSTGRES_LEASE_MS): PostgresLeaseTiming {
  const seconds = leaseMs / 1000;
  return {
    heartbeatMs: Math.max(50, Math.floor(leaseMs / 6)),
    validMs: Math.max(200, Math.floor(leaseMs / 2)),
    pollMs: Math.min(1000, Math.max(100, Math.floor(leaseMs / 10))),
    leaseMs,
    keepalive: {
      idle: Math.max(1, Math.ceil(seconds / 2)),
      interval: Math.max(1, Math.round(seconds / 6)),
      count: 3,
    },
  };
}

export interface PostgresOptions {
  /** `postgres://user@host:port/db`; a password in it is used but never printed. */
  readonly url: string;
  /** From `--state-password-file` or PGPASSWORD; else pg's own PGPASSFILE lookup. */
  readonly password?: string;
  readonly instance: string;
  /** `--lease-seconds` in milliseconds (default 10 s). */
  readonly leaseMs?: number;
}

/** The versioned migrations; each runs once, in order, in its own transaction. */
const MIGRATIONS: readonly (readonly string[])[] = [
  [
    `CREATE TABLE edgesync_documents (
       instance text PRIMARY KEY,
       document jsonb NOT NULL,
       version bigint NOT NULL,
       term bigint NOT NULL,
       updated_at timestamptz NOT NULL DEFAULT now())`,
    `CREATE TABLE edgesync_records (
       instance text NOT NULL,
       name text NOT NULL,
       body text NOT NULL,
       updated_at timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (instance, name))`,
    `CREATE TABLE edgesync_install_keys (instance text PRIMARY KEY, key text NOT NULL)`,
    `CREATE TABLE edgesync_leases (
       instance text PRIMARY KEY,
       term bigint NOT NULL,
       holder jsonb NOT NULL,
       since timestamptz NOT NULL DEFAULT now())`,
  ],
];

/** The channel of relayed run requests (a standby's webhooks); payloads name their instance. */
const TRIGGER_CHANNEL = 'edgesync_triggers';

/** Serialises concurrent migrators (two pods starting at once). */
const MIGRATION_LOCK = 4_242_424_242;

/** The URL without its password, for messages and logs. */
function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

function withPassword(url: string, password: string | undefined): string {
  if (password === undefined) return url;
  const parsed = new URL(url);
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
}

function stateIo(message: string, err: unknown): ReconcileError {
  const code = (err as { code?: string }).code;
  return new ReconcileError(
    'STATE_IO',
    `${message}: ${(err as Error).message}${code === undefined ? '' : ` (${code})`}`,
    {
      cause: err,
    },
  );
}

/** Undefined table: the store was never written (a `plan` before the first apply). */
function isMissingTable(err: unknown): boolean {
  return (err as { code?: string }).code === '42P01';
}

export function postgresBackend(options: PostgresOptions): StateBackend {
  const timing = postgresLeaseTiming(options.leaseMs);
  const location = `${redactedUrl(options.url)} (instance ${options.instance})`;
  const config: pg.ClientConfig = {
    // pg lets the URL's fields win over the others: a password from a file goes into it.
    connectionString: withPassword(options.url, options.password),
    connectionTimeoutMillis: 5000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 2000,
    application_name: 'edgesync',
  };
  const pool = new pg.Pool({ ...config, max: 4, idleTimeoutMillis: 10_000 });
  // A dropped connection (a restarted server) must not crash the process: an idle one is the
  // pool's to replace, and one in use fails its query, which the caller sees. pg emits `error` on
  // a checked-out client whose connection ends between queries; with no listener that throws.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const instance = options.instance;
  let prepared: Promise<void> | undefined;

  async function query<R extends pg.QueryResultRow>(
    text: string,
    values: unknown[] = [],
  ): Promise<pg.QueryResult<R>> {
    try {
      return await pool.query<R>(text, values);
    } catch (err) {
      if (isMissingTable(err)) throw err;
      throw stateIo(`the state store ${location} failed`, err);
    }
  }

  /** Runs `work` in a transaction; the term check of a save happens inside it. */
  async function transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      throw stateIo(`cannot reach the state store ${location}`, err);
    }
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      if (err instanceof ReconcileError) throw err;
      throw stateIo(`the state store ${location} failed`, err);
    } finally {
      client.release();
    }
  }

  /** Refuses (LEADER_LOST) a write whose lease is not the instance's current term. */
  async function assertTerm(client: pg.PoolClient, lease: Lease | undefined): Promise<void> {
    if (lease === undefined) return;
    lease.assertHeld();
    const current = await client.query<{ term: string }>(
      'SELECT term FROM edgesync_leases WHERE instance = $1 FOR SHARE',
      [instance],
    );
    const term = Number(current.rows[0]?.term ?? 0);
    if (term !== lease.term) {
      throw leaseLost(`the state store's term is ${term}, this writer's ${lease.term}`);
    }
  }

  const installKey: KeyStorage = {
    location: `${location}, table edgesync_install_keys`,
    async read() {
      try {
        const result = await query<{ key: string }>(
          'SELECT key FROM edgesync_install_keys WHERE instance = $1',
          [instance],
        );
        return result.rows[0]?.key;
      } catch (err) {
        if (isMissingTable(err)) return undefined;
        throw err;
      }
    },
    write(text, lease) {
      return transaction(async (client) => {
        await assertTerm(client, lease);
        await client.query(
          'INSERT INTO edgesync_install_keys (instance, key) VALUES ($1, $2) ON CONFLICT (instance) DO UPDATE SET key = EXCLUDED.key',
          [instance, text],
        );
      });
    },
  };

  async function currentHolder(): Promise<{ holder: LeaseHolder; term: number } | undefined> {
    try {
      const result = await query<{ holder: LeaseHolder; term: string; held: boolean }>(
        `SELECT holder, term, EXISTS (
           SELECT 1 FROM pg_locks
            WHERE locktype = 'advisory' AND objsubid = 1 AND granted
              AND ((classid::bigint << 32) | objid::bigint) = hashtextextended('edgesync:' || $1, 0)
         ) AS held
           FROM edgesync_leases WHERE instance = $1`,
        [instance],
      );
      const row = result.rows[0];
      return row === undefined || !row.held ? undefined : { holder: row.holder, term: Number(row.term) };
    } catch (err) {
      if (isMissingTable(err)) return undefined;
      throw err;
    }
  }

  async function acquire(command: string, acquireOptions: AcquireOptions): Promise<Lease> {
    // The lease lives in a table: a writer's first use of a new database creates it.
    await prepare();
    const deadline = Date.now() + acquireOptions.timeoutMs;
    for (;;) {
      const lease = await tryAcquire(command);
      if (lease !== undefined) return lease;
      if (Date.now() >= deadline || acquireOptions.signal?.aborted === true) {
        const current = await currentHolder();
        throw stateLocked(
          `the state store ${location} is in use by ${current === undefined ? 'another writer' : describeHolder(current.holder)}; two writers would undo each other's changes. Its lease ends when its database session does`,
          current?.holder,
        );
      }
      await sleep(Math.min(timing.pollMs, Math.max(0, deadline - Date.now())));
    }
  }

  /**
   * The session a waiting writer tries the lock on, kept between tries (a standby tries every
   * `pollMs`; a new connection each time would cost the server a process each time).
   */
  let spare: pg.Client | undefined;

  async function lockSession(): Promise<pg.Client> {
    if (spare !== undefined) {
      const kept = spare;
      spare = undefined;
      return kept;
    }
    const session = new pg.Client(config);
    session.on('error', () => undefined);
    try {
      await session.connect();
      const { idle, interval, count } = timing.keepalive;
      // The server notices a vanished client (a network cut, a dead node) about a lease period
      // after its last packet, and frees the lock for the next writer (docs/state.md, The
      // Postgres store). Settings, not literals in SQL: they are whole numbers of our own.
      await session.query(
        `SET tcp_keepalives_idle = ${idle}; SET tcp_keepalives_interval = ${interval}; SET tcp_keepalives_count = ${count}`,
      );
    } catch (err) {
      await session.end().catch(() => undefined);
      throw stateIo(`cannot reach the state store ${location}`, err);
    }
    return session;
  }

  /** One attempt: the lock session takes the advisory lock and bumps the term. */
  async function tryAcquire(command: string): Promise<Lease | undefined> {
    const session = await lockSession();
    try {
      const got = await session.query<{ locked: boolean }>(
        "SELECT pg_try_advisory_lock(hashtextextended('edgesync:' || $1, 0)) AS locked",
        [instance],
      );
      if (got.rows[0]?.locked !== true) {
        spare = session;
        return undefined;
      }
      // A holder that stops pinging (a frozen process, a lost node whose packets vanish) is
      // ended by the server after a lease period, and its lock freed; PostgreSQL 14 and later.
      await session.query(`SET idle_session_timeout = ${Math.round(timing.leaseMs)}`).catch(() => undefined);
      const holder: LeaseHolder = {
        pid: process.pid,
        host: hostname(),
        since: new Date().toISOString(),
        command,
        nonce: `${process.pid}-${Date.now()}-${Math.random().toString(16).slice(2)}`,
      };
      const bumped = await session.query<{ term: string }>(
        `INSERT INTO edgesync_leases (instance, term, holder) VALUES ($1, 1, $2)
           ON CONFLICT (instance) DO UPDATE SET term = edgesync_leases.term + 1, holder = EXCLUDED.holder, since = now()
         RETURNING term`,
        [instance, JSON.stringify(holder)],
      );
      return holdSession(session, holder, Number(bumped.rows[0]?.term));
    } catch (err) {
      await session.end().catch(() => undefined);
      throw stateIo(`cannot take the state lease of ${location}`, err);
    }
  }

  /** The lock session of each lease this backend handed out: the leader listens for triggers on it. */
  const sessions = new WeakMap<Lease, pg.Client>();

  const relay: TriggerRelay = {
    async send(trigger) {
      await query('SELECT pg_notify($1, $2)', [TRIGGER_CHANNEL, JSON.stringify({ ...trigger, instance })]);
    },
    async listen(lease, onTrigger) {
      const session = sessions.get(lease);
      if (session === undefined) return;
      session.on('notification', (message) => {
        if (message.channel !== TRIGGER_CHANNEL || message.payload === undefined) return;
        let trigger: RelayedTrigger & { instance?: unknown };
        try {
          trigger = JSON.parse(message.payload) as RelayedTrigger;
        } catch {
          return;
        }
        if (trigger.instance !== instance) return;
        const { instance: _instance, ...rest } = trigger;
        onTrigger(rest);
      });
      await session.query(`LISTEN ${TRIGGER_CHANNEL}`);
    },
  };

  function holdSession(session: pg.Client, holder: LeaseHolder, term: number): Lease {
    let lastOk = Date.now();
    let lost: string | undefined;
    let released = false;
    let expiry: NodeJS.Timeout | undefined;
    const listeners: ((reason: string) => void)[] = [];
    const markLost = (reason: string): void => {
      if (lost !== undefined || released) return;
      lost = reason;
      clearInterval(timer);
      clearTimeout(expiry);
      // Ends the session so the server frees the lock now, not after its keepalives.
      session.end().catch(() => undefined);
      for (const listener of listeners) listener(reason);
    };
    session.removeAllListeners('error');
    session.on('error', (err) => markLost(`its database session failed: ${err.message}`));
    session.on('end', () => markLost('its database session ended'));
    const isHeld = (): boolean => lost === undefined && !released && Date.now() - lastOk < timing.validMs;
    /** A lease whose pings went unanswered for `validMs` is lost: `onLost` fires, not just `held()`. */
    const armExpiry = (): void => {
      clearTimeout(expiry);
      expiry = setTimeout(
        () => {
          if (isHeld()) armExpiry();
          else markLost(`its database session has not answered for ${timing.validMs / 1000} s`);
        },
        timing.validMs - (Date.now() - lastOk) + 1,
      );
      expiry.unref();
    };
    const timer = setInterval(() => {
      session
        .query({ text: 'SELECT 1', query_timeout: timing.validMs } as pg.QueryConfig)
        .then(() => {
          if (lost !== undefined) return;
          lastOk = Date.now();
          armExpiry();
        })
        .catch((err: Error) => markLost(`its database session does not answer: ${err.message}`));
    }, timing.heartbeatMs);
    timer.unref();
    armExpiry();
    const lease: Lease = {
      holder,
      term,
      held: isHeld,
      assertHeld() {
        if (!isHeld())
          throw leaseLost(lost ?? `its database session has not answered for ${timing.validMs / 1000} s`);
      },
      onLost(listener) {
        listeners.push(listener);
      },
      async release() {
        if (released) return;
        released = true;
        clearInterval(timer);
        clearTimeout(expiry);
        await session
          .query("SELECT pg_advisory_unlock(hashtextextended('edgesync:' || $1, 0))", [instance])
          .catch(() => undefined);
        await session.end().catch(() => undefined);
      },
    };
    sessions.set(lease, session);
    return lease;
  }

  return {
    kind: 'postgres',
    location,
    async readDocument(unlessVersion) {
      try {
        const result = await query<{ document: string; version: string }>(
          'SELECT document::text AS document, version FROM edgesync_documents WHERE instance = $1',
          [instance],
        );
        const row = result.rows[0];
        const version = row === undefined ? 'none' : String(row.version);
        if (unlessVersion !== undefined && unlessVersion === version) return undefined;
        return { text: row?.document, version } satisfies DocumentRead;
      } catch (err) {
        if (isMissingTable(err)) return { text: undefined, version: 'none' };
        throw err;
      }
    },
    writeDocument(text, lease) {
      return transaction(async (client) => {
        await assertTerm(client, lease);
        const written = await client.query<{ version: string }>(
          `INSERT INTO edgesync_documents (instance, document, version, term) VALUES ($1, $2::jsonb, 1, $3)
             ON CONFLICT (instance) DO UPDATE SET document = EXCLUDED.document,
               version = edgesync_documents.version + 1, term = EXCLUDED.term, updated_at = now()
           RETURNING version`,
          // One parameter: the database takes the document whole.
          [instance, typeof text === 'string' ? text : [...text].join(''), lease?.term ?? 0],
        );
        return String(written.rows[0]?.version);
      });
    },
    async setAsideDocument() {
      // Kept as a record: the next save replaces the document.
      await query(
        `INSERT INTO edgesync_records (instance, name, body)
           SELECT instance, 'corrupt-' || extract(epoch from now())::bigint, document::text FROM edgesync_documents WHERE instance = $1
           ON CONFLICT DO NOTHING`,
        [instance],
      );
      return `${location}, table edgesync_records`;
    },
    async readRecord(name) {
      try {
        const result = await query<{ body: string }>(
          'SELECT body FROM edgesync_records WHERE instance = $1 AND name = $2',
          [instance, name],
        );
        return result.rows[0]?.body;
      } catch (err) {
        if (isMissingTable(err)) return undefined;
        throw err;
      }
    },
    writeRecord(name, text, lease) {
      return transaction(async (client) => {
        await assertTerm(client, lease);
        await client.query(
          `INSERT INTO edgesync_records (instance, name, body) VALUES ($1, $2, $3)
             ON CONFLICT (instance, name) DO UPDATE SET body = EXCLUDED.body, updated_at = now()`,
          [instance, name, text],
        );
      });
    },
    installKey,
    relay,
    acquire,
    holder: currentHolder,
    prepare,
    async close() {
      const kept = spare;
      spare = undefined;
      await Promise.all([kept?.end().catch(() => undefined), pool.end().catch(() => undefined)]);
    },
  };

  /** Creates and migrates the tables, once per backend (concurrent migrators wait for each other). */
  function prepare(): Promise<void> {
    prepared ??= transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await client.query(
        'CREATE TABLE IF NOT EXISTS edgesync_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const done = await client.query<{ version: number }>('SELECT version FROM edgesync_migrations');
      const applied = new Set(done.rows.map((row) => row.version));
      for (const [index, statements] of MIGRATIONS.entries()) {
        const version = index + 1;
        if (applied.has(version)) continue;
        for (const statement of statements) await client.query(statement);
        await client.query('INSERT INTO edgesync_migrations (version) VALUES ($1)', [version]);
      }
    }).catch((err: unknown) => {
      prepared = undefined;
      throw err;
    });
    return prepared;
  }
}
