/**
 * ApiError: the one error type the API client throws, and the reading of the API's many error
 * bodies into its fields.
 *
 * The three areas answer failures in different shapes (docs/api-notes.md, Errors):
 * Shield mostly inside its `{data, error}` envelope (even with HTTP 200 or 202), MC with RFC 7807
 * problem details or its extended variant with per-field `errors`, the core DNS API with
 * `{ErrorKey, Field, Message}` or an empty body. Callers should not have to know which: every
 * failure becomes an ApiError whose `code` decides retry-or-stop and whose fields carry the
 * API's own words, reduced to a few safe fields (the raw body is never kept).
 */
import { STATUS_CODES } from 'node:http';
import { sensitiveValuesIn } from '../domain/sensitive.js';
import { type ErrorCode, ReconcileError } from '../errors.js';
import { type HttpMethod, OPERATIONS, type OperationId } from './operations.js';

/**
 * Which kind of body came with a failure. The first eight are the API's own shapes; the rest
 * say what the client saw when the body was none of them.
 */
export type ApiErrorShape =
  /** RFC 7807 `{type, title, status, detail, instance}` (Shield 401, MC 401/404). */
  | 'problem-details'
  /** MC ErrorDetails: problem details plus `errors: [{field, message}]` and an app `id`. */
  | 'extended-error'
  /**
   * Shield GenericRequestResponse with `success: false`: an envelope's `error`, a rule's
   * `errorResponse`, or the bare object (the body Shield deletes answer with).
   */
  | 'envelope-error'
  /** `{statusCode}` on anything but a 401 (E8/E9 failures). */
  | 'status-only'
  /** UnauthorizedResult: `{statusCode}` on a 401 (E1, E8, E9). */
  | 'unauthorized'
  /** ASP.NET AcceptedResult, the declared body of a Shield 202. */
  | 'accepted'
  /** Core (DNS) `{ErrorKey, Field, Message}`. */
  | 'core-error'
  /** Older MC format: a bare array of `{message}` (or strings). */
  | 'message-list'
  /** Older MC format: a bare JSON string. */
  | 'message-string'
  /** No body at all (core DNS 401/404/500). */
  | 'empty'
  /** A body that is not JSON. */
  | 'unparseable'
  /** JSON in none of the shapes above. */
  | 'unrecognised'
  /** A success reply that does not match its wire schema. */
  | 'schema-mismatch'
  /** No reply arrived: timeout, connection failure or abort. */
  | 'no-reply';

/** One per-field problem, from an extended error's `errors` or a core error's `Field`. */
export interface FieldError {
  field: string | undefined;
  message: string;
}

/** What the client could read from an error body. */
export interface ErrorBodyInfo {
  shape: ApiErrorShape;
  apiMessage: string | undefined;
  errorKey: string | undefined;
  fieldErrors: FieldError[];
}

/** Everything an ApiError is built from. */
export interface ApiErrorInit {
  code: ErrorCode;
  operation: OperationId;
  method: HttpMethod;
  /** The request path, relative to the base URL, with its query. */
  path: string;
  /** HTTP status of the last reply; undefined when none arrived. */
  status?: number | undefined;
  shape: ApiErrorShape;
  apiMessage?: string | undefined;
  errorKey?: string | undefined;
  fieldErrors?: FieldError[];
  /** HTTP exchanges made, retries included. */
  attempts: number;
  /** The client's own words about what went wrong, placed after the status ("timed out after 200 ms"). */
  problem?: string;
  /** What happened next, placed at the end ("gave up after 4 attempts"). */
  note?: string;
  cause?: unknown;
}

const SHAPE_LABELS: Record<ApiErrorShape, string> = {
  'problem-details': 'problem details',
  'extended-error': 'extended error',
  'envelope-error': 'envelope error',
  'status-only': 'status only',
  unauthorized: 'UnauthorizedResult',
  accepted: 'AcceptedResult',
  'core-error': 'core API error',
  'message-list': 'message list',
  'message-string': 'message string',
  empty: 'empty body',
  unparseable: 'not JSON',
  unrecognised: 'unrecognised body',
  'schema-mismatch': 'schema mismatch',
  'no-reply': 'no reply',
};

