/**
 * What the read-only commands (`inspect`, `export`) share: the flags that reach the API and a
 * client that is always closed. They need no config directory and no state, so they do not
 * take `addConnectionOptions` (whose `--state-dir` would mean nothing to them).
 */
import { type Command, Option } from 'commander';
import { createApiClient } from '../api/client.js';
import type { ApiClient } from '../api/types.js';
import { ReconcileError } from '../errors.js';
import { LOG_LEVELS, type LogFormat, type LogLevel } from '../log.js';
import type { CliIo } from './io.js';
import { accessKey, baseUrl, commandLogger, DEFAULT_BASE_URL } from './settings.js';

/** The flags `addApiOptions` adds. */
export interface ApiFlags {
  baseUrl?: string;
  accessKeyFile?: string;
  logLevel?: LogLevel;
  logFormat?: LogFormat;
}

/** Adds --base-url, --access-key-file, --log-level and --log-format (logs go to stderr). */
export function addApiOptions(command: Command): Command {
  return command
    .option('--base-url <url>', `API base URL (env EDGESYNC_BASE_URL, default ${DEFAULT_BASE_URL})`)
    .option('--access-key-file <file>', 'file holding the API access key (else env EDGESYNC_ACCESS_KEY)')
    .addOption(new Option('--log-level <level>', 'log level of the API client (stderr)').choices(LOG_LEVELS))
    .addOption(new Option('--log-format <format>', 'log format').choices(['json', 'pretty']));
}

/**
 * Runs `use` with a client built from the flags and closes the client afterwards. Settings
 * problems throw USAGE and API failures throw ApiError: `runCli` prints either as one line.
 */
export async function withApiClient<T>(
  flags: ApiFlags,
  io: CliIo,
  use: (api: ApiClient) => Promise<T>,
): Promise<T> {
  const url = baseUrl(flags, io);
  const key = await accessKey(flags, io);
  // Only warnings by default: the command's own output is the result, retries are noise.
  const logger = commandLogger(flags, io, { level: 'warn', stream: 'stderr' });
  const api = createApiClient({ baseUrl: url, accessKey: key, logger: logger.child({ component: 'api' }) });
  try {
    return await use(api);
  } catch (err) {
    throw withKeyHint(err);
  } finally {
    await api.close();
  }
}

/**
 * A 401 names the API's words only; the one thing the user can do about it is check which key
 * edgesync used, so the line says where that key comes from (never the key itself).
 */
function withKeyHint(err: unknown): unknown {
  if (!(err instanceof ReconcileError) || err.code !== 'API_AUTH' || err.details?.status !== 401) return err;
  return new ReconcileError(
    err.code,
    `${err.message}; check the access key (EDGESYNC_ACCESS_KEY or --access-key-file)`,
    { details: err.details, cause: err },
  );
}
