/**
 * Outbound delivery of notifications: one queue per target, so a target's messages arrive in
 * the order they were made (a GitHub `pending` before its `success`), each POST retried with
 * backoff on 429, 5xx, timeouts and connection errors (3 attempts in all), then given up.
 *
 * `send` only enqueues and returns: delivery never delays or fails a reconcile. Every attempt
 * that ends is counted in `edgesync_notifications_total{target,result}`; a given-up delivery
 * is logged with the target's safe label and an error text scrubbed of the target's secrets.
 *
 * This is not `src/api/`: it is a different peer (the user's receivers), with its own undici
 * Agent, its own short timeouts, and no access key anywhere near it.
 */
import { Agent, request } from 'undici';
import type { Logger } from '../../log.js';
import { backoffDelay } from '../backoff.js';

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

/** Result label of one delivery in the metric. */
export type DeliveryResult = 'success' | 'failed' | 'dropped';

export interface DeliveryOptions {
  readonly logger: Logger;
  /** Called once per delivery with its result (the metric). */
  readonly count: (target: string, result: DeliveryResult) => void;
  /** Attempts per delivery, the first included (default 3). */
  readonly attempts?: number;
  /** Backoff between attempts (default 1 s, doubling, at most 10 s, with jitter). */
  readonly backoff?: { readonly baseMs: number; readonly maxMs: number };
  /** Time for the receiver to answer one attempt (default 10 s). */
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

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Creates the delivery queues and their undici Agent. */
export function createDelivery(options: DeliveryOptions): Delivery {
  const attempts = options.attempts ?? 3;
  const backoff = options.backoff ?? { baseMs: 1000, maxMs: 10_000 };
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxQueued = options.maxQueued ?? 100;
  const random = options.random ?? Math.random;
  const agent = new Agent({ connections: 2, connectTimeout: timeoutMs, keepAliveTimeout: 4_000 });
  const abort = new AbortController();
  /** Per target label: the tail of its queue, and how many deliveries wait in it. */
  const queues = new Map<string, { tail: Promise<void>; waiting: number }>();
  let closed = false;

  /** One attempt: undefined when delivered, else what went wrong and whether to try again. */
  async function attempt(outbound: OutboundRequest): Promise<{ error: string; retry: boolean } | undefined> {
    try {
      const reply = await request(outbound.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...outbound.headers },
        body: outbound.body,
        dispatcher: agent,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: abort.signal,
      });
      // Receivers' bodies are never read into a log: they may echo what we sent.
      await reply.body.dump();
      if (reply.statusCode >= 200 && reply.statusCode < 300) return undefined;
      return { error: `HTTP ${reply.statusCode}`, retry: retryableStatus(reply.statusCode) };
    } catch (err) {
      const error = err as Error & { code?: string };
      return { error: `${error.code ?? error.name}: ${error.message}`, retry: !abort.signal.aborted };
    }
  }

  async function deliver(target: TargetInfo, outbound: OutboundRequest): Promise<void> {
    const log = { event: 'notify.sent', target: target.name, destination: target.label };
    for (let n = 1; ; n += 1) {
      const failure = await attempt(outbound);
      if (failure === undefined) {
        options.count(target.name, 'success');
        options.logger.debug({ ...log, attempts: n }, 'notification delivered');
        return;
      }
      const error = scrub(failure.error, target.secrets);
      if (!failure.retry || n >= attempts || abort.signal.aborted) {
        options.count(target.name, 'failed');
        options.logger.warn(
          { ...log, event: 'notify.failed', attempts: n, error },
          'notification not delivered',
        );
        return;
      }
      const delayMs = backoffDelay(n, backoff, random);
      options.logger.debug(
        { ...log, event: 'notify.retry', attempt: n, delayMs, error },
        'notification retry',
      );
      await abortableSleep(delayMs, abort.signal);
    }
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
    async close(timeoutMs) {
      closed = true;
      const drained = Promise.all([...queues.values()].map((q) => q.tail));
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      });
      await Promise.race([drained, timedOut]);
      clearTimeout(timer);
      abort.abort();
      await drained;
      await agent.close();
    },
  };
}