/**
 * A failed API call. `code` follows the table in `src/errors.ts`; the other fields say where
 * (operation, method, route, path) and what the API answered (status, shape, its message,
 * errorKey and per-field errors). The message is one line, e.g.
 * `update custom WAF rule (PATCH /shield/waf/custom-rule/1234) failed: 400 Bad Request: operatorType 10 is not allowed (problem details)`.
 * Nothing in it holds the access key.
 */
export class ApiError extends ReconcileError {
  readonly operation: OperationId;
  readonly method: HttpMethod;
  /** Path template of the operation (bounded cardinality, for metrics and grouping). */
  readonly route: string;
  readonly path: string;
  readonly status: number | undefined;
  readonly shape: ApiErrorShape;
  readonly apiMessage: string | undefined;
  readonly errorKey: string | undefined;
  readonly fieldErrors: readonly FieldError[];
  readonly attempts: number;

  constructor(init: ApiErrorInit) {
    const info = OPERATIONS[init.operation];
    const fieldErrors = init.fieldErrors ?? [];
    super(init.code, formatApiErrorMessage(init), {
      details: compact({
        operation: init.operation,
        method: init.method,
        route: info.route,
        path: init.path,
        status: init.status,
        shape: init.shape,
        apiMessage: init.apiMessage,
        errorKey: init.errorKey,
        fieldErrors: fieldErrors.length > 0 ? fieldErrors : undefined,
        attempts: init.attempts,
      }),
      cause: init.cause,
    });
    this.name = 'ApiError';
    this.operation = init.operation;
    this.method = init.method;
    this.route = info.route;
    this.path = init.path;
    this.status = init.status;
    this.shape = init.shape;
    this.apiMessage = init.apiMessage;
    this.errorKey = init.errorKey;
    this.fieldErrors = fieldErrors;
    this.attempts = init.attempts;
  }
}

/**
 * The one-line message of an ApiError:
 * `<operation in words> (<METHOD> <path>) failed: <status reason | no reply>[: problem][: API words][ [errorKey]] (<shape>)[; note]`.
 */
export function formatApiErrorMessage(init: ApiErrorInit): string {
  const info = OPERATIONS[init.operation];
  const status =
    init.status === undefined
      ? 'no reply'
      : `${init.status} ${STATUS_CODES[init.status] ?? 'Unknown Status'}`;
  let text = `${info.title} (${init.method} ${init.path}) failed: ${status}`;
  if (init.problem !== undefined) text += `: ${init.problem}`;
  const words = apiWords(init.apiMessage, init.fieldErrors ?? []);
  if (words !== undefined) text += `: ${words}`;
  if (init.errorKey !== undefined) text += ` [${init.errorKey}]`;
  // "no reply: timed out (no reply)" says nothing twice; every other shape is worth naming.
  if (init.shape !== 'no-reply') text += ` (${SHAPE_LABELS[init.shape]})`;
  if (init.note !== undefined) text += `; ${init.note}`;
  return text;
}

function apiWords(apiMessage: string | undefined, fieldErrors: readonly FieldError[]): string | undefined {
  const fields = fieldErrors.map((f) => (f.field ? `${f.field}: ${f.message}` : f.message));
  // A core error repeats its Message next to its Field: "Domain: taken" says it once.
  const repeated = fieldErrors.some((f) => f.message === apiMessage);
  const parts = apiMessage === undefined || repeated ? fields : [apiMessage.replace(/\.$/, ''), ...fields];
  if (parts.length === 0) return undefined;
  return fields.length === 0 ? apiMessage : parts.join('; ');
}

/**
 * Maps an HTTP status to an error code: 401/403 auth, 404 not found, 429 rate limited, 5xx
 * unavailable, other 4xx rejected. A 2xx only reaches here when it is a failure in disguise
 * (Shield 202 or `success: false`), so it is a rejection; 1xx/3xx mean the base URL points at
 * something that is not the API.
 */
