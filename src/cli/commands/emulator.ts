/**
 * `edgesync emulator`: runs the local API emulator until SIGTERM/SIGINT (io.signal).
 *
 * The key is taken from --access-key, --access-key-file or EDGESYNC_ACCESS_KEY, in that
 * order; the last two are read as the client reads them (trimmed), so a demo sets one thing
 * and both sides agree on the key. It is never printed.
 */
import { resolve } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { EmulatorOptions, EmulatorSeed, FaultOptions } from '../../emulator/index.js';
import { checkRateLimit, loadSeedFile, startEmulator } from '../../emulator/index.js';
import type { CommandRegistrar } from '../command.js';
import { type CliIo, errorLine, waitForAbort } from '../io.js';
import { configuredAccessKey, nonNegativeNumber } from '../settings.js';

/** Default port: next to the daemon's default 8080, so both run side by side. */
const DEFAULT_EMULATOR_PORT = 8081;

interface EmulatorFlags {
  port: number;
  host: string;
  seed?: string;
  accessKey?: string;
  accessKeyFile?: string;
  latencyMs?: number | [number, number];
  failRate429?: number;
  failRate500?: number;
  failRate503?: number;
  dropRate?: number;
  dropAfterRate?: number;
  retryAfter?: number;
  rateLimit?: number;
  strict?: boolean;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('must be 0-65535.');
  return port;
}

function parseRate(value: string): number {
  const rate = Number(value);
  if (!(rate >= 0 && rate <= 1)) throw new InvalidArgumentError('must be a share between 0 and 1.');
  return rate;
}

/** Requests per second per key: a positive number. */
function parseRateLimit(value: string): number {
  try {
    return checkRateLimit(Number(value));
  } catch {
    throw new InvalidArgumentError('must be a positive number of requests per second.');
  }
}

/** `50` or `20-200` (uniform in the range). */
function parseLatency(value: string): number | [number, number] {
  const range = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)$/.exec(value);
  if (range !== null) {
    const min = Number(range[1]);
    const max = Number(range[2]);
    if (min > max) throw new InvalidArgumentError('the range must be MIN-MAX with MIN ≤ MAX.');
    return [min, max];
  }
  return nonNegativeNumber(value);
}

/** Undefined when no key is configured; throws USAGE for an unreadable or empty key file. */
async function resolveKey(flags: EmulatorFlags, io: CliIo): Promise<string | undefined> {
  if (flags.accessKey !== undefined && flags.accessKey !== '') return flags.accessKey;
  return configuredAccessKey(flags, io);
}

function faultOptions(flags: EmulatorFlags): FaultOptions | undefined {
  const options: FaultOptions = {};
  if (flags.latencyMs !== undefined) options.latencyMs = flags.latencyMs;
  if (flags.failRate429 !== undefined) options.rate429 = flags.failRate429;
  if (flags.failRate500 !== undefined) options.rate500 = flags.failRate500;
  if (flags.failRate503 !== undefined) options.rate503 = flags.failRate503;
  if (flags.dropRate !== undefined) options.rateDrop = flags.dropRate;
  if (flags.dropAfterRate !== undefined) options.rateDropAfter = flags.dropAfterRate;
  if (flags.retryAfter !== undefined) options.retryAfterSeconds = flags.retryAfter;
  return Object.keys(options).length === 0 ? undefined : options;
}

async function run(flags: EmulatorFlags, io: CliIo): Promise<number> {
  let key: string | undefined;
  try {
    key = await resolveKey(flags, io);
  } catch (err) {
    // A key file that cannot be read or is empty: the message names the file and why.
    io.stderr.write(errorLine('USAGE', (err as Error).message, 'edgesync emulator'));
    return 1;
  }
  if (key === undefined) {
    io.stderr.write(
      errorLine(
        'USAGE',
        'no access key configured: set EDGESYNC_ACCESS_KEY, or pass --access-key-file or --access-key',
        'edgesync emulator',
      ),
    );
    return 1;
  }
  let seed: EmulatorSeed | undefined;
  // No journal: nothing can read it from outside the process, and it would hold reply texts.
  const options: EmulatorOptions = { port: flags.port, host: flags.host, accessKey: key, journal: false };
  try {
    if (flags.seed !== undefined) seed = await loadSeedFile(resolve(io.cwd, flags.seed));
    if (seed !== undefined) options.seed = seed;
    if (flags.rateLimit !== undefined) options.rateLimit = flags.rateLimit;
    if (flags.strict === true) options.strict = true;
    const faults = faultOptions(flags);
    if (faults !== undefined) options.faults = faults;
  } catch (err) {
    io.stderr.write(errorLine('USAGE', (err as Error).message, 'edgesync emulator'));
    return 1;
  }
  let emulator: Awaited<ReturnType<typeof startEmulator>>;
  try {
    emulator = await startEmulator(options);
  } catch (err) {
    io.stderr.write(errorLine('USAGE', `cannot start: ${(err as Error).message}`, 'edgesync emulator'));
    return 1;
  }
  io.stdout.write(`listening on ${emulator.url}\n`);
  await waitForAbort(io.signal);
  await emulator.close();
  return 0;
}

/** Registers `emulator` on the program. */
export const registerEmulatorCommand: CommandRegistrar = (program: Command, io: CliIo, setExitCode) => {
  program
    .command('emulator')
    .description('run the local emulator of the bunny.net management API')
    .addOption(
      new Option('--port <n>', 'TCP port, 0 = any free port')
        .default(DEFAULT_EMULATOR_PORT)
        .argParser(parsePort),
    )
    .option('--host <address>', 'interface to bind', '127.0.0.1')
    .option('--seed <file>', 'YAML seed with the emulated account (see src/emulator/README.md)')
    .option('--access-key <key>', 'the accepted AccessKey (prefer EDGESYNC_ACCESS_KEY: flags show in ps)')
    .option('--access-key-file <file>', 'file holding the accepted AccessKey')
    .addOption(new Option('--latency-ms <ms>', 'added latency: N or MIN-MAX').argParser(parseLatency))
    .addOption(new Option('--fail-rate-429 <share>', 'share of requests answered 429').argParser(parseRate))
    .addOption(new Option('--fail-rate-500 <share>', 'share of requests answered 500').argParser(parseRate))
    .addOption(new Option('--fail-rate-503 <share>', 'share of requests answered 503').argParser(parseRate))
    .addOption(
      new Option('--drop-rate <share>', 'share of connections dropped without a reply').argParser(parseRate),
    )
    .addOption(
      new Option(
        '--drop-after-rate <share>',
        'share of requests handled, then dropped before the reply',
      ).argParser(parseRate),
    )
    .addOption(
      new Option('--retry-after <seconds>', 'Retry-After sent with 429s (default 1)').argParser(
        nonNegativeNumber,
      ),
    )
    .addOption(
      new Option(
        '--rate-limit <n>',
        'requests/s per access key (token bucket, burst N); past it 429 + Retry-After',
      ).argParser(parseRateLimit),
    )
    .option('--strict', 'refuse unknown fields in request bodies (the real API ignores them)')
    .action(async (flags: EmulatorFlags) => {
      setExitCode(await run(flags, io));
    });
};
