/**
 * Damping of flapping: events reach the targets at most once per `minIntervalMs`. An event
 * that comes sooner is held; a later one replaces it (the latest state wins, and says how
 * many it replaced in `superseded`); the held one goes out when the interval ends, so the
 * final state is always told. At shutdown the held event is sent at once.
 *
 * A config toggled invalid/valid 30 times in 21 s makes 60 transitions; with the default
 * minute it makes two notifications: the first failure, and a minute later the state it
 * ended in. Only events are damped: a GitHub commit status describes one commit and is posted
 * when that commit's state changes (github-status.ts).
 */
import type { NotifyEvent } from './transitions.js';

export interface DamperOptions {
  readonly minIntervalMs: number;
  /** Sends an event to every target now. */
  send(event: NotifyEvent): void;
  /** An event held back was replaced by a newer one before it went out. */
  superseded(event: NotifyEvent): void;
  readonly now?: () => number;
}

export interface Damper {
  /** Sends `event` now, or holds it until the interval since the last one sent ends. */
  offer(event: NotifyEvent): 'sent' | 'held';
  /** Sends the held event now (shutdown). */
  flush(): void;
}

export function createDamper(options: DamperOptions): Damper {
  const now = options.now ?? Date.now;
  let lastSentAt = Number.NEGATIVE_INFINITY;
  let held: { event: NotifyEvent; superseded: number; timer: NodeJS.Timeout } | undefined;

  function send(event: NotifyEvent, superseded: number): void {
    lastSentAt = now();
    options.send(superseded === 0 ? event : { ...event, superseded });
  }

  function release(): void {
    if (held === undefined) return;
    const { event, superseded, timer } = held;
    clearTimeout(timer);
    held = undefined;
    send(event, superseded);
  }

  return {
    offer(event) {
      if (held === undefined && now() - lastSentAt >= options.minIntervalMs) {
        send(event, 0);
        return 'sent';
      }
      if (held !== undefined) {
        options.superseded(held.event);
        held = { ...held, event, superseded: held.superseded + 1 };
        return 'held';
      }
      const timer = setTimeout(release, Math.max(0, lastSentAt + options.minIntervalMs - now()));
      held = { event, superseded: 0, timer };
      return 'held';
    },
    flush: release,
  };
}