export function codeForStatus(status: number): ErrorCode {
  if (status === 401 || status === 403) return 'API_AUTH';
  if (status === 404) return 'API_NOT_FOUND';
  if (status === 429) return 'API_RATE_LIMITED';
  if (status >= 500) return 'API_UNAVAILABLE';
  if (status >= 400) return 'API_REJECTED';
  if (status >= 200 && status < 300) return 'API_REJECTED';
  return 'API_BAD_RESPONSE';
}

/** Longest API message kept; bodies are reduced, never copied whole. */
const MAX_MESSAGE_CHARS = 500;

/**
 * Reads an error body (raw text) into a shape, message, errorKey and field errors. Tolerant by
 * design: any JSON is accepted and the best-matching shape wins; the body is never kept.
 * `secret` (the access key) is cut out of every string taken from the body, should a server
 * ever echo it back.
 */
export function describeErrorBody(status: number, text: string, secret?: string): ErrorBodyInfo {
  return redactInfo(readErrorBody(status, text), secret);
}

/** As {@link describeErrorBody}, for an already parsed body. */
export function describeErrorJson(status: number, json: unknown, secret?: string): ErrorBodyInfo {
  return redactInfo(readErrorJson(status, json), secret);
}

/** What a withheld API message reads as. */
export const WITHHELD_MESSAGE = '(message not shown: the request carried a sensitive value)';

/**
 * `body` with the API's own words withheld when `request` carried a sensitive value (a
 * container secret): an API may quote the value it refused JSON-escaped, truncated,
 * upper-cased or URL-encoded, which no exact-match redaction finds. The status, shape, error
 * key and field paths are kept, so the error still says what was refused and where
 * (docs/secrets.md, What is printed).
 */
export function withheldFor(request: { readonly body?: unknown }, body: ErrorBodyInfo): ErrorBodyInfo {
  if (sensitiveValuesIn(request.body).length === 0) return body;
  const fieldErrors = body.fieldErrors.map((f) => ({ field: f.field, message: WITHHELD_MESSAGE }));
  return {
    shape: body.shape,
    apiMessage: body.apiMessage === undefined || fieldErrors.length > 0 ? undefined : WITHHELD_MESSAGE,
    errorKey: body.errorKey,
    fieldErrors,
  };
}

function redactInfo(body: ErrorBodyInfo, secret: string | undefined): ErrorBodyInfo {
  if (secret === undefined || secret === '') return body;
  const cut = (text: string | undefined) =>
    text === undefined ? undefined : text.split(secret).join('[redacted]');
  return {
    shape: body.shape,
    apiMessage: cut(body.apiMessage),
    errorKey: cut(body.errorKey),
    fieldErrors: body.fieldErrors.map((f) => ({ field: cut(f.field), message: cut(f.message) ?? '' })),
  };
}

function readErrorBody(status: number, text: string): ErrorBodyInfo {
  if (text.trim() === '') return info('empty');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // A proxy's HTML page says nothing useful; a short plain-text reply often does.
    const firstLine = text.trim().split('\n', 1)[0] ?? '';
    return info('unparseable', firstLine.startsWith('<') ? undefined : firstLine);
  }
  return readErrorJson(status, json);
}

