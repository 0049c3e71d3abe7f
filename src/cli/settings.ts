/**
 * Flags and environment shared by the commands that talk to the API. The access key comes
 * from `EDGESYNC_ACCESS_KEY` or `--access-key-file`, never from a flag value (it would show in
 * `ps` and shell history).
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { SecretReader } from '../domain/secret-sources.js';
import { ReconcileError } from '../errors.js';
import { createLogger, LOG_LEVELS, type LogFormat, type Logger, type LogLevel } from '../log.js';
import { createSecretReader } from '../secrets/reader.js';
import type { ConfigFlags } from './config-dir.js';
import type { CliIo } from './io.js';
import { addStateOptions, type StateFlags } from './state-options.js';

const DEFAULT_BASE_URL = 'https://api.bunny.net';

/** The flags `addApiOptions` adds. */
export interface ApiFlags {
  baseUrl?: string;
  accessKeyFile?: string;
  logLevel?: LogLevel;
  logFormat?: LogFormat;
}

/** The flags of the commands that read the desired state and keep state (plan, apply, run). */
export interface ConnectionFlags extends ApiFlags, ConfigFlags, StateFlags {
  secretsDir?: string;
  concurrency: number;
  maxRps?: number;
}

/** Parses a positive integer flag value. */
export function positiveInt(label: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${label} must be a positive integer`);
    return n;
  };
}

/** Parses a flag value that is a number ≥ 0 (fractions allowed: seconds, milliseconds). */
export function nonNegativeNumber(value: string): number {
  const n = Number(value);
  if (!(Number.isFinite(n) && n >= 0)) throw new InvalidArgumentError('must be a number ≥ 0.');
  return n;
}

/**
 * Adds --base-url, --access-key-file, --log-level and --log-format: every command that talks
 * to the API. `inspect` and `export` take only these (and --concurrency): they keep no state.
 */
export function addApiOptions(command: Command): Command {
  return command
    .option('--base-url <url>', `API base URL (env EDGESYNC_BASE_URL, default ${DEFAULT_BASE_URL})`)
    .option('--access-key-file <file>', 'file holding the API access key (else env EDGESYNC_ACCESS_KEY)')
    .addOption(new Option('--log-level <level>', 'log level').choices(LOG_LEVELS))
    .addOption(
      new Option('--log-format <format>', 'log format (pretty on a terminal)').choices(['json', 'pretty']),
    );
}

/** Adds --concurrency: how many API requests a command sends at once. */
export function addConcurrencyOption(command: Command): Command {
  return command.option('--concurrency <n>', 'parallel API requests', positiveInt('--concurrency'), 8);
}

/**
 * Adds the API flags plus the state store's, --secrets-dir, --concurrency and --max-rps: the
 * commands that reconcile. `lockTimeout`: the command waits for the writer's lease (not `plan`).
 */
export function addConnectionOptions(command: Command, options: { lockTimeout: boolean }): Command {
  return addConcurrencyOption(
    addStateOptions(addApiOptions(command), options)
      .option(
        '--max-rps <n>',
        'at most this many API requests a second (env EDGESYNC_MAX_RPS; the pace is also learned from 429s)',
        positiveNumber('--max-rps'),
      )
      .option(
        '--secrets-dir <dir>',
        'directory of the files container secrets name in valueFrom.file (env EDGESYNC_SECRETS_DIR)',
      ),
  );
}

/** Parses a flag value that is a number > 0 (fractions allowed). */
function positiveNumber(label: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!(Number.isFinite(n) && n > 0)) throw new InvalidArgumentError(`${label} must be a number > 0`);
    return n;
  };
}

/**
 * The user's cap on API requests a second: `--max-rps`, else `EDGESYNC_MAX_RPS`, else none (the
 * client still paces itself by the API's 429s).
 */
export function maxRps(flags: { maxRps?: number }, io: CliIo): number | undefined {
  if (flags.maxRps !== undefined) return flags.maxRps;
  const env = io.env.EDGESYNC_MAX_RPS?.trim();
  if (env === undefined || env === '') return undefined;
  const n = Number(env);
  if (!(Number.isFinite(n) && n > 0))
    throw new ReconcileError('USAGE', `EDGESYNC_MAX_RPS must be a number > 0, not ${JSON.stringify(env)}`);
  return n;
}

/**
 * Where container secrets come from (docs/secrets.md): the `EDGESYNC_SECRET_*` variables of
 * this process, and `--secrets-dir` (else `EDGESYNC_SECRETS_DIR`) for `valueFrom.file`.
 */
export function secretReaderFrom(flags: { secretsDir?: string }, io: CliIo): SecretReader {
  const dir = flags.secretsDir ?? io.env.EDGESYNC_SECRETS_DIR;
  return createSecretReader({
    env: io.env,
    ...(dir === undefined || dir === '' ? {} : { secretsDir: resolve(io.cwd, dir) }),
  });
}

export function baseUrl(flags: { baseUrl?: string }, io: CliIo): string {
  const url = flags.baseUrl ?? io.env.EDGESYNC_BASE_URL ?? DEFAULT_BASE_URL;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new ReconcileError('USAGE', `--base-url ${JSON.stringify(url)} is not an http(s) URL`);
  }
  return url;
}

/** The access key, from the key file or the environment; a clear USAGE error when neither has one. */
export async function accessKey(flags: { accessKeyFile?: string }, io: CliIo): Promise<string> {
  if (flags.accessKeyFile !== undefined) {
    const file = resolve(io.cwd, flags.accessKeyFile);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      throw new ReconcileError(
        'USAGE',
        `cannot read the access key file ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
      );
    }
    const key = text.trim();
    if (key === '') throw new ReconcileError('USAGE', `the access key file ${file} is empty`);
    return key;
  }
  const key = io.env.EDGESYNC_ACCESS_KEY?.trim();
  if (key === undefined || key === '') {
    throw new ReconcileError(
      'USAGE',
      'no access key: set EDGESYNC_ACCESS_KEY or pass --access-key-file FILE',
    );
  }
  return key;
}

/**
 * The access key when one is configured (a key file, or a non-blank `EDGESYNC_ACCESS_KEY`),
 * read exactly as `accessKey` reads it; undefined when neither is given, for the commands
 * that have a key of their own to fall back on (the emulators).
 */
export async function configuredAccessKey(
  flags: { accessKeyFile?: string },
  io: CliIo,
): Promise<string | undefined> {
  const configured = flags.accessKeyFile !== undefined || (io.env.EDGESYNC_ACCESS_KEY?.trim() ?? '') !== '';
  return configured ? accessKey(flags, io) : undefined;
}

/** True when output should be coloured: a terminal, and NO_COLOR unset. */
export function useColor(io: CliIo): boolean {
  return io.stdout.isTTY === true && (io.env.NO_COLOR ?? '') === '' && io.env.TERM !== 'dumb';
}

/** The root logger for a command: JSON lines, pretty on a terminal; stderr for CLI commands. */
export function commandLogger(
  flags: { logLevel?: LogLevel; logFormat?: LogFormat },
  io: CliIo,
  defaults: { level: LogLevel; stream: 'stdout' | 'stderr' },
): Logger {
  const stream = defaults.stream === 'stdout' ? io.stdout : io.stderr;
  const format = flags.logFormat ?? (stream.isTTY === true ? 'pretty' : 'json');
  return createLogger({ level: flags.logLevel ?? defaults.level, format, destination: stream });
}
