/**
 * Where the config directory is: `--config DIR`, else `EDGESYNC_CONFIG`, else `./config`
 * (design §3). Every command that reads desired state resolves it the same way.
 */
import { resolve } from 'node:path';
import type { CliIo } from './io.js';

/** The default when neither `--config` nor `EDGESYNC_CONFIG` is given. */
export const DEFAULT_CONFIG_DIR = 'config';

/** The config directory as the user wrote it (for messages) and as an absolute path (for reading). */
export interface ConfigDir {
  readonly given: string;
  readonly path: string;
}

/** Resolves the config directory from the flag, the environment and the working directory. */
export function configDirFrom(flag: string | undefined, io: CliIo): ConfigDir {
  const given = flag ?? (io.env.EDGESYNC_CONFIG || undefined) ?? DEFAULT_CONFIG_DIR;
  return { given, path: resolve(io.cwd, given) };
}
