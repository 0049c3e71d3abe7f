/**
 * Reply values and the error shapes of the API, one builder per shape.
 *
 * The seed's "Errors" table says which shape each operation uses; `ErrorProfile` encodes
 * that table per route, so a handler only says *what* went wrong (`invalid`, `notFound`…)
 * and the route decides *how* it looks on the wire.
 */

/** What a handler answers. `body` undefined means an empty body (no content type). */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** One per-field problem of an extended error (MC `ValidationError`). */
export interface FieldError {
  field: string;
  message: string;
}

/**
 * The error shapes of the seed's Errors table, plus the core API's:
 * - `status-only`: `{statusCode}` (Shield UnauthorizedResult)
 * - `problem`: RFC 7807 problem details `{type, title, status, detail, instance}`
 * - `extended`: MC ErrorDetails `{title, status, detail, instance, errors[], id}`
 * - `empty`: no body at all (core API 401/404/500)
 * - `core`: core API 400 `ApiErrorData {ErrorKey, Field, Message}`
 * - `envelope`: a Shield envelope whose `error` says what failed, `{error: {statusCode,
 *   success: false, message, errorKey}}` (the create-list route declares its 400 so)
 */
export type ErrorShape = 'status-only' | 'problem' | 'extended' | 'empty' | 'core' | 'envelope';

/** Which shape a route uses for each kind of failure. */
export interface ErrorProfile {
  unauthorized: ErrorShape;
  invalid: ErrorShape;
  notFound: ErrorShape;
  /** 413, 415, 429 and 5xx replies (injected faults included). */
  fault: ErrorShape;
}

/** E1 and the custom-rule companions: UnauthorizedResult, and problem details for validation (ASP.NET). */
export const SHIELD_RULE_PROFILE: ErrorProfile = {
  unauthorized: 'status-only',
  invalid: 'problem',
  notFound: 'status-only',
  fault: 'status-only',
};

/** E2, E3, E6 and the access-list companions: problem details throughout. */
export const SHIELD_PROBLEM_PROFILE: ErrorProfile = {
  unauthorized: 'problem',
  invalid: 'problem',
  notFound: 'problem',
  fault: 'problem',
};

/** Custom access-list create: 401 problem details, failures inside the envelope (the spec's 400). */
export const SHIELD_ENVELOPE_PROFILE: ErrorProfile = {
  unauthorized: 'problem',
  invalid: 'envelope',
  notFound: 'envelope',
  fault: 'problem',
};

/** E8, E9: `{statusCode}` only. */
export const STATUS_ONLY_PROFILE: ErrorProfile = {
  unauthorized: 'status-only',
  invalid: 'status-only',
  notFound: 'status-only',
  fault: 'status-only',
};

/** E4 and E7: problem details for 401/404, extended error for validation and 5xx. */
export const MC_PROFILE: ErrorProfile = {
  unauthorized: 'problem',
  invalid: 'extended',
  notFound: 'problem',
  fault: 'extended',
};

/** `GET /mc/apps/{id}`: the real spec answers its 404 with ErrorDetails, unlike PATCH. */
export const MC_GET_PROFILE: ErrorProfile = { ...MC_PROFILE, notFound: 'extended' };

/** /dnszone routes: the core API sends 401/404/5xx with an empty body. */
export const CORE_PROFILE: ErrorProfile = {
  unauthorized: 'empty',
  invalid: 'core',
  notFound: 'empty',
  fault: 'empty',
};

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** RFC 9110 section anchors, as ASP.NET fills `type` in its default problem details. */
const TYPE_SECTIONS: Readonly<Record<number, string>> = {
  400: '15.5.1',
  401: '15.5.2',
  403: '15.5.4',
  404: '15.5.5',
  405: '15.5.6',
  413: '15.5.14',
  415: '15.5.16',
  422: '15.5.21',
  429: '6585#section-4',
  500: '15.6.1',
  502: '15.6.3',
  503: '15.6.4',
  504: '15.6.5',
};

/** The standard reason phrase of a status, or "Error". */
function reasonPhrase(status: number): string {
  return REASONS[status] ?? 'Error';
}

function problemType(status: number): string {
  const section = TYPE_SECTIONS[status];
  if (section === undefined) return 'about:blank';
  if (section.startsWith('6585')) return `https://tools.ietf.org/html/rfc${section}`;
  return `https://tools.ietf.org/html/rfc9110#section-${section}`;
}

/** What went wrong, independent of the shape it is sent in. */
export interface Failure {
  status: number;
  /** Short summary; defaults to the reason phrase. */
  title?: string;
  detail?: string;
  /** Per-field problems (validation). */
  errors?: readonly FieldError[];
  /** The MC application concerned, for the extended error's `id`; the server fills it from the route. */
  id?: string;
  /** The Shield envelope's `errorKey` (default by status: see `envelopeError`). */
  errorKey?: string;
}

/**
 * A failed envelope's `error`. The keys follow the `<reason>.<subject>` pattern of the keys
 * the Terraform provider handles (`not_available.access_list`); the emulator's own are
 * invented, since no source lists the real ones.
 */
export function envelopeError(failure: Failure): {
  statusCode: number;
  success: false;
  message: string;
  errorKey: string;
} {
  const message =
    failure.detail ??
    (failure.errors === undefined || failure.errors.length === 0
      ? (failure.title ?? reasonPhrase(failure.status))
      : failure.errors.map((e) => e.message).join(' '));
  const errorKey =
    failure.errorKey ??
    (failure.status === 400 ? 'validation.invalid' : failure.status === 404 ? 'not_found' : 'error');
  return { statusCode: failure.status, success: false, message, errorKey };
}

/**
 * Renders a failure in one shape. `instance` is the request path, as ASP.NET fills it.
 * Problem details carry validation problems as ASP.NET's ValidationProblemDetails does
 * (`errors: {field: [messages]}`), an extension member the real ProblemDetails schema allows.
 */
export function failureReply(shape: ErrorShape, failure: Failure, instance: string): Reply {
  const { status } = failure;
  const title = failure.title ?? reasonPhrase(status);
  switch (shape) {
    case 'empty':
      return { status };
    case 'status-only':
      return { status, body: { statusCode: status } };
    case 'problem': {
      const body: Record<string, unknown> = {
        type: problemType(status),
        title,
        status,
        detail: failure.detail ?? title,
        instance,
      };
      if (failure.errors !== undefined && failure.errors.length > 0) {
        const grouped: Record<string, string[]> = {};
        for (const { field, message } of failure.errors) {
          const list = grouped[field] ?? [];
          list.push(message);
          grouped[field] = list;
        }
        body.errors = grouped;
      }
      return { status, body };
    }
    case 'extended':
      return {
        status,
        body: {
          title,
          status,
          detail: failure.detail ?? title,
          instance,
          errors: failure.errors === undefined ? [] : [...failure.errors],
          id: failure.id ?? null,
        },
      };
    case 'envelope':
      return { status, body: { error: envelopeError(failure) } };
    case 'core': {
      const first = failure.errors?.[0];
      return {
        status,
        body: {
          ErrorKey: status === 400 ? 'validation.invalid' : 'error',
          Field: first?.field ?? null,
          Message: failure.detail ?? first?.message ?? title,
        },
      };
    }
  }
}

/** The `error` member of a successful Shield envelope. */
export function envelopeOk(): { statusCode: number; success: boolean; message: null; errorKey: null } {
  return { statusCode: 200, success: true, message: null, errorKey: null };
}
