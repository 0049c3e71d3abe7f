/**
 * Where the config directory is: `--config DIR`, else `EDGESYNC_CONFIG` (empty counts as
 * unset), else `./config` (design §3). Every command that reads desired state takes
 * `addConfigOption` and resolves the directory with `configDirFrom`, so they all agree. The
 * same commands take `--parse-processes`, which `loaderOptionsFrom` hands to the loader.
 */
import { resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import type { LoaderOptions } from '../config/loader.js';
import type { CliIo } from './io.js';

/** The flags `addConfigOption` adds. */
export interface ConfigFlags {
  config?: string;
  parseProcesses?: number;
}

/** Most parse processes `--parse-processes` accepts: each holds ~70 MB while a load runs. */
const MAX_PARSE_PROCESSES = 16;

function parseProcessCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > MAX_PARSE_PROCESSES)
    throw new InvalidArgumentError(`must be an integer from 0 to ${MAX_PARSE_PROCESSES}.`);
  return n;
}

/** The default when neither `--config` nor `EDGESYNC_CONFIG` is given. */
export const DEFAULT_CONFIG_DIR = 'config';

/** The config directory as the user wrote it (for messages) and as an absolute path (for reading). */
export interface ConfigDir {
  readonly given: string;
  readonly path: string;
}

/** Adds --config and --parse-processes; used by every command that reads the desired state. */
export function addConfigOption(command: Command): Command {
  return command
    .option(
      '--config <dir>',
      `desired-state directory (env EDGESYNC_CONFIG, default ./${DEFAULT_CONFIG_DIR})`,
    )
    .option(
      '--parse-processes <n>',
      'processes that parse 1 MiB of YAML or more (default: one per core, at most 3; 0: none)',
      parseProcessCount,
    );
}

/**
 * The loader's settings from those flags. The default counts the host's cores, which in a
 * container may not be the container's: hence a number (docs/configuration.md).
 */
export function loaderOptionsFrom(flags: ConfigFlags): LoaderOptions {
  return flags.parseProcesses === undefined ? {} : { autoWorkers: flags.parseProcesses };
}

/** Resolves the config directory from the flag, the environment and the working directory. */
export function configDirFrom(flag: string | undefined, io: CliIo): ConfigDir {
  const given = flag ?? (io.env.EDGESYNC_CONFIG || undefined) ?? DEFAULT_CONFIG_DIR;
  return { given, path: resolve(io.cwd, given) };
}
