/**
 * Outbound delivery of notifications: one queue per target, so a target's messages arrive in
 * the order they were made (a GitHub `pending` before its `success`), each POST retried with
 * backoff on 429, 5xx, timeouts and connection errors (3 attempts in all), then given up. Each
 * attempt has one deadline for all of it, so a receiver that drips its reply holds its queue
 * for at most `attempts × timeoutMs` plus the backoff.
 *
 * `send` only enqueues and returns: delivery never delays or fails a reconcile. Every attempt
 * that ends is counted in `edgesync_notifications_total{target,result}`; a given-up delivery
 * is logged with the target's safe label and an error text scrubbed of the target's secrets.
 *
 * This is not `src/api/`: it is a different peer (the user's receivers), with its own undici
 * Agent, its own short timeouts, and no access key anywhere near it.
 */
import { Agent, request } from 'undici';
import { type BackoffBounds, backoffDelay, retrying } from '../../backoff.js';
import type { Logger } from '../../log.js';

/** Where a notification goes: which kind of target, and what may be said about it in a log. */
export interface TargetInfo {
  /** The metric label: `webhook`, `slack`, `github`. */
  readonly name: string;
  /** Safe for logs: an origin, a repository — never a token or a secret URL path. */
  readonly label: string;
  /** Strings scrubbed from any error text before it is logged (the URL, its path, a token). */
  readonly secrets: readonly string[];
}

/** One POST, ready to send. */
export interface OutboundRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * Result label of one delivery in the metric: `timeout` when its last attempt ran out of time
 * (no reply, or a reply that did not end within the timeout), `failed` for any other failure.
 */
export type DeliveryResult = 'success' | 'failed' | 'timeout' | 'dropped';

export interface DeliveryOptions {
  readonly logger: Logger;
  /** Called once per delivery with its result (the metric). */
  readonly count: (target: string, result: DeliveryResult) => void;
  /** Attempts per delivery, the first included (default 3). */
  readonly attempts?: number;
  /** Backoff between attempts (edgesync's one backoff, `src/backoff.ts`; default 1 s, at most 10 s). */
  readonly backoff?: BackoffBounds;
  /**
   * Time one attempt may take in all, from connecting to the last byte of the reply (default
   * 10 s): a receiver that answers and then drips its body cannot hold its queue longer.
   */
  readonly timeoutMs?: number;
  /** Deliveries waiting per target beyond which new ones are dropped (default 100). */
  readonly maxQueued?: number;
  readonly random?: () => number;
}

/** The delivery queues of one daemon. */
export interface Delivery {
  /** Queues one POST to `target`; returns at once. */
  send(target: TargetInfo, outbound: OutboundRequest): void;
  /** Stops taking deliveries, lets the queued ones finish for up to `timeoutMs`, then aborts them. */
  close(timeoutMs: number): Promise<void>;
}

/** Replaces every occurrence of each secret (longest first) with `[redacted]`. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of [...secrets].filter((s) => s.length > 0).sort((a, b) => b.length - a.length)) {
    out = out.split(secret).join('[redacted]');
  }
  return out;
}

/** A reply that says "try again later"; anything else that is not 2xx is final. */
function retryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** How one attempt ended. */
type Attempt =
  | { readonly delivered: true }
  | {
      readonly delivered: false;
      readonly error: string;
      readonly retry: boolean;
      /** Ran out of time: before the status line (`reply`), or while the body came (`body`, after a 2xx). */
      readonly timedOut?: 'reply' | 'body';
    };

/** How a delivery ended, for the metric and the log. */
interface Ended {
  readonly result: DeliveryResult;
  readonly attempts: number;
  readonly error: string;
}

