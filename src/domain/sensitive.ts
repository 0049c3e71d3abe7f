/**
 * A value that must reach the API and nothing else: a container's secret environment
 * variable. It prints as `(sensitive)` however it is printed — `JSON.stringify` (plan JSON,
 * pino log lines, /status), `String()`, template literals, `util.inspect` — and only
 * `stringifyRevealing`, which the API client calls to serialise a request body, writes the
 * real value. So a plan can carry the exact request it will send and still be printed whole.
 */

/** How every sensitive value prints. */
export const SENSITIVE = '(sensitive)';

let revealing = false;

export class SensitiveValue {
  readonly #value: string;
  /**
   * Where the value comes from, never the value: `env:EDGESYNC_SECRET_DB`, `file:db-url`,
   * `config` (a literal of the YAML) or `live` (passed back as read). A saved plan writes this
   * reference in its place (docs/ci.md, Saved plans).
   */
  readonly source: string;

  constructor(value: string, source = 'config') {
    this.#value = value;
    this.source = source;
  }

  /** The real value, for comparisons and the request body; never for output. */
  reveal(): string {
    return this.#value;
  }

  toJSON(): string {
    return revealing ? this.#value : SENSITIVE;
  }

  toString(): string {
    return SENSITIVE;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return SENSITIVE;
  }
}

/**
 * `JSON.stringify(value)` with every SensitiveValue inside written as its real value: the
 * serialisation of a request body on its way to the API, and nothing else. Synchronous, so no
 * other serialisation can run while it reveals.
 */
export function stringifyRevealing(value: unknown): string {
  revealing = true;
  try {
    return JSON.stringify(value);
  } finally {
    revealing = false;
  }
}

/** The real value of a string or a SensitiveValue. */
export function revealed(value: string | SensitiveValue): string {
  return typeof value === 'string' ? value : value.reveal();
}

/** The real values of every SensitiveValue inside `value` (objects and arrays, any depth). */
export function sensitiveValuesIn(value: unknown, out: string[] = []): string[] {
  if (value instanceof SensitiveValue) {
    if (value.reveal() !== '') out.push(value.reveal());
  } else if (Array.isArray(value)) {
    for (const item of value) sensitiveValuesIn(item, out);
  } else if (typeof value === 'object' && value !== null) {
    for (const key in value) sensitiveValuesIn((value as Record<string, unknown>)[key], out);
  }
  return out;
}

/**
 * `text` with every occurrence of a sensitive value of `carrier` (a request, a list of them)
 * replaced by `(sensitive)`: an API that quotes the body it refused must not put a secret in
 * an error message, the audit log or /status.
 */
export function redactSensitive(text: string, carrier: unknown): string {
  let out = text;
  // Longest first, so a secret that contains another is cut whole.
  for (const secret of sensitiveValuesIn(carrier).sort((a, b) => b.length - a.length)) {
    out = out.split(secret).join(SENSITIVE);
  }
  return out;
}
