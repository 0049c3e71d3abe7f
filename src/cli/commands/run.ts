/**
 * `edgesync run`: the daemon (docs/design.md, The daemon). Parses the flags, optionally starts the embedded
 * emulator (`--emulator`), starts the daemon, and on SIGTERM, SIGINT or SIGHUP (`io.signal`)
 * stops it gracefully and exits 0. Logs are JSON lines on stdout (pretty on a terminal or with
 * `--log-format pretty`); neither the access key nor a webhook secret is ever printed.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { DEFAULT_SETTLE_MS, startDaemon } from '../../daemon/daemon.js';
import { parseListen } from '../../daemon/http-server.js';
import { type NotifyFlags, readNotifySettings } from '../../daemon/notify/settings.js';
import { assertSchedule, DEFAULT_SCHEDULE } from '../../daemon/scheduler.js';
import { EMULATOR_SEED_PATH, type Emulator, loadSeedFile, startEmulator } from '../../emulator/index.js';
import { DEFAULT_ROLLOUT_POLL_MS } from '../../engine/rollout.js';
import { ReconcileError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { CommandRegistrar } from '../command.js';
import { addConfigOption, configDirFrom } from '../config-dir.js';
import { type CliIo, waitForAbort } from '../io.js';
import { addNotifyOptions } from '../notify-options.js';
import { addReconcileOptions, pruneEnabled, type ReconcileFlags } from '../reconcile-run.js';
import {
  accessKey,
  addConnectionOptions,
  baseUrl,
  commandLogger,
  configuredAccessKey,
  maxRps,
  nonNegativeNumber,
  positiveInt,
  secretReaderFrom,
} from '../settings.js';
import { stateBackendOf } from '../state-options.js';
import { VERSION } from '../version.js';

/** Default of `--listen`: every interface, port 8080 (the image's EXPOSE and HEALTHCHECK use it). */
export const DEFAULT_LISTEN = '0.0.0.0:8080';
/**
 * Default of `--debounce-ms`. The debounce is trailing: it only has to outlast the gaps
 * between the events of one checkout (sub-millisecond for git, one event for a git-sync
 * swap), not the checkout itself. It is also the floor of every file-change's latency, and
 * the target for one changed resource is 300 ms from push to applied, so it stays short.
 */
const DEFAULT_DEBOUNCE_MS = 100;
/** Default of `--shutdown-timeout`, in seconds (Kubernetes' default grace period is 30 s too). */
export const DEFAULT_SHUTDOWN_TIMEOUT_S = 30;

interface RunFlags extends ReconcileFlags, NotifyFlags {
  schedule: string;
  listen: string;
  metricsListen?: string;
  webhookSecretFile?: string;
  gitBranch: string;
  gitPull?: boolean;
  debounceMs: number;
  settleMs: number;
  rolloutPollMs: number;
  shutdownTimeout: number;
  emulator?: boolean;
  /** commander's `--no-ui`: false when given. */
  ui: boolean;
}

function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be an integer ≥ 0.');
  return n;
}

function listenAddress(flag: string): (value: string) => string {
  return (value) => {
    try {
      parseListen(value, flag);
    } catch (err) {
      throw new InvalidArgumentError((err as Error).message);
    }
    return value;
  };
}

/** Registers `run` on the program. */
export const registerRun: CommandRegistrar = (program, io, setExitCode) => {
  const command = program
    .command('run')
    .description('run the reconciler daemon: schedule, file watch, webhooks, health, metrics, status');
  addNotifyOptions(
    addReconcileOptions(addConnectionOptions(addConfigOption(command), { lockTimeout: false })),
  )
    .option(
      '--schedule <cron>',
      'cron expression of the full reconciles, e.g. "*/5 * * * *" (checked before anything starts)',
      DEFAULT_SCHEDULE,
    )
    .option(
      '--listen <host:port>',
      'address of the webhook server (and of health, metrics and status without --metrics-listen)',
      listenAddress('--listen'),
      DEFAULT_LISTEN,
    )
    .option(
      '--metrics-listen <host:port>',
      'serve /healthz, /readyz, /metrics, /status and the status page here instead, apart from the hooks',
      listenAddress('--metrics-listen'),
    )
    .option('--no-ui', 'do not serve the read-only status page at / (the JSON /status stays)')
    .option(
      '--webhook-secret-file <file>',
      'webhook secrets, one per line (rotation); without it /hooks/* answer 404',
    )
    .option('--git-branch <name>', 'branch whose GitHub push events trigger a reconcile', 'main')
    .option(
      '--git-pull',
      'git pull --ff-only before webhook- and schedule-triggered runs (config dir is a git work tree)',
    )
    .option(
      '--debounce-ms <ms>',
      'quiet time after a file change before reconciling',
      nonNegativeInt,
      DEFAULT_DEBOUNCE_MS,
    )
    .option(
      '--settle-ms <ms>',
      'how long changed files must stay unchanged (size, mtime, inode) before a run may apply a plan that deletes anything',
      nonNegativeInt,
      DEFAULT_SETTLE_MS,
    )
    .option(
      '--rollout-poll-ms <ms>',
      "how often a container app's rollout is checked after a write (watched beside the runs, never holding them)",
      positiveInt('--rollout-poll-ms'),
      DEFAULT_ROLLOUT_POLL_MS,
    )
    .option(
      '--shutdown-timeout <seconds>',
      'on SIGTERM, how long the run in flight may take to finish before it is aborted',
      nonNegativeNumber,
      DEFAULT_SHUTDOWN_TIMEOUT_S,
    )
    .option(
      '--emulator',
      'start the embedded API emulator (seeded from <config>/.emulator/seed.yaml) and use it',
    )
    .action(async (flags: RunFlags) => {
      setExitCode(await runDaemon(flags, io));
    });
};