/** Creates the delivery queues and their undici Agent. */
export function createDelivery(options: DeliveryOptions): Delivery {
  const attempts = options.attempts ?? 3;
  const backoff = options.backoff ?? { baseMs: 1000, maxMs: 10_000 };
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxQueued = options.maxQueued ?? 100;
  const random = options.random ?? Math.random;
  const agent = new Agent({ connections: 2, connectTimeout: timeoutMs, keepAliveTimeout: 4_000 });
  const closing = new AbortController();
  /** Per target label: the tail of its queue, and how many deliveries wait in it. */
  const queues = new Map<string, { tail: Promise<void>; waiting: number }>();
  let closed = false;
  let closeDone: Promise<void> | undefined;

  /**
   * One attempt under its own deadline. The deadline and the daemon's shutdown each end it
   * through one controller, joined by hand rather than with `AbortSignal.any`: Node 20 keeps
   * every signal derived from the shutdown signal alive as long as that signal, the daemon's life.
   */
  async function attempt(outbound: OutboundRequest): Promise<Attempt> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`no complete reply within ${timeoutMs} ms`));
    }, timeoutMs);
    const onClose = () => controller.abort(new Error('the daemon is shutting down'));
    closing.signal.addEventListener('abort', onClose, { once: true });
    let status: number | undefined;
    try {
      const reply = await request(outbound.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...outbound.headers },
        body: outbound.body,
        dispatcher: agent,
        // The deadline covers the whole attempt; undici's own timeouts restart with each chunk.
        headersTimeout: 0,
        bodyTimeout: 0,
        signal: controller.signal,
      });
      status = reply.statusCode;
      // Receivers' bodies are never read into a log: they may echo what we sent. Read to the
      // end all the same (within the deadline), so the connection can carry the next one.
      await reply.body.dump({ signal: controller.signal, limit: 64 * 1024 });
      if (controller.signal.aborted) throw controller.signal.reason;
      if (status >= 200 && status < 300) return { delivered: true };
      return { delivered: false, error: `HTTP ${status}`, retry: retryableStatus(status) };
    } catch (err) {
      const accepted = status !== undefined && status >= 200 && status < 300;
      if (timedOut)
        return {
          delivered: false,
          error: `${status === undefined ? 'no reply' : `HTTP ${status}, then the reply did not end`} within ${timeoutMs} ms`,
          // A receiver that said 2xx has the notification: sending it again would repeat it.
          retry: !accepted,
          timedOut: status === undefined ? 'reply' : 'body',
        };
      const error = err as Error & { code?: string };
      return {
        delivered: false,
        error: `${error.code ?? error.name}: ${error.message}`,
        retry: !closing.signal.aborted && !accepted,
      };
    } finally {
      clearTimeout(timer);
      closing.signal.removeEventListener('abort', onClose);
    }
  }

  async function deliver(target: TargetInfo, outbound: OutboundRequest): Promise<void> {
    const log = { event: 'notify.sent', target: target.name, destination: target.label };
    const ended = (result: DeliveryResult, attempts: number, error: string): Ended => ({
      result,
      attempts,
      error,
    });
    const end = await retrying<Ended>(
      async (n) => {
        const outcome = await attempt(outbound);
        if (outcome.delivered) return { done: ended('success', n, '') };
        const error = scrub(outcome.error, target.secrets);
        if (outcome.timedOut !== undefined)
          options.logger.warn(
            { ...log, event: 'notify.timeout', attempt: n, phase: outcome.timedOut, timeoutMs, error },
            outcome.timedOut === 'reply'
              ? 'notification receiver did not answer in time'
              : 'notification receiver answered but did not finish its reply in time',
          );
        if (!outcome.retry || n >= attempts || closing.signal.aborted)
          return { done: ended(outcome.timedOut === undefined ? 'failed' : 'timeout', n, error) };
        const delayMs = backoffDelay(n, backoff, random);
        options.logger.debug(
          { ...log, event: 'notify.retry', attempt: n, delayMs, error },
          'notification retry',
        );
        return { retryInMs: delayMs };
      },
      {
        signal: closing.signal,
        interrupted: (n) => ended('failed', n, 'the daemon shut down before the retry'),
      },
    ).catch((interrupted: Ended) => interrupted);
    options.count(target.name, end.result);
    if (end.result === 'success') {
      options.logger.debug({ ...log, attempts: end.attempts }, 'notification delivered');
      return;
    }
    options.logger.warn(
      { ...log, event: 'notify.failed', result: end.result, attempts: end.attempts, error: end.error },
      'notification not delivered',
    );
  }

  return {
    send(target, outbound) {
      if (closed) return;
      const queue = queues.get(target.label) ?? { tail: Promise.resolve(), waiting: 0 };
      queues.set(target.label, queue);
      if (queue.waiting >= maxQueued) {
        options.count(target.name, 'dropped');
        options.logger.warn(
          { event: 'notify.dropped', target: target.name, destination: target.label, queued: queue.waiting },
          'notification dropped: the target is not keeping up',
        );
        return;
      }
      queue.waiting += 1;
      queue.tail = queue.tail
        .then(() => deliver(target, outbound))
        // deliver() handles its own failures; this only keeps one bug from stalling the queue.
        .catch(() => undefined)
        .finally(() => {
          queue.waiting -= 1;
        });
    },
    close(timeoutMs) {
      // Once: a second close (a shutdown after a failed start) waits for the first.
      closeDone ??= (async () => {
        closed = true;
        const drained = Promise.all([...queues.values()].map((q) => q.tail));
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<void>((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
        });
        await Promise.race([drained, timedOut]);
        clearTimeout(timer);
        closing.abort();
        await drained;
        await agent.close();
      })();
      return closeDone;
    },
  };
}
