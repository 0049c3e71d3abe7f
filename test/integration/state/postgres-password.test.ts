/**
 * The database password is never printed (docs/state.md, The Postgres store), from any of its
 * sources: in the `--state-url` itself, in `--state-password-file`, or in a PGPASSFILE (pg's own
 * lookup, so these are real processes: `node dist/src/main.js`, environment of their own). Each
 * output is searched byte for byte for the password, raw and URL-encoded: `apply`, `state show`
 * (table and JSON), the errors of a wrong password and of an unreachable server, and a daemon's
 * log, `/status` and `/metrics` as a leader, as a standby, and across a lost lease.
 */
import { spawn } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Emulator } from '../../../src/emulator/index.js';
import { request, until } from '../../helpers/daemon.js';
import { TEST_KEY, withEmulator } from '../../helpers/emulator.js';
import { usePostgres } from '../../helpers/postgres.js';
import { MAIN, REPO, type Spawned, spawnRun, useSpawnedDaemons } from '../../helpers/spawn-daemon.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';

const pgs = usePostgres();
useSpawnedDaemons();

/** A password with the characters a URL must encode and a pgpass file must escape. */
const PASSWORD = 'h3-s3cret/p@ss:w%rd';
const WRONG = 'h3-wr0ng/p@ss:w%rd';
/** Each form a password could be printed in: raw, and as a URL carries it. */
const NEEDLES = [PASSWORD, WRONG, encodeURIComponent(PASSWORD), encodeURIComponent(WRONG), 's3cret', 'wr0ng'];

const RULE = `apiVersion: edgesync/v1
kind: WafCustomRule
metadata: { name: block-a }
spec:
  shieldZoneId: 42
  ruleName: Block a
  ruleConfiguration: { actionType: Block, operatorType: BEGINSWITH, variableTypes: { REQUEST_URI: "" }, value: /a }
`;

interface Run {
  code: number | null;
  out: string;
}

/** `edgesync <args>` as its own process, with only PATH, HOME and `env` in its environment. */
function edgesync(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], {
      cwd: REPO,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, out }));
  });
}

