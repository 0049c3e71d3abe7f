/**
 * zod's issues, reworded for people editing YAML. zod's defaults ("Invalid input: expected
 * number, received string") become `expected a number, got string`, `is required`,
 * `unknown key "foo"`; a schema's own message (e.g. "must be 1-65535") always wins.
 * These messages are part of the product: the invalid-input corpus asserts them exactly.
 */
import type { z } from 'zod';
import type { DocPath } from './issues.js';

/** A zod issue reduced to what the loader needs, before it is given a file position. */
export interface RawIssue {
  readonly path: DocPath;
  readonly message: string;
  /** Point at the key of the last path segment rather than at its value (unknown keys). */
  readonly atKey: boolean;
}

const EXPECTED_NOUNS: Readonly<Record<string, string>> = {
  number: 'a number',
  int: 'an integer',
  string: 'a string',
  boolean: 'true or false',
  object: 'a mapping',
  record: 'a mapping',
  map: 'a mapping',
  array: 'a list',
  null: 'null',
};

/** How an input value is named after "got": the YAML words for collections. */
function describeInput(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'list';
  if (typeof input === 'object') return 'mapping';
  if (typeof input === 'number' && !Number.isInteger(input)) return String(input);
  return typeof input;
}

function sizeMessage(
  bound: 'least' | 'most',
  origin: string,
  limit: number | bigint,
  inclusive: boolean,
  exact: boolean | undefined,
): string {
  if (origin === 'string') {
    if (exact) return `must be exactly ${limit} characters`;
    if (bound === 'least' && Number(limit) === 1) return 'must not be empty';
    return `must be at ${bound} ${limit} characters`;
  }
  if (origin === 'array' || origin === 'set') {
    if (exact) return `must have exactly ${limit} item${Number(limit) === 1 ? '' : 's'}`;
    if (bound === 'least' && Number(limit) === 1) return 'must not be empty';
    return `must have at ${bound} ${limit} items`;
  }
  if (!inclusive) return `must be ${bound === 'least' ? 'greater' : 'less'} than ${limit}`;
  return `must be at ${bound} ${limit}`;
}

/**
 * The per-parse zod error map: used only where a schema did not give its own message.
 * Returns a message for every issue code, so zod's English never reaches the user.
 */
export function readableError(iss: z.core.$ZodRawIssue): string {
  switch (iss.code) {
    case 'invalid_type': {
      if (iss.input === undefined) return 'is required';
      const expected = EXPECTED_NOUNS[iss.expected] ?? iss.expected;
      return `expected ${expected}, got ${describeInput(iss.input)}`;
    }
    case 'too_small':
      return sizeMessage('least', iss.origin, iss.minimum, iss.inclusive ?? true, iss.exact);
    case 'too_big':
      return sizeMessage('most', iss.origin, iss.maximum, iss.inclusive ?? true, iss.exact);
    case 'invalid_format':
      if (iss.format === 'regex' && 'pattern' in iss) return `must match ${String(iss.pattern)}`;
      if (iss.format === 'starts_with' && 'prefix' in iss)
        return `must start with ${JSON.stringify(iss.prefix)}`;
      return `is not a valid ${iss.format}`;
    case 'invalid_value':
      return iss.values.length === 1
        ? `must be ${JSON.stringify(iss.values[0])}`
        : `must be one of ${iss.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'not_multiple_of':
      return `must be a multiple of ${iss.divisor}`;
    case 'invalid_union':
      return iss.input === undefined ? 'is required' : 'does not match any allowed form';
    case 'invalid_key':
      return 'has an invalid key';
    case 'invalid_element':
      return 'has an invalid element';
    case 'unrecognized_keys':
      return `unknown key${iss.keys.length === 1 ? '' : 's'} ${iss.keys.map((k) => JSON.stringify(k)).join(', ')}`;
    default:
      return iss.message ?? 'is invalid';
  }
}

/**
 * Flattens zod's issues: one per unknown key (pointing at the key), "is required" for any
 * missing value even where a schema worded its type error itself.
 */
export function toRawIssues(issues: readonly z.core.$ZodIssue[]): RawIssue[] {
  const out: RawIssue[] = [];
  for (const issue of issues) {
    const path = [...(issue.path as (string | number)[])];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const hint = key === '<<' ? ' (YAML merge keys are not supported)' : '';
        out.push({ path: [...path, key], message: `unknown key ${JSON.stringify(key)}${hint}`, atKey: true });
      }
      continue;
    }
    // Parsed with reportInput, so a missing key shows as an issue whose input is undefined.
    const missing =
      (issue.code === 'invalid_type' || issue.code === 'invalid_union' || issue.code === 'invalid_value') &&
      'input' in issue &&
      issue.input === undefined;
    const atKey = issue.code === 'custom' && issue.params?.at === 'key';
    out.push({ path, message: missing ? 'is required' : issue.message, atKey });
  }
  return out;
}
