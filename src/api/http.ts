/**
 * The one place edgesync speaks HTTP to the API: one request through undici's `dispatch` on the
 * client's pooled dispatcher, with the auth header and a deadline per attempt, paced
 * (`pacer.ts`), retried as `failures.ts` decides, logged and reported per exchange. It returns
 * the final reply (any 1xx–4xx status except 429) with its body read; what the body means is
 * `client.ts`'s business. Failures it decides itself (429/5xx/transport after the retries,
 * ambiguous writes, aborts) are thrown as ApiError.
 */
import { setMaxListeners } from 'node:events';
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { backoffDelay, retrying } from '../backoff.js';
import { stringifyRevealing } from '../domain/sensitive.js';
import type { Logger } from '../log.js';
import { abortError, classifyFailure, judge, type Outcome, type VerdictPolicy } from './failures.js';
import { type ApiRequest, OPERATIONS } from './operations.js';
import type { Pacer } from './pacer.js';
import { parseRetryAfter } from './retry.js';
import type { RequestEvent } from './types.js';

/** Resolved, validated settings of the transport (defaults already applied). */
export interface HttpSettings {
  /** `scheme://host:port` of the API. */
  origin: string;
  /** Path prefix of the base URL without trailing slash (`''` or e.g. `/api`). */
  pathPrefix: string;
  accessKey: string;
  timeoutMs: number;
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  maxRetryAfterMs: number;
  pacer: Pacer;
  dispatcher: Dispatcher;
  logger: Logger;
  onRequest: ((event: RequestEvent) => void) | undefined;
  random: () => number;
}

/** A reply whose status the transport does not retry, with its body read as text. */
export interface HttpReply {
  status: number;
  text: string;
  /** HTTP exchanges it took, this one included. */
  attempts: number;
}

/** Sends ApiRequests; see the module comment for what it returns and throws. */
export interface HttpTransport {
  send(request: ApiRequest, signal?: AbortSignal, beforeSend?: () => void): Promise<HttpReply>;
}

