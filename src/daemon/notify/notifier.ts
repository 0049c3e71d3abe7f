/**
 * The notifier: the run loop's observer. It decides each finished run's event (transitions.ts),
 * damps flapping (damper.ts: at most one event per `--notify-min-interval`, the latest winning)
 * and queues it to every event target (generic webhooks, Slack), and drives the commit
 * statuses (github-status.ts). Every call returns at once; delivery.ts sends in the background.
 * With a `memory`, what the transitions remember is kept in the state store across restarts.
 */
import type { Logger } from '../../log.js';
import { type RecordMemory, recordWriter } from '../remembered-record.js';
import { createDamper } from './damper.js';
import { createDelivery, type Delivery, type DeliveryResult } from './delivery.js';
import { createCommitStatuses } from './github-status.js';
import type { RunObserver } from './run-summary.js';
import type { NotifySettings } from './settings.js';
import { type EventTarget, slackTarget, webhookTarget } from './targets.js';
import { createTransitionTracker, TransitionState } from './transitions.js';

export interface NotifierOptions {
  readonly settings: NotifySettings;
  /** The config path as configured (for the `origin` remote of commit statuses). */
  readonly configPath: string;
  readonly version: string;
  /** `component: notify`. */
  readonly logger: Logger;
  /** `edgesync_notifications_total{target,result}`; `superseded`: held back and replaced by a newer event. */
  readonly count: (target: string, result: DeliveryResult | 'superseded') => void;
  /** What the transitions remember, kept by the state store (its `notify` record); none: in memory. */
  readonly memory?: RecordMemory;
}

/** A running notifier. */
export interface Notifier extends RunObserver {
  /** The targets, as logged at start-up (labels only). */
  readonly targets: readonly string[];
  /** Lets queued deliveries finish for up to `timeoutMs`, then aborts them. */
  close(timeoutMs: number): Promise<void>;
}

function eventTargets(settings: NotifySettings, userAgent: string): EventTarget[] {
  return [
    ...settings.webhooks.map((url) => webhookTarget(url, settings.webhookSecret, userAgent)),
    ...(settings.slackUrl === undefined ? [] : [slackTarget(settings.slackUrl, userAgent)]),
  ];
}

/** The configured targets as `daemon.started` logs them (labels only, never a secret). */
export function notifyTargetLabels(settings: NotifySettings): string[] {
  return [
    ...eventTargets(settings, '').map((t) => `${t.info.name} ${t.info.label}`),
    ...(settings.github === undefined ? [] : [`github ${settings.github.apiUrl.origin}`]),
  ];
}

/** A notifier for the configured targets; undefined when none is configured. */
export function createNotifier(options: NotifierOptions): Notifier | undefined {
  const { settings, logger } = options;
  const userAgent = `edgesync/${options.version}`;
  const targets = eventTargets(settings, userAgent);
  if (targets.length === 0 && settings.github === undefined) return undefined;
  const delivery: Delivery = createDelivery({ logger, count: options.count });
  const statuses =
    settings.github === undefined
      ? undefined
      : createCommitStatuses({
          ...settings.github,
          configPath: options.configPath,
          userAgent,
          delivery,
          logger,
        });
  const initial = options.memory === undefined ? undefined : readTransitions(options.memory.initial, logger);
  const tracker = createTransitionTracker({
    repeatMs: settings.repeatMs,
    ...(initial === undefined ? {} : { initial }),
  });
  const remembered =
    options.memory === undefined
      ? undefined
      : recordWriter(options.memory, logger, 'notify.state-save-failed');
  const damper = createDamper({
    minIntervalMs: settings.minIntervalMs,
    send(event) {
      logger.info(
        {
          event: 'notify.event',
          notification: event.event,
          revision: event.revision,
          targets: targets.length,
          ...(event.superseded === undefined ? {} : { superseded: event.superseded }),
        },
        'notification queued',
      );
      for (const target of targets) delivery.send(target.info, target.requestFor(event));
    },
    superseded(event) {
      for (const target of targets) options.count(target.info.name, 'superseded');
      logger.debug(
        { event: 'notify.superseded', notification: event.event, revision: event.revision },
        'held notification replaced by a newer one',
      );
    },
  });
  /** A notification is never worth a failed reconcile: a bug here is logged, not thrown into the run loop. */
  const guarded = (fn: () => void): void => {
    try {
      fn();
    } catch (err) {
      logger.error({ event: 'notify.error', error: (err as Error).message }, 'notification not queued');
    }
  };

  return {
    targets: notifyTargetLabels(settings),
    applyStarting(run) {
      guarded(() => statuses?.applyStarting(run));
    },
    runFinished(summary) {
      guarded(() => {
        statuses?.runFinished(summary);
        const event = tracker.next(summary, Date.now());
        remembered?.save(tracker.state());
        if (event === undefined || targets.length === 0) return;
        if (damper.offer(event) === 'held')
          logger.info(
            {
              event: 'notify.held',
              notification: event.event,
              revision: event.revision,
              minIntervalMs: settings.minIntervalMs,
            },
            'notification held: the targets were told something less than --notify-min-interval ago',
          );
      });
    },
    async close(timeoutMs) {
      // The state the daemon ends in is told, even inside the interval.
      guarded(() => damper.flush());
      await Promise.all([delivery.close(timeoutMs), remembered?.flush()]);
    },
  };
}

/** The transitions a previous daemon remembered; none (a healthy start) when absent or unreadable. */
function readTransitions(text: string | undefined, logger: Logger): TransitionState | undefined {
  if (text === undefined) return undefined;
  try {
    return TransitionState.parse(JSON.parse(text));
  } catch {
    logger.warn({ event: 'notify.state-unreadable', reason: 'not a notify state file' }, 'starting healthy');
    return undefined;
  }
}
