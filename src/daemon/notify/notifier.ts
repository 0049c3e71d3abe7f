/**
 * The notifier: the run loop's observer. It decides each finished run's event (transitions.ts)
 * and queues it to every event target (generic webhooks, Slack), and drives the commit
 * statuses (github-status.ts). Every call returns at once; delivery.ts sends in the background.
 */
import type { Logger } from '../../log.js';
import { createDelivery, type Delivery, type DeliveryResult } from './delivery.js';
import { createCommitStatuses } from './github-status.js';
import type { RunObserver } from './run-summary.js';
import type { NotifySettings } from './settings.js';
import { type EventTarget, slackTarget, webhookTarget } from './targets.js';
import { createTransitionTracker } from './transitions.js';

export interface NotifierOptions {
  readonly settings: NotifySettings;
  /** The config path as configured (for the `origin` remote of commit statuses). */
  readonly configPath: string;
  readonly version: string;
  /** `component: notify`. */
  readonly logger: Logger;
  /** `edgesync_notifications_total{target,result}`. */
  readonly count: (target: string, result: DeliveryResult) => void;
}

/** A running notifier. */
export interface Notifier extends RunObserver {
  /** The targets, as logged at start-up (labels only). */
  readonly targets: readonly string[];
  /** Lets queued deliveries finish for up to `timeoutMs`, then aborts them. */
  close(timeoutMs: number): Promise<void>;
}

/** A notifier for the configured targets; undefined when none is configured. */
export function createNotifier(options: NotifierOptions): Notifier | undefined {
  const { settings, logger } = options;
  const userAgent = `edgesync/${options.version}`;
  const targets: EventTarget[] = [
    ...settings.webhooks.map((url) => webhookTarget(url, settings.webhookSecret, userAgent)),
    ...(settings.slackUrl === undefined ? [] : [slackTarget(settings.slackUrl, userAgent)]),
  ];
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
  const tracker = createTransitionTracker({ repeatMs: settings.repeatMs });
  /** A notification is never worth a failed reconcile: a bug here is logged, not thrown into the run loop. */
  const guarded = (fn: () => void): void => {
    try {
      fn();
    } catch (err) {
      logger.error({ event: 'notify.error', error: (err as Error).message }, 'notification not queued');
    }
  };

  return {
    targets: [
      ...targets.map((t) => `${t.info.name} ${t.info.label}`),
      ...(settings.github === undefined ? [] : [`github ${settings.github.apiUrl.origin}`]),
    ],
    applyStarting(run) {
      guarded(() => statuses?.applyStarting(run));
    },
    runFinished(summary) {
      guarded(() => {
        statuses?.runFinished(summary);
        const event = tracker.next(summary, Date.now());
        if (event === undefined) return;
        logger.info(
          {
            event: 'notify.event',
            notification: event.event,
            revision: event.revision,
            targets: targets.length,
          },
          'notification queued',
        );
        for (const target of targets) delivery.send(target.info, target.requestFor(event));
      });
    },
    close: (timeoutMs) => delivery.close(timeoutMs),
  };
}