/** Builds the transport over the given (already validated) settings. */
export function createHttpTransport(settings: HttpSettings): HttpTransport {
  const { pacer } = settings;
  const log = settings.logger.child({ component: 'api' });
  const baseHeaders: Record<string, string> = {
    AccessKey: settings.accessKey,
    accept: 'application/json',
    'user-agent': 'edgesync',
  };
  const jsonHeaders: Record<string, string> = { ...baseHeaders, 'content-type': 'application/json' };
  const policy: VerdictPolicy = {
    maxAttempts: settings.maxAttempts,
    maxRetryAfterMs: settings.maxRetryAfterMs,
    secret: settings.accessKey,
    backoff: (attempt) =>
      backoffDelay(attempt, { baseMs: settings.baseDelayMs, maxMs: settings.maxDelayMs }, settings.random),
  };

  async function send(
    request: ApiRequest,
    signal?: AbortSignal,
    beforeSend?: () => void,
  ): Promise<HttpReply> {
    // Every exchange and retry wait in flight listens to the caller's signal until it settles:
    // as many as the caller's lanes, which may pass Node's warning threshold of ten.
    if (signal !== undefined) setMaxListeners(0, signal);
    return retrying<HttpReply>(
      async (attempt) => {
        const notSent = (cause: unknown) => abortError(request, attempt - 1, { maybeSent: false, cause });
        if (signal?.aborted) throw notSent(signal.reason);
        const wait = pacer.slot(signal);
        if (wait !== undefined) {
          await wait.catch(() => {
            throw notSent(signal?.reason);
          });
          // Again after the wait: an abort that landed while it resolved would start an exchange
          // whose signal is already aborted.
          if (signal?.aborted) throw notSent(signal.reason);
        }
        beforeSend?.();

        const sentAt = performance.now();
        const outcome = await exchange(request, signal);
        const durationMs = Math.round(performance.now() - sentAt);
        if (outcome.kind === 'reply') pacer.observe(outcome.status, sentAt);
        report(request, outcome, attempt, durationMs);

        const verdict = judge(request, outcome, attempt, policy);
        if (verdict.kind === 'reply')
          return { done: { status: verdict.status, text: verdict.text, attempts: attempt } };
        if (verdict.kind === 'fail') throw verdict.error;
        const { delayMs, why } = verdict;
        const at = { operation: request.operation, method: request.method, path: request.path };
        log.debug({ ...at, attempt, delayMs, reason: why }, 'api retry');
        return { retryInMs: delayMs };
      },
      {
        ...(signal === undefined ? {} : { signal }),
        interrupted: (attempt) => abortError(request, attempt, { maybeSent: false, cause: signal?.reason }),
      },
    );
  }

  /**
   * One HTTP exchange through `dispatcher.dispatch`, the body collected as text. The attempt's
   * deadline (`AbortSignal.timeout`) and the caller's signal each abort the request through
   * undici's controller. A request undici has not started yet (its connection is still
   * opening, which undici cannot abort, and which hangs for good with a connector that never
   * answers) is settled at once, and aborted by undici when it starts. Whether it had started
   * decides whether the server may have it (`failures.ts`).
   *
   * The two signals are watched apart rather than joined with `AbortSignal.any`: Node 20 keeps
   * a reference in a source signal to every signal derived from it until the source itself is
   * collected, and a daemon passes one signal for its whole life, so each request would leak.
   */
  function exchange(request: ApiRequest, callerSignal: AbortSignal | undefined): Promise<Outcome> {
    // Serialised first: a body that cannot be (a bug) throws before anything is registered.
    // The one place a container secret (SensitiveValue) is written as its value: the wire.
    const body = request.body === undefined ? null : stringifyRevealing(request.body);
    const deadline = AbortSignal.timeout(settings.timeoutMs);
    return new Promise<Outcome>((resolve, reject) => {
      let controller: Dispatcher.DispatchController | undefined;
      let status: number | undefined;
      let headers: IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      let settled = false;

      let abortedBy: 'deadline' | 'caller' | undefined;

      const settle = (outcome: Outcome | undefined, bug?: unknown) => {
        if (settled) return;
        settled = true;
        // Removed, so that neither signal keeps a finished request alive.
        deadline.removeEventListener('abort', onDeadline);
        callerSignal?.removeEventListener('abort', onCallerAbort);
        if (outcome === undefined) reject(bug);
        else resolve(outcome);
      };
      const fail = (error: unknown) => {
        const started = controller !== undefined;
        const context = { abortedBy, started, status, timeoutMs: settings.timeoutMs };
        try {
          settle({ kind: 'failure', failure: classifyFailure(error, context) });
        } catch (bug) {
          settle(undefined, bug);
        }
      };
      const abort = (by: 'deadline' | 'caller', reason: unknown) => {
        if (abortedBy !== undefined || settled) return;
        abortedBy = by;
        // undici aborts with an Error; a signal may carry any value as its reason.
        const error = reason instanceof Error ? reason : new DOMException('aborted', 'AbortError');
        if (controller !== undefined) controller.abort(error);
        else fail(error);
      };
      const onDeadline = () => abort('deadline', deadline.reason);
      const onCallerAbort = () => abort('caller', callerSignal?.reason);
      deadline.addEventListener('abort', onDeadline, { once: true });
      callerSignal?.addEventListener('abort', onCallerAbort, { once: true });

      settings.dispatcher.dispatch(
        {
          origin: settings.origin,
          path: settings.pathPrefix + request.path,
          method: request.method,
          headers: body === null ? baseHeaders : jsonHeaders,
          body,
          // The deadline covers the whole exchange, connect included; undici's own would only
          // ever fire with it or after it.
          headersTimeout: 0,
          bodyTimeout: 0,
        },
        {
          onRequestStart(started) {
            controller = started;
            if (settled) started.abort(new DOMException('aborted', 'AbortError'));
          },
          onResponseStart(_controller, statusCode, replyHeaders) {
            status = statusCode;
            headers = replyHeaders;
          },
          onResponseData(_controller, chunk) {
            chunks.push(chunk);
          },
          onResponseEnd() {
            // The body is read to the end here, so the connection is free for the next request.
            const text = Buffer.concat(chunks).toString('utf8');
            settle({ kind: 'reply', status: status as number, headers, text });
          },
          onResponseError(_controller, error) {
            fail(error);
          },
        },
      );
    });
  }

  function report(request: ApiRequest, outcome: Outcome, attempt: number, durationMs: number): void {
    const status = outcome.kind === 'reply' ? outcome.status : (outcome.failure.status ?? 0);
    // Headers are never logged: the access key travels in one.
    log.debug(
      {
        operation: request.operation,
        method: request.method,
        path: request.path,
        status,
        attempt,
        durationMs,
        ...(outcome.kind === 'failure' ? { error: outcome.failure.description } : {}),
      },
      'api request',
    );
    if (settings.onRequest === undefined) return;
    const retryAfterMs =
      outcome.kind === 'reply' ? parseRetryAfter(outcome.headers['retry-after'], Date.now()) : undefined;
    const event: RequestEvent = {
      operation: request.operation,
      route: OPERATIONS[request.operation].route,
      method: request.method,
      status,
      attempt,
      durationMs,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
    try {
      settings.onRequest(event);
    } catch (hookError) {
      // A broken metrics hook must not fail the reconcile it observes.
      log.warn({ err: hookError, operation: request.operation }, 'api onRequest hook threw');
    }
  }

  return { send };
}
