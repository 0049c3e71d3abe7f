/**
 * Turns zod issues into the API's per-field errors, with fields spelled as the real API's
 * validation messages spell them: `containerTemplates[0].endpoints[1].displayName`.
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

/**
 * One FieldError per problem. An unrecognised-keys issue names the object, so it is split
 * into one error per extra key, each naming the key itself: that is the field to remove.
 */
export function fieldErrors(issues: readonly z.core.$ZodIssue[]): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        out.push({ field: fieldPath([...issue.path, key]), message: `Unknown property '${key}'.` });
      }
      continue;
    }
    out.push({ field: fieldPath(issue.path), message: issue.message });
  }
  return out;
}

/** Result of validating one request body. */
export type Checked<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/** Runs a zod schema and maps its issues. */
export function check<T>(schema: z.ZodType<T>, input: unknown): Checked<T> {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, errors: fieldErrors(result.error.issues) };
}
