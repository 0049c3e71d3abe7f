/**
 * The one place edgesync speaks HTTP to the API: one request through the dispatcher with the
 * auth header and a deadline, retried by the policy in `retry.ts`, rate limited, logged and
 * reported per exchange. It returns the final reply (any 1xx–4xx status except 429) with its
 * body read; what the body means is `client.ts`'s business. Failures it decides itself
 * (429/5xx/transport after the retries, ambiguous writes, aborts) are thrown as ApiError.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { stringifyRevealing } from '../domain/sensitive.js';
import type { ErrorCode } from '../errors.js';
import type { Logger } from '../log.js';
import { watchAbort } from './abort-watch.js';
import { ApiError, type ApiErrorInit, describeErrorBody } from './errors.js';
import { LinkedList, type ListNode } from './linked-list.js';
import { type ApiRequest, OPERATIONS } from './operations.js';
import { backoffDelay, createRateLimiter, isIdempotent, parseRetryAfter, sleep } from './retry.js';
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
  rateLimitPerSecond: number | undefined;
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
  send(request: ApiRequest, signal?: AbortSignal): Promise<HttpReply>;
}

/** Why an exchange produced no usable reply. */
interface TransportFailure {
  /** Safe, human words: "timed out after 200 ms", "connection refused (ECONNREFUSED)". */
  description: string;
  /**
   * False only when the request provably never left: connect refused, DNS failure, or any
   * failure before undici started the request (see Exchange).
   */
  maybeSent: boolean;
  retryable: boolean;
  callerAborted: boolean;
  /** Status line, when headers arrived before the body failed. */
  status: number | undefined;
  cause: unknown;
}

type Outcome =
  | { kind: 'reply'; status: number; headers: IncomingHttpHeaders; text: string }
  | { kind: 'failure'; failure: TransportFailure };

/** Connection failures that happen before a single request byte is written. */
const NOT_SENT: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'DNS lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EADDRNOTAVAIL: 'address not available',
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
};

/** Failures after the connection was up: the server may have the request. */
const MAYBE_SENT: Record<string, string> = {
  ECONNRESET: 'connection reset',
  EPIPE: 'connection broken',
  ETIMEDOUT: 'connection timed out',
  ECONNABORTED: 'connection aborted',
  UND_ERR_SOCKET: 'connection closed by the server',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'reply cut short',
};

/** Any other errno-style code (EPROTO, ENOBUFS, …) is a network failure too. */
const ERRNO_CODE = /^E[A-Z0-9]+$/;

/** TLS problems are configuration, not weather: retrying cannot help. */
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_)/;

const AMBIGUOUS_NOTE =
  'not retried because it creates containers and may have been applied: re-read the app and plan again';