function readErrorJson(status: number, json: unknown): ErrorBodyInfo {
  if (typeof json === 'string') return info('message-string', json);
  if (Array.isArray(json)) return describeMessageList(json);
  if (!isRecord(json)) return info('unrecognised');

  const generic = failedGenericResponse(json);
  if (generic !== undefined) {
    return info('envelope-error', str(generic.message), str(generic.errorKey));
  }
  if (Array.isArray(json.errors)) {
    return info('extended-error', str(json.detail) ?? str(json.title), undefined, fieldErrorsOf(json.errors));
  }
  if (isRecord(json.errors)) {
    // ASP.NET ValidationProblemDetails: problem details with a field → messages map.
    return info(
      'problem-details',
      str(json.detail) ?? str(json.title),
      undefined,
      fieldErrorsOf(json.errors),
    );
  }
  if ('ErrorKey' in json || 'Message' in json) {
    const message = str(json.Message);
    const field = str(json.Field);
    const fields = field !== undefined && message !== undefined ? [{ field, message: clip(message) }] : [];
    return info('core-error', message, str(json.ErrorKey), fields);
  }
  if ('declaredType' in json || 'formatters' in json || 'contentTypes' in json || 'location' in json) {
    const value = json.value;
    const inner = isRecord(value) ? (str(value.message) ?? messageOfGeneric(value.error)) : str(value);
    return info('accepted', inner);
  }
  const keys = Object.keys(json);
  if (keys.length === 1 && typeof json.statusCode === 'number') {
    return info(status === 401 ? 'unauthorized' : 'status-only');
  }
  if (['type', 'title', 'detail', 'instance', 'status'].some((k) => k in json)) {
    return info('problem-details', str(json.detail) ?? str(json.title));
  }
  // An envelope whose error is not marked failed but still explains the failure.
  const envelopeMessage = messageOfGeneric(json.error);
  if (envelopeMessage !== undefined) {
    return info(
      'envelope-error',
      envelopeMessage,
      isRecord(json.error) ? str(json.error.errorKey) : undefined,
    );
  }
  return info('unrecognised', str(json.message));
}

/**
 * The GenericRequestResponse with `success: false` in a reply, if any: the envelope's `error`,
 * a custom rule's `errorResponse`, or the reply itself. Shield says "failed" this way even
 * with HTTP 200.
 */
export function failedGenericResponse(json: unknown): Record<string, unknown> | undefined {
  if (!isRecord(json)) return undefined;
  for (const candidate of [json.error, json.errorResponse, json]) {
    if (isRecord(candidate) && candidate.success === false) return candidate;
  }
  return undefined;
}

function describeMessageList(items: unknown[]): ErrorBodyInfo {
  const fieldErrors: FieldError[] = [];
  for (const item of items) {
    if (typeof item === 'string') fieldErrors.push({ field: undefined, message: clip(item) });
    else if (isRecord(item) && typeof item.message === 'string') {
      fieldErrors.push({ field: str(item.field), message: clip(item.message) });
    }
  }
  // A list without fields is just several messages; one with fields is per-field errors.
  if (fieldErrors.every((f) => f.field === undefined)) {
    const joined = fieldErrors.map((f) => f.message).join('; ');
    return info('message-list', joined === '' ? undefined : joined);
  }
  return info('message-list', undefined, undefined, fieldErrors);
}

function fieldErrorsOf(errors: unknown): FieldError[] {
  const result: FieldError[] = [];
  if (Array.isArray(errors)) {
    for (const item of errors) {
      if (isRecord(item) && typeof item.message === 'string') {
        result.push({ field: str(item.field), message: clip(item.message) });
      }
    }
    return result;
  }
  // ASP.NET's ValidationProblemDetails: `errors: {field: [messages]}`. Not declared by the
  // API, but it is what its framework emits for model-binding failures.
  if (isRecord(errors)) {
    for (const [field, messages] of Object.entries(errors)) {
      const list = Array.isArray(messages) ? messages : [messages];
      for (const message of list) {
        if (typeof message === 'string') result.push({ field, message: clip(message) });
      }
    }
  }
  return result;
}

function messageOfGeneric(value: unknown): string | undefined {
  return isRecord(value) ? str(value.message) : undefined;
}

function info(
  shape: ApiErrorShape,
  apiMessage?: string,
  errorKey?: string,
  fieldErrors: FieldError[] = [],
): ErrorBodyInfo {
  return {
    shape,
    apiMessage: apiMessage === undefined || apiMessage === '' ? undefined : clip(apiMessage),
    errorKey: errorKey === '' ? undefined : errorKey,
    fieldErrors,
  };
}

function clip(text: string): string {
  const oneLine = text.replace(/\s*\n\s*/g, ' ').trim();
  return oneLine.length > MAX_MESSAGE_CHARS ? `${oneLine.slice(0, MAX_MESSAGE_CHARS)}…` : oneLine;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function compact(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined));
}
