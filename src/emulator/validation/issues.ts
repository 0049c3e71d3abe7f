/**
 * Turns zod issues into the API's per-field errors, worded as the real server (ASP.NET with
 * System.Text.Json) words them rather than as the schema library does, with fields spelled
 * as JSON paths: `containerTemplates[0].endpoints[1].displayName`.
 *
 * Unknown body fields: ASP.NET ignores them (api-notes quirk 6), so by default they are
 * dropped before the body is used; in strict mode (`--strict`) each one is an error.
 */
import type { z } from 'zod';
import type { FieldError } from '../replies.js';

/** `['a', 0, 'b']` → `a[0].b`; the empty path (the body itself) → `$`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? String(segment) : `.${String(segment)}`;
  }
  return out === '' ? '$' : out;
}

/** ASP.NET's display name of a property: the C# name, i.e. the JSON name with a capital. */
function displayName(path: readonly PropertyKey[]): string {
  for (let i = path.length - 1; i >= 0; i -= 1) {
    const segment = path[i];
    if (typeof segment === 'string' && segment !== '') return segment[0]?.toUpperCase() + segment.slice(1);
  }
  return 'request';
}

/** The .NET type System.Text.Json names when a JSON value does not fit. */
const CLR_TYPES: Readonly<Record<string, string>> = {
  number: 'System.Int32',
  int: 'System.Int32',
  string: 'System.String',
  boolean: 'System.Boolean',
  array: 'System.Collections.Generic.List',
  object: 'System.Object',
  record: 'System.Collections.Generic.Dictionary`2[System.String,System.String]',
};

/** zod's own wording starts like this; anything else was written for the API already. */
const LIBRARY_WORDING = /^(Invalid|Too (small|big)|Unrecognized)/;

function message(issue: z.core.$ZodIssue): string {
  const path = issue.path;
  if (issue.code === 'invalid_type') {
    if (issue.input === undefined) return `The ${displayName(path)} field is required.`;
    const clr = CLR_TYPES[issue.expected] ?? 'System.Object';
    return `The JSON value could not be converted to ${clr}. Path: ${jsonPath(path)}.`;
  }
  if (issue.code === 'custom' && typeof issue.params?.clrType === 'string') {
    const allowed = Array.isArray(issue.params.allowed)
      ? ` Allowed: ${issue.params.allowed.join(', ')}.`
      : '';
    return `The JSON value could not be converted to ${issue.params.clrType}. Path: ${jsonPath(path)}.${allowed}`;
  }
  if (!LIBRARY_WORDING.test(issue.message)) return issue.message;
  return `The field ${displayName(path)} is invalid.`;
}

/** System.Text.Json's path: `$.a[0].b`. */
function jsonPath(path: readonly PropertyKey[]): string {
  const field = fieldPath(path);
  return field === '$' ? '$' : `$.${field}`;
}

/**
 * One FieldError per problem. An unrecognised-keys issue names the object, so it is split
 * into one error per extra key, each naming the key itself: that is the field to remove.
 */
function fieldErrors(issues: readonly z.core.$ZodIssue[]): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        out.push({
          field: fieldPath([...issue.path, key]),
          message: `The JSON property '${key}' could not be mapped to any .NET member.`,
        });
      }
      continue;
    }
    out.push({ field: fieldPath(issue.path), message: message(issue) });
  }
  return out;
}

/** Result of validating one request body. */
export type Checked<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/** Deletes `keys` from the object at `path` inside `root` (a private copy of the body). */
function dropKeys(root: unknown, path: readonly PropertyKey[], keys: readonly string[]): void {
  let node: unknown = root;
  for (const segment of path) {
    if (node === null || typeof node !== 'object') return;
    node = (node as Record<PropertyKey, unknown>)[segment];
  }
  if (node === null || typeof node !== 'object') return;
  for (const key of keys) delete (node as Record<string, unknown>)[key];
}

/** Unknown keys nest at most as deep as the schema; a body cannot need more rounds than this. */
const MAX_STRIP_ROUNDS = 16;

/**
 * Runs a zod schema (written strict) and maps its issues. Lenient (the default, as ASP.NET):
 * unknown keys are removed from a copy of the body and the rest is validated again; they are
 * reported only when `strict`.
 */
export function check<T>(schema: z.ZodType<T>, input: unknown, strict = false): Checked<T> {
  let body = input;
  let copied = false;
  for (let round = 0; round < MAX_STRIP_ROUNDS; round += 1) {
    const result = schema.safeParse(body, { reportInput: true });
    if (result.success) return { ok: true, value: result.data };
    const issues = result.error.issues;
    const unknown = issues.filter((i) => i.code === 'unrecognized_keys');
    const others = issues.filter((i) => i.code !== 'unrecognized_keys');
    if (strict || unknown.length === 0 || others.length > 0) {
      return { ok: false, errors: fieldErrors(strict ? issues : others) };
    }
    if (!copied) {
      body = structuredClone(body);
      copied = true;
    }
    for (const issue of unknown) {
      if (issue.code === 'unrecognized_keys') dropKeys(body, issue.path, issue.keys);
    }
  }
  return {
    ok: false,
    errors: [{ field: '$', message: 'The request body nests unknown fields too deeply.' }],
  };
}

/** Unique-name check over a list; reports every repeat at `field(i)`. */
export function checkUnique<T>(
  items: readonly T[],
  key: (item: T) => string,
  field: (i: number) => string,
  what: string,
): FieldError[] {
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  for (const [i, item] of items.entries()) {
    const k = key(item);
    if (seen.has(k)) errors.push({ field: field(i), message: `Duplicate ${what} '${k}'.` });
    seen.add(k);
  }
  return errors;
}
