/**
 * zod schemas for the API's integer enums, built from the seed tables in `src/domain`.
 * The real API takes integers only (the enums are `type: integer` in the spec), so a name
 * such as "Block" is a type error here, unlike in the seed file and the desired state.
 */
import { z } from 'zod';
import type { EnumTable } from '../../domain/enums.js';

/** "1 (Block), 2 (Log), …": the allowed values, for messages. */
export function describeEnum(table: EnumTable): string {
  return Object.entries(table)
    .map(([name, value]) => `${value} (${name})`)
    .join(', ');
}

/**
 * An integer that must be a member of `table`. `note` is appended to the message, e.g. to
 * say that the seed forbids some values explicitly.
 */
export function intEnum(field: string, table: EnumTable, note = ''): z.ZodType<number> {
  const allowed = new Set(Object.values(table));
  const message = `The value of ${field} must be one of ${describeEnum(table)}.${note}`;
  return z
    .number()
    .int()
    .refine((v) => allowed.has(v), { message });
}

/**
 * A string enum matched case-insensitively and returned in its canonical spelling: the MC
 * API changed the casing of its enums over time (`Shared` → `shared`, `Tcp` → `tcp`) and
 * clients still send both (api-notes §2 E4).
 */
export function caseInsensitiveEnum<T extends string>(field: string, values: readonly T[]): z.ZodType<T> {
  const byLower = new Map(values.map((v) => [v.toLowerCase(), v]));
  const message = `The value of ${field} must be one of ${values.join(', ')}.`;
  return z.string().transform((input, ctx) => {
    const found = byLower.get(input.toLowerCase());
    if (found === undefined) {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    }
    return found;
  });
}
