/**
 * Reads the `valueFrom` sources of container secrets when a plan is made (docs/design.md, Secrets in container apps): an
 * `EDGESYNC_SECRET_*` variable of edgesync's environment, or a file of the secrets directory
 * (`--secrets-dir`, env `EDGESYNC_SECRETS_DIR`). The schema already refused every other
 * variable and every path that could leave the directory; both rules are checked again here,
 * before anything is read, and a file reached through a symlink must still lie inside the
 * directory (Kubernetes mounts Secrets as links into a `..data` folder of the same directory).
 *
 * A source that cannot give a value is an error for its resource, never an empty value.
 */
import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isInside } from '../domain/paths.js';
import {
  describeSecretSource,
  MAX_SECRET_FILE_BYTES,
  type SecretRead,
  type SecretReader,
  type SecretSource,
  secretEnvNameProblem,
  secretFilePathProblem,
  secretFileValue,
} from '../domain/secret-sources.js';

/** Where secrets come from: edgesync's own environment, and the secrets directory if one is set. */
export interface SecretReaderOptions {
  /** The process environment; only `EDGESYNC_SECRET_*` variables are ever read from it. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The secrets directory (absolute), or undefined when none is configured. */
  readonly secretsDir?: string;
}

/** Builds the reader of one process (the CLI command or the daemon). */
export function createSecretReader(options: SecretReaderOptions): SecretReader {
  return {
    read: (source) =>
      'env' in source
        ? Promise.resolve(readEnv(source.env, options.env))
        : readSecretFile(source, options.secretsDir),
  };
}

function readEnv(name: string, env: SecretReaderOptions['env']): SecretRead {
  const problem = secretEnvNameProblem(name);
  if (problem !== undefined) return { error: `${JSON.stringify(name)} cannot be read: ${problem}` };
  const value = env[name];
  if (value === undefined) return { error: `${name} is not set in edgesync's environment` };
  if (value === '') return { error: `${name} is empty` };
  return { value };
}

async function readSecretFile(
  source: SecretSource & { file: string },
  dir: string | undefined,
): Promise<SecretRead> {
  const name = describeSecretSource(source);
  if (dir === undefined) {
    return { error: `${name} needs a secrets directory: set --secrets-dir or EDGESYNC_SECRETS_DIR` };
  }
  const problem = secretFilePathProblem(source.file);
  if (problem !== undefined) return { error: `${name} ${problem}` };
  let real: string;
  try {
    const realDir = await realpath(dir);
    real = await realpath(join(resolve(dir), source.file));
    // The directory itself is no secret file: strictly inside, never equal.
    if (real === realDir || !isInside(realDir, real))
      return { error: `${name} resolves outside the secrets directory ${dir}` };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { error: `${name} does not exist in the secrets directory ${dir}` };
    return { error: `cannot read ${name}: ${code ?? 'error'}` };
  }
  try {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever, on a
    // thread of libuv's small pool; it is refused as not a regular file just below.
    const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) return { error: `${name} is not a regular file` };
      if (stat.size > MAX_SECRET_FILE_BYTES) {
        return { error: `${name} is larger than ${MAX_SECRET_FILE_BYTES / 1024} KiB` };
      }
      // Read through the handle with a bound: the file may have grown since the stat.
      const buffer = Buffer.alloc(MAX_SECRET_FILE_BYTES + 1);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      if (bytesRead > MAX_SECRET_FILE_BYTES) {
        return { error: `${name} is larger than ${MAX_SECRET_FILE_BYTES / 1024} KiB` };
      }
      let text: string;
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(buffer.subarray(0, bytesRead));
      } catch {
        return { error: `${name} is not UTF-8 text` };
      }
      const value = secretFileValue(text);
      if (value === '') return { error: `${name} is empty` };
      return { value };
    } finally {
      await handle.close();
    }
  } catch (err) {
    return { error: `cannot read ${name}: ${(err as NodeJS.ErrnoException).code ?? 'error'}` };
  }
}
