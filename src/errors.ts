/**
 * The one error type of edgesync, and the table that says how each code is handled.
 *
 * Every failure that crosses a module boundary is a ReconcileError (or its subclass ApiError),
 * so the CLI and the daemon decide "retry or not" from `code` alone and never guess.
 * Messages and `details` must be safe to log: no access keys, no webhook secrets.
 */

export const ERROR_CODES = {
  CONFIG_INVALID: { retryable: false, summary: 'the desired state does not validate; nothing is written' },
  USAGE: { retryable: false, summary: 'bad command-line flags or settings' },
  API_AUTH: { retryable: false, summary: 'the API refused the access key (401/403)' },
  API_NOT_FOUND: { retryable: false, summary: 'the API answered 404 for an object the plan expected' },
  API_REJECTED: {
    retryable: false,
    summary: 'the API rejected the request (400/409/422, Shield 202 or error.success=false)',
  },
  API_RATE_LIMITED: { retryable: true, summary: 'the API answered 429 after every retry' },
  API_UNAVAILABLE: { retryable: true, summary: '5xx, timeout or connection failure after every retry' },
  API_AMBIGUOUS: {
    retryable: false,
    summary: 'a non-idempotent write may or may not have been applied; re-read before retrying',
  },
  API_BAD_RESPONSE: { retryable: false, summary: 'the reply did not match its wire schema or was not JSON' },
  CHECKSUM_MISMATCH: {
    retryable: false,
    summary: 'the access-list checksum returned by the API differs from the one sent',
  },
  PLAN_UNSAFE: {
    retryable: false,
    summary: 'the plan exceeds a safety threshold or deletes without allowDeletions',
  },
  PLAN_STALE: {
    retryable: false,
    summary: 'a saved plan no longer matches the config revision or the live state; nothing is sent',
  },
  PLAN_FILE_INVALID: { retryable: false, summary: 'a saved plan file is not one edgesync wrote' },
  READ_FAILED: { retryable: true, summary: 'live state of a resource could not be read' },
  SECRET_UNAVAILABLE: {
    retryable: false,
    summary: 'a container secret (valueFrom) could not be read; nothing is sent for that app',
  },
  ROLLOUT_FAILED: {
    retryable: false,
    summary:
      'an app change was applied but its rollout did not reach active (failing, or the timeout passed)',
  },
  APPLY_PARTIAL: { retryable: true, summary: 'some changes failed; the result lists each outcome' },
  STATE_IO: {
    retryable: true,
    summary: 'the state store could not be read or written',
  },
  STATE_LOCKED: {
    retryable: true,
    summary: 'another writer (a daemon, an apply) holds the state lease; the message names it',
  },
  LEADER_LOST: {
    retryable: true,
    summary: 'this process lost the state lease mid-run: it sent nothing more and stood down',
  },
  CONFIG_IO: {
    retryable: true,
    summary: 'the config directory could not be read for a reason of the machine (EMFILE, EIO…)',
  },
  INTERNAL: { retryable: false, summary: 'a bug in edgesync: please report it' },
} as const satisfies Record<string, { retryable: boolean; summary: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ReconcileErrorOptions {
  /** `Kind/name` of the resource concerned, when there is one. */
  subject?: string;
  /** Structured context, safe to log. */
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class ReconcileError extends Error {
  readonly code: ErrorCode;
  readonly subject: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: ReconcileErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ReconcileError';
    this.code = code;
    this.subject = options.subject;
    this.details = options.details;
  }

  get retryable(): boolean {
    return ERROR_CODES[this.code].retryable;
  }
}

/** Wraps anything thrown into a ReconcileError; programmer errors become INTERNAL. */
export function toReconcileError(err: unknown): ReconcileError {
  if (err instanceof ReconcileError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new ReconcileError('INTERNAL', message, { cause: err });
}
