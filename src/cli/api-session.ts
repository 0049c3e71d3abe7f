/**
 * The API client of every CLI command (`plan`, `apply`, `inspect`, `export`), built one way:
 * URL and key from the flags and environment, logs on stderr, and a 401 that says where the
 * key came from. `withApiClient` is the read-only commands' way to use one and always close it.
 */
import { connectionsFor, createApiClient } from '../api/client.js';
import type { ApiClient } from '../api/types.js';
import type { CliIo } from './io.js';
import { type ApiFlags, accessKey, baseUrl, commandLogger } from './settings.js';

/**
 * A 401 names the API's words only; the one thing the user can do about it is check which key
 * edgesync used, so the line says where that key comes from (never the key itself).
 */
const KEY_HINT = 'check the access key (EDGESYNC_ACCESS_KEY or --access-key-file)';

/** Where the client connects and with which key. */
export interface ApiTarget {
  readonly baseUrl: string;
  readonly accessKey: string;
}

/**
 * Resolves the base URL and the access key; throws USAGE for a bad URL or a missing key.
 * Separate from `createCliApiClient` so a command can report these before doing other work
 * and build the client only once nothing else can fail.
 */
export async function resolveApiTarget(flags: ApiFlags, io: CliIo): Promise<ApiTarget> {
  const url = baseUrl(flags, io);
  return { baseUrl: url, accessKey: await accessKey(flags, io) };
}

/** Builds the client; the caller closes it. */
export function createCliApiClient(
  target: ApiTarget,
  flags: ApiFlags,
  io: CliIo,
  options: { connections?: number; rateLimitPerSecond?: number } = {},
): ApiClient {
  // Only warnings by default: the command's own output is the result, retries are noise.
  // The client tags its lines with component "api" itself.
  const logger = commandLogger(flags, io, { level: 'warn', stream: 'stderr' });
  return createApiClient({ ...target, logger, unauthorizedNote: KEY_HINT, ...options });
}

/**
 * Runs `use` with a client built from the flags and closes the client afterwards; a command
 * with --concurrency (`export`) gets the pool for it, as plan and apply do. Settings
 * problems throw USAGE and API failures throw ApiError: `runCli` prints either as one line.
 */
export async function withApiClient<T>(
  flags: ApiFlags & { concurrency?: number },
  io: CliIo,
  use: (api: ApiClient) => Promise<T>,
): Promise<T> {
  const pool = flags.concurrency === undefined ? {} : { connections: connectionsFor(flags.concurrency) };
  const api = createCliApiClient(await resolveApiTarget(flags, io), flags, io, pool);
  try {
    return await use(api);
  } finally {
    await api.close();
  }
}
