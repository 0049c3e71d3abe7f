/**
 * The flags that choose and guard the state store (docs/state.md): `--state-dir` or
 * `--state-url` (with `--state-password-file` and `--instance`), `--lease-seconds` and
 * `--lock-timeout`, and how they become a `StateBackend`. The database password is read from a
 * file, PGPASSWORD or PGPASSFILE (or the URL) and never printed: messages show the URL without it.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { ReconcileError } from '../errors.js';
import type { StateBackend } from '../state/backend.js';
import { fileBackend } from '../state/file-backend.js';
import { DEFAULT_LEASE_MS } from '../state/file-lease.js';
import { assertStateDirOutside, defaultStateDir, legacyStateWarning } from '../state/location.js';
import { DEFAULT_POSTGRES_LEASE_MS, postgresBackend } from '../state/postgres-backend.js';
import type { CliIo } from './io.js';

export interface StateFlags {
  stateDir?: string;
  stateUrl?: string;
  statePasswordFile?: string;
  instance?: string;
  leaseSeconds?: number;
  lockTimeout?: number;
}

function seconds(label: string, minimum: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!(Number.isFinite(n) && n >= minimum))
      throw new InvalidArgumentError(`${label} must be a number ≥ ${minimum}`);
    return n;
  };
}

/** Adds the state store's flags; `lockTimeout`: the commands that wait for the writer's lease. */
export function addStateOptions(command: Command, options: { lockTimeout: boolean }): Command {
  command
    .option(
      '--state-dir <dir>',
      'state directory (env EDGESYNC_STATE_DIR; default $XDG_STATE_HOME/edgesync/<config>-<digest>); never inside the config directory or its git work tree',
    )
    .option(
      '--state-url <url>',
      'keep the state in PostgreSQL instead: postgres://user@host:port/db (env EDGESYNC_STATE_URL)',
    )
    .option(
      '--state-password-file <file>',
      "the database password (else PGPASSWORD, PGPASSFILE or the URL's own); never printed",
    )
    .option(
      '--instance <name>',
      'the name of this configuration in a shared database (default: the config directory name and a digest of its path)',
    )
    .option(
      '--lease-seconds <s>',
      `the writer's lease: a holder that has not renewed it for this long is taken over, and a database session that went silent is dropped after about as long (default ${DEFAULT_LEASE_MS / 1000} for a directory, ${DEFAULT_POSTGRES_LEASE_MS / 1000} for postgres)`,
      seconds('--lease-seconds', 1),
    );
  if (options.lockTimeout) {
    command.option(
      '--lock-timeout <s>',
      'wait this long for a writer that holds the state (a running daemon, an apply); default 0: refuse at once, naming it',
      seconds('--lock-timeout', 0),
      0,
    );
  }
  return command;
}

/** The state directory in use: `--state-dir`, else EDGESYNC_STATE_DIR, else the default; checked. */
function stateDirOf(flags: StateFlags, configDir: string, io: CliIo): string {
  const given = flags.stateDir ?? io.env.EDGESYNC_STATE_DIR;
  const dir =
    given !== undefined && given !== '' ? resolve(io.cwd, given) : defaultStateDir(configDir, io.env);
  assertStateDirOutside(dir, configDir);
  return dir;
}

/** `--state-url`, else EDGESYNC_STATE_URL; undefined for the file store. */
function stateUrlOf(flags: StateFlags, io: CliIo): string | undefined {
  const url = flags.stateUrl ?? io.env.EDGESYNC_STATE_URL;
  if (url === undefined || url === '') return undefined;
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new ReconcileError(
      'USAGE',
      '--state-url (EDGESYNC_STATE_URL) must be a postgres:// or postgresql:// URL',
    );
  }
  return url;
}

/** The default instance name: the config directory's name and a digest of its path as given. */
export function defaultInstance(configDir: string): string {
  const path = resolve(configDir);
  return `${basename(path) || 'config'}-${createHash('sha256').update(path).digest('hex').slice(0, 12)}`;
}

export function passwordOf(flags: { statePasswordFile?: string }, io: CliIo): string | undefined {
  if (flags.statePasswordFile !== undefined) {
    const file = resolve(io.cwd, flags.statePasswordFile);
    try {
      return readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (err) {
      throw new ReconcileError(
        'USAGE',
        `cannot read --state-password-file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
  }
  const fromEnv = io.env.PGPASSWORD;
  return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
}

/** The state store the flags name, and the warnings to print (an abandoned legacy directory). */
export function stateBackendOf(
  flags: StateFlags,
  configDir: string,
  io: CliIo,
): { backend: StateBackend; stateDir: string | undefined; warnings: string[] } {
  const url = stateUrlOf(flags, io);
  if (url !== undefined) {
    const leaseMs = leaseMsOf(flags);
    if (flags.stateDir !== undefined)
      throw new ReconcileError('USAGE', '--state-dir and --state-url cannot be used together');
    const password = passwordOf(flags, io);
    return {
      backend: postgresBackend({
        url,
        instance: flags.instance ?? defaultInstance(configDir),
        ...(password === undefined ? {} : { password }),
        ...(leaseMs === undefined ? {} : { leaseMs }),
      }),
      stateDir: undefined,
      warnings: [],
    };
  }
  const leaseMs = leaseMsOf(flags);
  const dir = stateDirOf(flags, configDir, io);
  const legacy = legacyStateWarning(configDir, dir);
  return {
    backend: fileBackend(dir, leaseMs === undefined ? {} : { leaseMs }),
    stateDir: dir,
    warnings: legacy === undefined ? [] : [legacy],
  };
}

/** `--lease-seconds` in milliseconds; undefined: each store's own default. */
export function leaseMsOf(flags: StateFlags): number | undefined {
  return flags.leaseSeconds === undefined ? undefined : Math.round(flags.leaseSeconds * 1000);
}

export function lockTimeoutMsOf(flags: StateFlags): number {
  return Math.round((flags.lockTimeout ?? 0) * 1000);
}