/** Builds the transport over the given (already validated) settings. */
export function createHttpTransport(settings: HttpSettings): HttpTransport {
  const limiter =
    settings.rateLimitPerSecond === undefined ? undefined : createRateLimiter(settings.rateLimitPerSecond);
  const log = settings.logger.child({ component: 'api' });
  const baseHeaders: Record<string, string> = {
    AccessKey: settings.accessKey,
    accept: 'application/json',
    'user-agent': 'edgesync',
  };
  const jsonHeaders: Record<string, string> = { ...baseHeaders, 'content-type': 'application/json' };
  const deadlines = new Deadlines(settings.timeoutMs);

  // The errors send() throws, built by functions made once per transport, not per request.
  function fail(request: ApiRequest, init: Omit<ApiErrorInit, 'operation' | 'method' | 'path'>): ApiError {
    return new ApiError({
      operation: request.operation,
      method: request.method,
      path: request.path,
      ...init,
    });
  }
  function replyError(
    request: ApiRequest,
    reply: { status: number; text: string },
    code: ErrorCode,
    attempts: number,
    note?: string,
  ): ApiError {
    return fail(request, {
      code,
      status: reply.status,
      ...describeErrorBody(reply.status, reply.text, settings.accessKey),
      attempts,
      ...(note === undefined ? {} : { note }),
    });
  }
  function abortError(request: ApiRequest, attempts: number, reason: unknown, maybeSent: boolean): ApiError {
    return fail(request, {
      // An abort once a creating write may have been sent leaves its effect as unknown as a timeout.
      code: maybeSent && !isIdempotent(request) ? 'API_AMBIGUOUS' : 'API_UNAVAILABLE',
      shape: 'no-reply',
      problem: 'aborted by the caller',
      attempts,
      cause: reason,
    });
  }

  async function send(request: ApiRequest, signal?: AbortSignal): Promise<HttpReply> {
    const idempotent = isIdempotent(request);
    for (let attempt = 1; ; attempt += 1) {
      try {
        if (signal?.aborted) throw signal.reason;
        // No await without a limiter: even a no-op one costs a turn and a promise per request.
        if (limiter !== undefined) {
          await limiter.take(signal);
          // Again after the wait: exchange() watches the signal with watchAbort, which ignores
          // a signal that is already aborted.
          if (signal?.aborted) throw signal.reason;
        }
      } catch (reason) {
        throw abortError(request, attempt - 1, reason, false);
      }

      const outcome = await exchange(request, signal, attempt);
      const gaveUp = attempt > 1 ? `gave up after ${attempt} attempts` : undefined;
      let delayMs: number;
      let why: string;

      if (outcome.kind === 'reply') {
        const { status } = outcome;
        if (status !== 429 && status < 500) {
          return { status, text: outcome.text, attempts: attempt };
        }
        const retryAfter = parseRetryAfter(outcome.headers['retry-after'], Date.now());
        if (status === 429) {
          // A 429 is a refusal before any work, so it is retried even for creating writes.
          if (retryAfter !== undefined && retryAfter > settings.maxRetryAfterMs) {
            const note = `Retry-After asks for ${seconds(retryAfter)}, more than the ${seconds(settings.maxRetryAfterMs)} cap`;
            throw replyError(request, outcome, 'API_RATE_LIMITED', attempt, note);
          }
          if (attempt >= settings.maxAttempts)
            throw replyError(request, outcome, 'API_RATE_LIMITED', attempt, gaveUp);
          delayMs = retryAfter ?? backoff(attempt);
        } else {
          // A 5xx may come after the server applied part of the request.
          if (!idempotent) throw replyError(request, outcome, 'API_AMBIGUOUS', attempt, AMBIGUOUS_NOTE);
          if (attempt >= settings.maxAttempts)
            throw replyError(request, outcome, 'API_UNAVAILABLE', attempt, gaveUp);
          delayMs =
            retryAfter !== undefined && retryAfter <= settings.maxRetryAfterMs
              ? retryAfter
              : backoff(attempt);
        }
        why = String(status);
      } else {
        const { failure } = outcome;
        if (failure.callerAborted) throw abortError(request, attempt, failure.cause, failure.maybeSent);
        const base = { status: failure.status, shape: 'no-reply' as const, problem: failure.description };
        if (!idempotent && failure.maybeSent) {
          throw fail(request, {
            code: 'API_AMBIGUOUS',
            ...base,
            attempts: attempt,
            note: AMBIGUOUS_NOTE,
            cause: failure.cause,
          });
        }
        if (!failure.retryable || attempt >= settings.maxAttempts) {
          throw fail(request, {
            code: 'API_UNAVAILABLE',
            ...base,
            attempts: attempt,
            ...(gaveUp === undefined ? {} : { note: gaveUp }),
            cause: failure.cause,
          });
        }
        delayMs = backoff(attempt);
        why = failure.description;
      }

      log.debug(
        {
          operation: request.operation,
          method: request.method,
          path: request.path,
          attempt,
          delayMs,
          reason: why,
        },
        'api retry',
      );
      try {
        await sleep(delayMs, signal);
      } catch (reason) {
        throw abortError(request, attempt, reason, false);
      }
    }
  }

  /** Delay before the retry that follows attempt number `attempt` (1-based). */
  function backoff(attempt: number): number {
    return backoffDelay(attempt - 1, settings.baseDelayMs, settings.maxDelayMs, settings.random);
  }

  /**
   * One HTTP exchange through `dispatcher.dispatch`, the handler collecting the body: no
   * Readable stream, no AbortController, no per-request timer or EventTarget listener (the
   * apply benchmark of issue 6 spent a third of the client's time on those). The deadline
   * (`deadlines`) and the caller's signal both abort through the dispatch controller (before
   * undici starts the request, they settle it at once), and are told apart afterwards: a
   * timeout is retried, a caller's abort is not.
   */
  function exchange(
    request: ApiRequest,
    callerSignal: AbortSignal | undefined,
    attempt: number,
  ): Promise<Outcome> {
    return new Promise<Outcome>((resolve, reject) => {
      const hasBody = request.body !== undefined;
      // Serialised before the exchange is registered: a body that cannot be (a bug) throws
      // here, leaving nothing in `deadlines` and no watcher on the caller's signal.
      // The one place a container secret (SensitiveValue) is written as its value: the wire.
      const body = hasBody ? stringifyRevealing(request.body) : null;
      const handler = new Exchange(settings.timeoutMs, (outcome, error) => {
        deadlines.delete(handler);
        stopWatching();
        if (outcome === undefined) {
          reject(error);
          return;
        }
        report(request, outcome, attempt, Math.round(performance.now() - handler.started));
        resolve(outcome);
      });
      deadlines.add(handler);
      const stopWatching = watchAbort(callerSignal, (reason) => handler.abort(reason, 'caller'));
      settings.dispatcher.dispatch(
        {
          origin: settings.origin,
          path: settings.pathPrefix + request.path,
          method: request.method,
          headers: hasBody ? jsonHeaders : baseHeaders,
          body,
          // The deadline covers the whole exchange, so undici's own timers are off: they cost a
          // timer object per request and would only ever fire together with it.
          headersTimeout: 0,
          bodyTimeout: 0,
        },
        handler,
      );
    });
  }

  function report(request: ApiRequest, outcome: Outcome, attempt: number, durationMs: number): void {
    const status = outcome.kind === 'reply' ? outcome.status : (outcome.failure.status ?? 0);
    // Headers are never logged: the access key travels in one. The level check spares
    // building the record for every request when debug is off (the usual case).
    if (log.isLevelEnabled('debug')) {
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
    }
    if (settings.onRequest === undefined) return;
    const event: RequestEvent = {
      operation: request.operation,
      route: OPERATIONS[request.operation].route,
      method: request.method,
      status,
      attempt,
      durationMs,
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

/** How an exchange ended: an outcome, or (outcome undefined) a bug to rethrow as is. */
type Settle = (outcome: Outcome | undefined, error?: unknown) => void;

/**
 * The state of one exchange, and its undici dispatch handler: one object per request where
 * closures per callback used to be (a measurable share of the apply phase's garbage).
 */
class Exchange implements Dispatcher.DispatchHandler {
  /** performance.now() at the start; the deadline is `timeoutMs` later (Deadlines). */
  readonly started = performance.now();
  #controller: Dispatcher.DispatchController | undefined;
  /** Set once, with the reason, by the first of the deadline and the caller's signal. */
  #abortedBy: 'deadline' | 'caller' | undefined;
  #abortReason: Error | undefined;
  #settled = false;
  #status: number | undefined;
  #headers: IncomingHttpHeaders = {};
  readonly #chunks: Buffer[] = [];
  readonly #timeoutMs: number;
  readonly #settle: Settle;
  /** Its node in the in-flight list; `Deadlines` alone sets it. */
  inFlight: ListNode<Exchange> | undefined;

  constructor(timeoutMs: number, settle: Settle) {
    this.#timeoutMs = timeoutMs;
    this.#settle = settle;
  }

  abort(reason: unknown, by: 'deadline' | 'caller'): void {
    if (this.#abortedBy !== undefined || this.#settled) return;
    this.#abortedBy = by;
    // undici aborts with an Error; a signal may carry any value as its reason.
    this.#abortReason =
      reason instanceof Error ? reason : new DOMException(String(reason ?? 'aborted'), 'AbortError');
    if (this.#controller !== undefined) {
      this.#controller.abort(this.#abortReason);
      return;
    }
    // Not started: still connecting (or waiting for a connection), which undici cannot abort,
    // and a connect that hangs ends only at undici's connect timeout (10 s), or never with a
    // custom connector. Settle as undici would once it starts; onRequestStart then aborts it.
    this.#fail(this.#abortReason);
  }

  timeOut(): void {
    this.abort(new DOMException(`timed out after ${this.#timeoutMs} ms`, 'TimeoutError'), 'deadline');
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#abortReason !== undefined) controller.abort(this.#abortReason);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
  ): void {
    this.#status = statusCode;
    this.#headers = headers;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    // The body is read to the end here, so the connection is free for the next request.
    const chunks = this.#chunks;
    const text =
      chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8');
    this.#finish({ kind: 'reply', status: this.#status as number, headers: this.#headers, text });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#fail(error);
  }

  #fail(error: Error): void {
    let failure: TransportFailure;
    try {
      failure = classifyFailure(error, {
        timedOut: this.#abortedBy === 'deadline',
        callerAborted: this.#abortedBy === 'caller',
        started: this.#controller !== undefined,
        status: this.#status,
        timeoutMs: this.#timeoutMs,
      });
    } catch (bug) {
      // Not a network failure: a bug (unserialisable body, bad argument) surfaces as is.
      this.#finish(undefined, bug);
      return;
    }
    this.#finish({ kind: 'failure', failure });
  }

  #finish(outcome: Outcome | undefined, error?: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#settle(outcome, error);
  }
}

/**
 * The deadlines of a transport's exchanges in flight. They all last `timeoutMs`, so the
 * oldest always ends first and one timer serves them all: a timer per request cost more than
 * the rest of the bookkeeping together. In flight is a LinkedList, oldest first (not a Set:
 * see linked-list.ts).
 */
class Deadlines {
  readonly #inFlight = new LinkedList<Exchange>();
  readonly #timeoutMs: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  add(exchange: Exchange): void {
    exchange.inFlight = this.#inFlight.push(exchange);
    if (this.#timer === undefined) this.#arm(this.#timeoutMs);
  }

  /** Removes `exchange`; one already removed (timed out, then settled) is left alone. */
  delete(exchange: Exchange): void {
    if (exchange.inFlight === undefined) return;
    this.#inFlight.remove(exchange.inFlight);
    exchange.inFlight = undefined;
    // Nothing in flight: no timer either, so an idle client never holds the process open.
    if (this.#inFlight.isEmpty() && this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  #arm(ms: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#sweep(), ms);
  }

  #sweep(): void {
    this.#timer = undefined;
    const now = performance.now();
    for (let exchange = this.#inFlight.peek(); exchange !== undefined; exchange = this.#inFlight.peek()) {
      const deadline = exchange.started + this.#timeoutMs;
      if (deadline > now) {
        this.#arm(deadline - now);
        return;
      }
      this.delete(exchange);
      exchange.timeOut();
    }
  }
}

/** What an exchange knew when it failed. */
interface FailureContext {
  timedOut: boolean;
  callerAborted: boolean;
  /**
   * Whether undici had started the request. It calls onRequestStart before it writes a byte,
   * so a failure before that (a connect that timed out, was refused or was aborted) proves the
   * request was never sent: even a creating write is then safe to retry, not ambiguous.
   */
  started: boolean;
  status: number | undefined;
  timeoutMs: number;
}

function classifyFailure(error: unknown, context: FailureContext): TransportFailure {
  const { callerAborted, started, status } = context;
  const base = { callerAborted, status, cause: error };
  if (callerAborted)
    return { ...base, description: 'aborted by the caller', maybeSent: started, retryable: false };
  const code = errorCode(error);
  if (context.timedOut || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return {
      ...base,
      description: `timed out after ${context.timeoutMs} ms`,
      maybeSent: started,
      retryable: true,
    };
  }
  if (code === undefined) {
    // Not a network error: a bug (unserialisable body, …). Let it surface as INTERNAL.
    throw error;
  }
  const notSent = NOT_SENT[code];
  if (notSent !== undefined)
    return { ...base, description: `${notSent} (${code})`, maybeSent: false, retryable: true };
  if (TLS_CODE.test(code)) {
    return { ...base, description: `TLS handshake failed (${code})`, maybeSent: false, retryable: false };
  }
  const broken = MAYBE_SENT[code] ?? (ERRNO_CODE.test(code) ? 'connection failed' : undefined);
  if (broken !== undefined) {
    return { ...base, description: `${broken} (${code})`, maybeSent: started, retryable: true };
  }
  // UND_ERR_INVALID_ARG, UND_ERR_CLOSED/DESTROYED (a closed client used), ERR_INVALID_ARG_TYPE
  // and the like: a bug here, not weather out there.
  throw error;
}

/** The error code of a network error, looking through undici's and Node's wrappers. */
function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth += 1) {
    const candidate = current as { code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof candidate.code === 'string') return candidate.code;
    // Happy-eyeballs connects fail with an AggregateError of one error per address.
    current = Array.isArray(candidate.errors) ? candidate.errors[0] : candidate.cause;
  }
  return undefined;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
