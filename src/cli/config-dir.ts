/**
 * Where the config directory is: `--config DIR`, else `EDGESYNC_CONFIG` (empty counts as
 * unset), else `./config` (docs/design.md, Commands). Every command that reads desired state takes
 * `addConfigOption` and resolves the directory with `configDirFrom`, so they all agree.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { CliIo } from './io.js';

/** The flags `addConfigOption` adds. */
export interface ConfigFlags {
  config?: string;
}

/** The default when neither `--config` nor `EDGESYNC_CONFIG` is given. */
const DEFAULT_CONFIG_DIR = 'config';

/** The config directory as the user wrote it (for messages) and as an absolute path (for reading). */
export interface ConfigDir {
  readonly given: string;
  readonly path: string;
}

/** Adds --config; used by every command that reads the desired state. */
export function addConfigOption(command: Command): Command {
  return command.option(
    '--config <dir>',
    `desired-state directory (env EDGESYNC_CONFIG, default ./${DEFAULT_CONFIG_DIR})`,
  );
}

/** Resolves the config directory from the flag, the environment and the working directory. */
export function configDirFrom(flag: string | undefined, io: CliIo): ConfigDir {
  const given = flag ?? (io.env.EDGESYNC_CONFIG || undefined) ?? DEFAULT_CONFIG_DIR;
  return { given, path: resolve(io.cwd, given) };
}
