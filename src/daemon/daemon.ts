/**
 * `startDaemon`: wires the run loop to its triggers (cron, file watcher, webhooks) and to the
 * HTTP server, and takes them down in order on `stop()`.
 *
 * Start-up order: the state store prepared (reachable, migrated) → watcher (ready, so no edit
 * is missed) → HTTP server(s) → schedule → leadership (leadership.ts): the lease taken, or
 * standing by → `daemon.started`. Each term of leadership reads the state again under its
 * lease, starts a run loop (controller.ts) and a full reconcile; triggers reach the leader's
 * run loop only. Shutdown order: hooks answer 503 → schedule, watcher stop → the run in flight
 * finishes (bounded, then aborted) → the lease is released → servers close → API client closes.
 */
import { connectionsFor, createApiClient } from '../api/client.js';
import type { RetryOptions } from '../api/types.js';
import type { BackoffBounds } from '../backoff.js';
import { createDesiredStateLoader, type LoaderOptions } from '../config/loader.js';
import { openStateStore, type StateStore } from '../engine/state.js';
import type { Logger } from '../log.js';
import type { Lease, RelayedTrigger, StateBackend } from '../state/backend.js';
import { type Controller, createController, type ReconcileSettings } from './controller.js';
import { type DaemonHttpServer, startHttpServer } from './http-server.js';
import { type Leadership, type LeaderTerm, startLeadership } from './leadership.js';
import { createDaemonMetrics } from './metrics.js';
import { createNotifier, notifyTargetLabels } from './notify/notifier.js';
import type { NotifySettings } from './notify/settings.js';
import { assertSchedule, type Schedule, scheduleIntervalMs, startSchedule } from './scheduler.js';
import { createStatusTracker, type StatusDocument } from './status.js';
import { createStatusBody } from './status-body.js';
import { loadStatusPage } from './status-page.js';
import { type ConfigWatcher, watchConfig } from './watcher.js';
import { createSecretSource, type SecretSource } from './webhook.js';

/** Smallest retry delay after a retryable failure (design: "back off exponentially"). */
const DEFAULT_BACKOFF_BASE_MS = 2000;
/** At shutdown, how long queued notifications may take to go out (the last run's among them). */
const NOTIFY_DRAIN_MS = 5000;
/** The state store's record of what the notifications' transitions remember across restarts. */
const NOTIFY_RECORD = 'notify';
/** The state store's record of the unclaimed objects already reported (unclaimed.ts). */
const UNCLAIMED_RECORD = 'unclaimed';

/**
 * Default of `--settle-ms`: how long the config files must have stayed the same before a run may
 * apply a plan that deletes anything. Longer than the pauses of editors and scripts that write a
 * file in steps, and than a file briefly absent while a tool replaces it: one second was not
 * (a writer that paused 1.5 s, a file gone for 1.5 s, each deleted a live object). Deletions are
 * rare and can wait; edits that delete nothing wait only for the debounce.
 */
export const DEFAULT_SETTLE_MS = 5000;

/** Everything `edgesync run` decides from its flags. */
export interface DaemonOptions extends ReconcileSettings {
  /** Absolute config path as configured; may be a symlink (git-sync) or not exist yet. */
  readonly configPath: string;
  /** The state store (docs/state.md). */
  readonly state: StateBackend;
  /** The file store's directory: the watcher ignores it. */
  readonly stateDir?: string;
  readonly api: {
    readonly baseUrl: string;
    readonly accessKey: string;
    readonly retry?: RetryOptions;
    readonly timeoutMs?: number;
    /** The user's cap on requests a second (`--max-rps`); the client also learns a pace from 429s. */
    readonly maxRps?: number | undefined;
  };
  /** node-cron expression of the full reconciles. */
  readonly schedule: string;
  readonly listen: { readonly host: string; readonly port: number };
  /** Where /healthz, /readyz, /metrics and /status listen; absent: on `listen` with the hooks. */
  readonly metricsListen?: { readonly host: string; readonly port: number };
  /** Serve the status page at `/` with the operational routes (`--no-ui`: false). Default true. */
  readonly ui?: boolean;
  /** One secret per line; absent = the hook routes answer 404. */
  readonly webhookSecretFile?: string;
  readonly gitBranch: string;
  readonly gitPull: boolean;
  readonly debounceMs: number;
  /** How long changed files must stay unchanged before a run may delete anything (`--settle-ms`). */
  readonly settleMs?: number;
  readonly shutdownTimeoutMs: number;
  /** Retry delays; default 2 s up to the schedule's interval. */
  readonly backoff?: Partial<BackoffBounds>;
  /** The daemon's root logger (JSON lines); components get children. */
  readonly logger: Logger;
  readonly version: string;
  readonly loader?: LoaderOptions;
  readonly random?: () => number;
  /** Notification targets (docs/design.md, Notifications); none when absent. */
  readonly notify?: NotifySettings;
}

