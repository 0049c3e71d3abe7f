/**
 * The flags that choose and guard the state store (docs/state.md): `--state-dir`,
 * `--lease-seconds` and `--lock-timeout`, and how they become a `StateBackend`.
 */
import { resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import type { StateBackend } from '../state/backend.js';
import { fileBackend } from '../state/file-backend.js';
import { DEFAULT_LEASE_MS } from '../state/file-lease.js';
import { assertStateDirOutside, defaultStateDir, legacyStateWarning } from '../state/location.js';
import type { CliIo } from './io.js';

export interface StateFlags {
  stateDir?: string;
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
      '--lease-seconds <s>',
      `the writer's lease: a holder that has not renewed it for this long is taken over (default ${DEFAULT_LEASE_MS / 1000})`,
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
export function stateDirOf(flags: StateFlags, configDir: string, io: CliIo): string {
  const given = flags.stateDir ?? io.env.EDGESYNC_STATE_DIR;
  const dir =
    given !== undefined && given !== '' ? resolve(io.cwd, given) : defaultStateDir(configDir, io.env);
  assertStateDirOutside(dir, configDir);
  return dir;
}

/** The state store the flags name, and the warnings to print (an abandoned legacy directory). */
export function stateBackendOf(
  flags: StateFlags,
  configDir: string,
  io: CliIo,
): { backend: StateBackend; stateDir: string; warnings: string[] } {
  const dir = stateDirOf(flags, configDir, io);
  const legacy = legacyStateWarning(configDir, dir);
  return {
    backend: fileBackend(dir, { leaseMs: leaseMsOf(flags) }),
    stateDir: dir,
    warnings: legacy === undefined ? [] : [legacy],
  };
}

export function leaseMsOf(flags: StateFlags): number {
  return flags.leaseSeconds === undefined ? DEFAULT_LEASE_MS : Math.round(flags.leaseSeconds * 1000);
}

export function lockTimeoutMsOf(flags: StateFlags): number {
  return Math.round((flags.lockTimeout ?? 0) * 1000);
}
