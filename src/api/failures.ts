/**
 * What one HTTP exchange's outcome means for the request: the reply to return, a wait before
 * the next attempt, or the ApiError to throw. `http.ts` sends and loops; the decisions are here,
 * in one place, with the rule they keep: a write that may have reached the server and creates
 * containers is never sent again blindly (API_AMBIGUOUS: the caller re-reads and plans again).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ErrorCode } from '../errors.js';
import { ApiError, describeErrorBody, withheldFor } from './errors.js';
import type { ApiRequest } from './operations.js';
import { isIdempotent, parseRetryAfter } from './retry.js';

/** Why an exchange produced no usable reply. */
export interface TransportFailure {
  /** Safe, human words: "timed out after 200 ms", "connection refused (ECONNREFUSED)". */
  description: string;
  /**
   * False only when the request provably never left: connect refused, DNS failure, or any
   * failure before undici started the request.
   */
  maybeSent: boolean;
  retryable: boolean;
  callerAborted: boolean;
  /** Status line, when headers arrived before the body failed. */
  status: number | undefined;
  cause: unknown;
}

/** How one exchange ended. */
export type Outcome =
  | { kind: 'reply'; status: number; headers: IncomingHttpHeaders; text: string }
  | { kind: 'failure'; failure: TransportFailure };

/** What the exchange knew when it failed. */
export interface FailureContext {
  /** Which signal ended it, if one did: the per-attempt deadline or the caller's. */
  abortedBy: 'deadline' | 'caller' | undefined;
  /**
   * Whether undici had started the request. It calls onRequestStart before it writes a byte,
   * so a failure before that (a connect that timed out, was refused or was aborted) proves the
   * request was never sent: even a creating write is then safe to retry, not ambiguous.
   */
  started: boolean;
  status: number | undefined;
  timeoutMs: number;
}

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

/** Why a create that may have reached the server is not resent, in the words of what it creates. */
function ambiguousNote(request: ApiRequest): string {
  if (request.operation === 'patchApp')
    return 'not retried because it creates containers and may have been applied: re-read the app and plan again';
  return 'not retried because it creates an object and may have been applied: the zone is listed again and the object matched by its name';
}

/**
 * Reads a failed exchange. Throws `error` itself when it is not a network failure (an invalid
 * argument, a closed client): a bug here, not weather out there, which surfaces as INTERNAL.
 */
export function classifyFailure(error: unknown, context: FailureContext): TransportFailure {
  const { started, status } = context;
  const callerAborted = context.abortedBy === 'caller';
  const base = { callerAborted, status, cause: error };
  if (callerAborted)
    return { ...base, description: 'aborted by the caller', maybeSent: started, retryable: false };
  const code = errorCode(error);
  if (
    context.abortedBy === 'deadline' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT'
  ) {
    const description = `timed out after ${context.timeoutMs} ms`;
    return { ...base, description, maybeSent: started, retryable: true };
  }
  if (code === undefined) throw error;
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

/** The retry settings a verdict needs. */
export interface VerdictPolicy {
  maxAttempts: number;
  maxRetryAfterMs: number;
  /** The access key, cut out of any API words kept in an error. */
  secret: string;
  /** Delay before the retry that follows attempt number `attempt` (1-based). */
  backoff(attempt: number): number;
}

/** What to do after one exchange. */
export type Verdict =
  | { kind: 'reply'; status: number; text: string }
  | { kind: 'retry'; delayMs: number; why: string }
  | { kind: 'fail'; error: ApiError };

/**
 * Decides after attempt number `attempt` (1-based). A reply other than 429 or 5xx is returned
 * as it is (`client.ts` reads what it means); 429 is retried after Retry-After (even for
 * creating writes: the server refused before doing anything), up to the cap; 5xx and network
 * failures are retried with backoff unless the request creates containers and may have been
 * applied.
 */
export function judge(
  request: ApiRequest,
  outcome: Outcome,
  attempt: number,
  policy: VerdictPolicy,
): Verdict {
  const idempotent = isIdempotent(request);
  const gaveUp = attempt > 1 ? `gave up after ${attempt} attempts` : undefined;
  if (outcome.kind === 'reply') {
    const { status } = outcome;
    if (status !== 429 && status < 500) return { kind: 'reply', status, text: outcome.text };
    const fail = (code: ErrorCode, note: string | undefined): Verdict => ({
      kind: 'fail',
      error: new ApiError({
        ...where(request),
        code,
        status,
        ...withheldFor(request, describeErrorBody(status, outcome.text, policy.secret)),
        attempts: attempt,
        ...(note === undefined ? {} : { note }),
      }),
    });
    const retryAfter = parseRetryAfter(outcome.headers['retry-after'], Date.now());
    const retryAfterAllowed = retryAfter !== undefined && retryAfter <= policy.maxRetryAfterMs;
    if (status === 429) {
      if (retryAfter !== undefined && !retryAfterAllowed) {
        const note = `Retry-After asks for ${seconds(retryAfter)}, more than the ${seconds(policy.maxRetryAfterMs)} cap`;
        return fail('API_RATE_LIMITED', note);
      }
      if (attempt >= policy.maxAttempts) return fail('API_RATE_LIMITED', gaveUp);
    } else {
      // A 5xx may come after the server applied part of the request.
      if (!idempotent) return fail('API_AMBIGUOUS', ambiguousNote(request));
      if (attempt >= policy.maxAttempts) return fail('API_UNAVAILABLE', gaveUp);
    }
    const delayMs = retryAfterAllowed ? retryAfter : policy.backoff(attempt);
    return { kind: 'retry', delayMs, why: String(status) };
  }

  const { failure } = outcome;
  if (failure.callerAborted) return { kind: 'fail', error: abortError(request, attempt, failure) };
  const base = {
    ...where(request),
    status: failure.status,
    shape: 'no-reply' as const,
    problem: failure.description,
    attempts: attempt,
    cause: failure.cause,
  };
  if (!idempotent && failure.maybeSent) {
    return {
      kind: 'fail',
      error: new ApiError({ ...base, code: 'API_AMBIGUOUS', note: ambiguousNote(request) }),
    };
  }
  if (!failure.retryable || attempt >= policy.maxAttempts) {
    const note = gaveUp === undefined ? {} : { note: gaveUp };
    return { kind: 'fail', error: new ApiError({ ...base, code: 'API_UNAVAILABLE', ...note }) };
  }
  return { kind: 'retry', delayMs: policy.backoff(attempt), why: failure.description };
}

/**
 * The caller aborted after `attempts` exchanges. An abort once a creating write may have been
 * sent leaves its effect as unknown as a timeout does.
 */
export function abortError(
  request: ApiRequest,
  attempts: number,
  { maybeSent, cause }: { maybeSent: boolean; cause: unknown },
): ApiError {
  return new ApiError({
    ...where(request),
    code: maybeSent && !isIdempotent(request) ? 'API_AMBIGUOUS' : 'API_UNAVAILABLE',
    shape: 'no-reply',
    problem: 'aborted by the caller',
    attempts,
    cause,
  });
}

function where(request: ApiRequest) {
  return { operation: request.operation, method: request.method, path: request.path };
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