function flush(logger: Logger): Promise<void> {
  return new Promise((resolve) => {
    logger.flush(() => resolve());
  });
}

/** The key for `--emulator`: the configured one if any, else a random one that never leaves the process. */
async function emulatorKey(flags: RunFlags, io: CliIo): Promise<string> {
  return (await configuredAccessKey(flags, io)) ?? randomBytes(24).toString('base64url');
}

async function startEmbeddedEmulator(config: string, key: string, logger: Logger): Promise<Emulator> {
  const seedFile = join(config, EMULATOR_SEED_PATH);
  const seeded = existsSync(seedFile);
  let emulator: Emulator;
  try {
    const seed = seeded ? await loadSeedFile(seedFile) : undefined;
    // No journal: nothing outside the process could read it, and a long demo must not grow.
    emulator = await startEmulator({
      port: 0,
      host: '127.0.0.1',
      accessKey: key,
      journal: false,
      ...(seed === undefined ? {} : { seed }),
    });
  } catch (err) {
    throw new ReconcileError('USAGE', `cannot start the embedded emulator: ${(err as Error).message}`);
  }
  // The URL is how a second terminal plans against the demo: `--base-url URL` with the key
  // this process was given (EDGESYNC_ACCESS_KEY); a generated key is never printed.
  logger.info(
    { event: 'emulator.started', url: emulator.url, seed: seeded ? EMULATOR_SEED_PATH : null },
    `embedded emulator started at ${emulator.url} (plan against it: --base-url ${emulator.url} with this EDGESYNC_ACCESS_KEY)`,
  );
  return emulator;
}

async function runDaemon(flags: RunFlags, io: CliIo): Promise<number> {
  assertSchedule(flags.schedule);
  const logger = commandLogger(flags, io, { level: 'info', stream: 'stdout' });
  const config = configDirFrom(flags.config, io).path;
  const listen = parseListen(flags.listen);
  const metricsListen =
    flags.metricsListen === undefined ? undefined : parseListen(flags.metricsListen, '--metrics-listen');
  const notify = await readNotifySettings(flags, io.cwd, io.env);
  for (const warning of notify.warnings) logger.warn({ event: 'notify.warning', warning }, 'notifications');
  if (flags.emulator === true && flags.baseUrl !== undefined) {
    throw new ReconcileError('USAGE', '--emulator and --base-url cannot be used together');
  }
  const store = stateBackendOf(flags, config, io);
  for (const warning of store.warnings) logger.warn({ event: 'state.warning', warning }, 'state store');
  const key = flags.emulator === true ? await emulatorKey(flags, io) : await accessKey(flags, io);
  const url = flags.emulator === true ? undefined : baseUrl(flags, io);
  const emulator =
    flags.emulator === true
      ? await startEmbeddedEmulator(config, key, logger.child({ component: 'emulator' }))
      : undefined;
  try {
    const daemon = await startDaemon({
      configPath: config,
      state: store.backend,
      ...(store.stateDir === undefined ? {} : { stateDir: store.stateDir }),
      api: { baseUrl: emulator?.url ?? (url as string), accessKey: key, maxRps: maxRps(flags, io) },
      concurrency: flags.concurrency,
      maxChangePercent: flags.maxChangePercent,
      force: flags.force === true,
      driftMode: flags.drift ?? 'correct',
      prune: pruneEnabled(flags, io),
      secrets: secretReaderFrom(flags, io),
      schedule: flags.schedule,
      listen,
      ...(metricsListen === undefined ? {} : { metricsListen }),
      ui: flags.ui,
      ...(flags.webhookSecretFile === undefined
        ? {}
        : { webhookSecretFile: resolve(io.cwd, flags.webhookSecretFile) }),
      gitBranch: flags.gitBranch,
      gitPull: flags.gitPull === true,
      debounceMs: flags.debounceMs,
      settleMs: flags.settleMs,
      rolloutPollMs: flags.rolloutPollMs,
      shutdownTimeoutMs: Math.round(flags.shutdownTimeout * 1000),
      notify,
      logger,
      version: VERSION,
    });
    await waitForAbort(io.signal);
    const reason: unknown = io.signal.reason;
    await daemon.stop(typeof reason === 'string' ? reason : undefined);
  } finally {
    await emulator?.close();
    await flush(logger);
  }
  return 0;
}