/** A running daemon. */
export interface Daemon {
  /** Base URL of the hooks' HTTP server as bound. */
  readonly url: string;
  /** Base URL of the operational routes (`url` unless `--metrics-listen`). */
  readonly metricsUrl: string;
  status(): StatusDocument;
  /** Resolves when no run is in progress or queued. */
  idle(): Promise<void>;
  /** Graceful shutdown (see the module comment); `signal` is logged. Resolves when everything is closed. */
  stop(signal?: string): Promise<void>;
}

/** A hook's trigger as the store can relay it: its scalar fields only (no request body). */
function relayable(details: Readonly<Record<string, unknown>> | undefined): RelayedTrigger {
  const out: Record<string, string | number | boolean | null> = {};
  for (const [key, value] of Object.entries(details ?? {})) {
    if (typeof value === 'string') out[key] = value.slice(0, 200);
    else if (typeof value === 'number' || typeof value === 'boolean' || value === null) out[key] = value;
  }
  return out;
}

/** Starts the daemon; throws ReconcileError USAGE for bad settings (schedule, secret file, address). */
export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const { logger } = options;
  const log = logger.child({ component: 'daemon' });
  assertSchedule(options.schedule);
  const secrets: SecretSource | undefined =
    options.webhookSecretFile === undefined
      ? undefined
      : await createSecretSource(options.webhookSecretFile, logger.child({ component: 'http' }));
  const metrics = createDaemonMetrics({ version: options.version });
  const status = createStatusTracker();
  /** The term this daemon leads, if it leads: its run loop and its state. */
  let term: { controller: Controller; state: StateStore } | undefined;
  /** The run records shown in /status: the term's, or the last term's while standing by. */
  let shownState: StateStore | undefined;
  const api = createApiClient({
    baseUrl: options.api.baseUrl,
    accessKey: options.api.accessKey,
    logger, // the client adds component "api" itself
    connections: connectionsFor(options.concurrency),
    onRequest: (event) => {
      metrics.observeApiRequest(event);
      // The API's Retry-After sets the floor of the next retry.
      if (event.retryAfterMs !== undefined) term?.controller.noteRetryAfter(event.retryAfterMs);
    },
    ...(options.api.retry === undefined ? {} : { retry: options.api.retry }),
    ...(options.api.timeoutMs === undefined ? {} : { timeoutMs: options.api.timeoutMs }),
    ...(options.api.maxRps === undefined ? {} : { rateLimitPerSecond: options.api.maxRps }),
  });
  metrics.trackApiPacing(() => api.pacing());

  let watcher: ConfigWatcher | undefined;
  let server: DaemonHttpServer | undefined;
  let operations: DaemonHttpServer | undefined;
  let schedule: Schedule | undefined;
  let leadership: Leadership | undefined;
  let stopping = false;
  let abortedAtStop = false;
  const backend = options.state;
  /**
   * Triggers go to the leader's run loop. A standby runs nothing: its schedule and file events
   * are the leader's own too, but a webhook reached only this pod (a Service picks any ready
   * one), so it is passed to the leader through the store where the store can (Postgres).
   */
  const request = (
    reason: 'schedule' | 'file-change' | 'webhook',
    details?: Readonly<Record<string, unknown>>,
  ): void => {
    if (term !== undefined) {
      term.controller.request(reason, details);
      return;
    }
    if (reason === 'webhook' && backend.relay !== undefined) {
      const trigger = relayable(details);
      backend.relay.send(trigger).then(
        () => log.info({ ...trigger, event: 'trigger.relayed' }, 'standing by: webhook passed to the leader'),
        (err: unknown) =>
          log.warn(
            { event: 'trigger.relay.failed', error: (err as Error).message },
            'standing by: the webhook could not be passed to the leader',
          ),
      );
      return;
    }
    log.debug({ event: 'trigger.ignored', reason, role: 'standby' }, 'standing by: no run');
  };

  /** One term of leadership: the state read again under the lease, a run loop, a full reconcile. */
  async function lead(lease: Lease, fence: AbortSignal): Promise<LeaderTerm> {
    // Leased before the state is read: a corrupt document is set aside only by its one writer.
    const state = await openStateStore(backend, { lease });
    if (state.warning !== undefined)
      log.warn({ event: 'state.warning', warning: state.warning }, 'state store');
    const notifier =
      options.notify === undefined
        ? undefined
        : createNotifier({
            settings: options.notify,
            configPath: options.configPath,
            version: options.version,
            logger: logger.child({ component: 'notify' }),
            count: (target, result) => metrics.countNotification(target, result),
            // The memory the last leader left: read again by every term.
            memory: {
              initial: await backend.readRecord(NOTIFY_RECORD).catch(() => undefined),
              save: (text) => backend.writeRecord(NOTIFY_RECORD, text, lease),
            },
          });
    const controller = createController({
      configPath: options.configPath,
      gitPull: options.gitPull,
      api,
      state,
      lease,
      fence,
      // A loader of its own: what an earlier term loaded says nothing of what this one applied.
      loader: createDesiredStateLoader(options.loader),
      settings: options,
      backoff: {
        baseMs: options.backoff?.baseMs ?? DEFAULT_BACKOFF_BASE_MS,
        maxMs: options.backoff?.maxMs ?? scheduleIntervalMs(options.schedule),
      },
      status,
      metrics,
      logger: log,
      audit: logger.child({ component: 'audit' }),
      random: options.random,
      settled: () => watcher?.settled() ?? Promise.resolve(),
      quietForMs: () => watcher?.quietForMs() ?? Number.POSITIVE_INFINITY,
      settleMs: options.settleMs ?? DEFAULT_SETTLE_MS,
      ...(notifier === undefined ? {} : { observer: notifier }),
      unclaimedMemory: {
        initial: await backend.readRecord(UNCLAIMED_RECORD).catch(() => undefined),
        save: (text) => backend.writeRecord(UNCLAIMED_RECORD, text, lease),
      },
    });
    term = { controller, state };
    shownState = state;
    // Webhooks that reached a standby: the leader runs them as its own.
    await backend.relay
      ?.listen(lease, (trigger) => controller.request('webhook', { ...trigger, relayed: true }))
      .catch((err: unknown) =>
        log.warn(
          { event: 'trigger.relay.failed', error: (err as Error).message },
          'webhooks that reach a standby will not reach this leader',
        ),
      );
    controller.request('startup');
    return {
      async end(timeoutMs) {
        term = undefined;
        const { aborted } = await controller.stop(timeoutMs);
        abortedAtStop ||= aborted;
        await notifier?.close(Math.min(NOTIFY_DRAIN_MS, options.shutdownTimeoutMs));
      },
    };
  }

  try {
    // A store that cannot be reached or migrated at start is an error now, not a standby.
    await backend.prepare();
    watcher = await watchConfig({
      configPath: options.configPath,
      ...(options.stateDir === undefined ? {} : { stateDir: options.stateDir }),
      debounceMs: options.debounceMs,
      maxStableMs: options.settleMs ?? DEFAULT_SETTLE_MS,
      logger: logger.child({ component: 'watcher' }),
      onChange: (info) => request('file-change', info),
    });
    const page = options.ui === false ? undefined : loadStatusPage();
    const serverOptions = {
      logger: logger.child({ component: 'http' }),
      metrics,
      secrets,
      branch: options.gitBranch,
      stopping: () => stopping,
      ready: () => status.ready,
      degraded: () => status.degraded,
      statusBody: createStatusBody(status, () => shownState?.runs() ?? []),
      ...(page === undefined ? {} : { page }),
      onHook: (trigger: Readonly<Record<string, unknown>>) => request('webhook', trigger),
    };
    const separate = options.metricsListen !== undefined;
    server = await startHttpServer({
      ...serverOptions,
      ...options.listen,
      serves: { hooks: true, operations: !separate },
    });
    if (options.metricsListen !== undefined) {
      operations = await startHttpServer({
        ...serverOptions,
        ...options.metricsListen,
        serves: { hooks: false, operations: true },
      });
    }
    // Warned only once the servers listen: a daemon that cannot start says one thing, why.
    if (page?.kind === 'missing') {
      log.warn({ event: 'ui.missing', dir: page.dir }, 'the status page is not built: run npm run build');
    }
    schedule = startSchedule(options.schedule, () => request('schedule'), log);
    metrics.setConfigValid(true);
    leadership = startLeadership({ backend, logger: log, status, metrics, lead });
    await leadership.started;
    log.info(
      {
        event: 'daemon.started',
        version: options.version,
        listen: server.url,
        metricsListen: (operations ?? server).url,
        // Where to open the status page; null with --no-ui.
        statusPage: page === undefined ? null : `${(operations ?? server).url}/`,
        config: options.configPath,
        state: backend.location,
        role: leadership.role,
        schedule: options.schedule,
        webhooks: secrets !== undefined,
        gitBranch: options.gitBranch,
        gitPull: options.gitPull,
        drift: options.driftMode,
        notify: options.notify === undefined ? [] : notifyTargetLabels(options.notify),
      },
      'daemon started',
    );

    const running = { watcher, server, operations, schedule, leadership };
    let stopped: Promise<void> | undefined;
    return {
      url: server.url,
      metricsUrl: (operations ?? server).url,
      status: () => status.document(shownState?.runs() ?? []),
      idle: () => term?.controller.idle() ?? Promise.resolve(),
      stop(signal?: string) {
        stopped ??= (async () => {
          stopping = true;
          log.info(
            {
              event: 'daemon.stopping',
              timeoutMs: options.shutdownTimeoutMs,
              ...(signal === undefined ? {} : { signal }),
            },
            'stopping: triggers off, waiting for the run in flight',
          );
          await running.schedule.stop();
          await running.watcher.close();
          // The leader's run in flight finishes (bounded), then the lease is released.
          await running.leadership.stop(options.shutdownTimeoutMs);
          await Promise.all([running.server.close(), running.operations?.close()]);
          await api.close();
          await backend.close();
          log.info({ event: 'daemon.stopped', aborted: abortedAtStop }, 'daemon stopped');
        })();
        return stopped;
      },
    };
  } catch (err) {
    stopping = true;
    await schedule?.stop();
    await watcher?.close();
    await leadership?.stop(0);
    await server?.close();
    await operations?.close();
    await api.close();
    await backend.close();
    throw err;
  }
}