/** A loopback port nothing listens on (bound, read, released). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** A database owned by a role of its own whose password is PASSWORD; its URL without a password. */
async function ownDatabase(): Promise<{ url: string; database: string; role: string }> {
  const database = new URL(await pgs.database()).pathname.slice(1);
  const role = `${database}_owner`;
  const admin = await pgs.admin();
  try {
    await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD '${PASSWORD}'`);
    await admin.query(`ALTER DATABASE ${database} OWNER TO ${role}`);
  } finally {
    await admin.end();
  }
  return { url: `postgres://${role}@127.0.0.1:${pgs.port}/${database}`, database, role };
}

const withUrlPassword = (url: string, password: string): string =>
  url.replace('@127.0.0.1', `:${encodeURIComponent(password)}@127.0.0.1`);

/** Every needle found in `text` (none may be). */
const leaks = (text: string): string[] => NEEDLES.filter((needle) => text.includes(needle));

async function emulator(): Promise<Emulator> {
  const emu = await withEmulator();
  onTestFinished(() => emu.close());
  return emu;
}

describe('the database password is never printed', () => {
  it('from the URL, a password file or PGPASSFILE: apply, state show, a wrong password, an unreachable server', async () => {
    const emu = await emulator();
    const { url, database, role } = await ownDatabase();
    const root = tempDir();
    const config = writeTree(join(root, 'config'), { 'a.yaml': RULE });
    const passwordFile = join(root, 'pg-password');
    writeFileSync(passwordFile, `${PASSWORD}\n`);
    const wrongFile = join(root, 'pg-wrong');
    writeFileSync(wrongFile, `${WRONG}\n`);
    // pgpass escapes ':' and '\'; pg ignores a file others can read.
    const pgpass = (password: string): string => {
      const file = join(root, `pgpass-${password === PASSWORD ? 'right' : 'wrong'}`);
      writeFileSync(
        file,
        `127.0.0.1:${pgs.port}:${database}:${role}:${password.replace(/[:\\]/g, '\\$&')}\n`,
      );
      chmodSync(file, 0o600);
      return file;
    };
    const down = `postgres://${role}@127.0.0.1:${await closedPort()}/${database}`;
    const common = ['--config', config, '--instance', 'h3'];
    const key = { EDGESYNC_ACCESS_KEY: TEST_KEY };
    const apply = (store: readonly string[], env: Record<string, string> = {}) =>
      edgesync(['apply', ...common, '--base-url', emu.url, ...store], { ...key, ...env });
    const show = (store: readonly string[], env: Record<string, string> = {}) =>
      Promise.all([
        edgesync(['state', 'show', ...common, ...store], env),
        edgesync(['state', 'show', '--json', ...common, ...store], env),
      ]);

    const inUrl = ['--state-url', withUrlPassword(url, PASSWORD)];
    const applied = await apply(inUrl);
    const shownUrl = await show(inUrl);
    const shownFile = await show(['--state-url', url, '--state-password-file', passwordFile]);
    const shownPgpass = await show(['--state-url', url], { PGPASSFILE: pgpass(PASSWORD) });
    const wrong = [
      await apply(['--state-url', withUrlPassword(url, WRONG)]),
      await apply(['--state-url', url, '--state-password-file', wrongFile]),
      await apply(['--state-url', url], { PGPASSFILE: pgpass(WRONG) }),
      ...(await show(['--state-url', withUrlPassword(url, WRONG)])),
    ];
    const unreachable = [
      await apply(['--state-url', withUrlPassword(down, PASSWORD)]),
      await apply(['--state-url', down, '--state-password-file', passwordFile]),
      ...(await show(['--state-url', withUrlPassword(down, PASSWORD)])),
    ];

    expect(applied).toMatchObject({ code: 0 });
    for (const shown of [...shownUrl, ...shownFile, ...shownPgpass]) {
      expect(shown.code).toBe(0);
      expect(shown.out).toContain('WafCustomRule/block-a');
      expect(shown.out).toContain(`${role}@127.0.0.1:${pgs.port}/${database}`);
    }
    for (const run of wrong) {
      expect(run.code).toBe(1);
      expect(run.out).toContain(`password authentication failed for user "${role}"`);
    }
    for (const run of unreachable) {
      expect(run.code).toBe(1);
      expect(run.out).toContain('ECONNREFUSED');
    }
    const all = [applied, ...shownUrl, ...shownFile, ...shownPgpass, ...wrong, ...unreachable];
    expect(leaks(all.map((run) => run.out).join('\n'))).toEqual([]);
  }, 120_000);

  it('a daemon leading, standing by, losing its lease or refused by the server prints it nowhere: log, /status, /metrics', async () => {
    const emu = await emulator();
    const { url, database, role } = await ownDatabase();
    const root = tempDir();
    const config = writeTree(join(root, 'config'), { 'a.yaml': RULE });
    const passwordFile = join(root, 'pg-password');
    writeFileSync(passwordFile, `${PASSWORD}\n`);
    const start = (store: readonly string[]): Spawned =>
      spawnRun(
        [
          ...['--config', config, '--base-url', emu.url, '--listen', '127.0.0.1:0', '--instance', 'h3'],
          ...['--schedule', '0 0 1 1 *', '--lease-seconds', '2', ...store],
        ],
        { EDGESYNC_ACCESS_KEY: TEST_KEY },
      );
    const listen = async (daemon: Spawned): Promise<string> =>
      String((await until(() => daemon.events('daemon.started')[0], 'daemon.started', 30_000)).listen);
    const pages = async (daemon: Spawned): Promise<string> => {
      const base = await listen(daemon);
      const replies = await Promise.all(
        ['/status', '/metrics', '/readyz'].map((p) => request(`${base}${p}`)),
      );
      return replies.map((reply) => reply.text).join('\n');
    };

    const leader = start(['--state-url', withUrlPassword(url, PASSWORD)]);
    await until(() => leader.events('reconcile.finished')[0], 'the leader to reconcile', 30_000);
    const standby = start(['--state-url', url, '--state-password-file', passwordFile]);
    await until(() => standby.events('leader.standby')[0], 'the second daemon to stand by', 30_000);
    const wrongUrl = start(['--state-url', withUrlPassword(url, WRONG)]);
    const wrongFile = join(root, 'pg-wrong');
    writeFileSync(wrongFile, `${WRONG}\n`);
    const wrongByFile = start(['--state-url', url, '--state-password-file', wrongFile]);
    // A wrong password is a setting to fix, not an outage to wait out: the daemon exits, saying why.
    const refusals = await Promise.all([wrongUrl.exit, wrongByFile.exit]);
    const seen = [await pages(leader), await pages(standby)];

    const admin = await pgs.admin();
    try {
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
            AND database = (SELECT oid FROM pg_database WHERE datname = $1)`,
        [database],
      );
    } finally {
      await admin.end();
    }
    const lost = await until(() => leader.events('leader.lost')[0], 'leader.lost', 15_000);
    await until(() => standby.events('leader.elected')[0], 'the standby to lead', 15_000);
    seen.push(await pages(leader), await pages(standby));
    for (const daemon of [leader, standby]) daemon.child.kill('SIGTERM');
    await Promise.all([leader.exit, standby.exit]);

    expect(String(lost.reason)).toMatch(/database session/);
    expect(refusals).toEqual([
      { code: 1, signal: null },
      { code: 1, signal: null },
    ]);
    for (const refused of [wrongUrl, wrongByFile])
      expect(refused.output()).toContain(`password authentication failed for user "${role}"`);
    expect(seen[1]).toContain('"role":"standby"');
    const everything = [leader, standby, wrongUrl, wrongByFile].map((d) => d.output()).join('\n');
    expect(everything).toContain(`${role}@127.0.0.1:${pgs.port}/${database}`);
    expect(leaks([everything, ...seen].join('\n'))).toEqual([]);
  }, 120_000);
});
