/**
 * zod schemas for the API's integer enums, built from the seed tables in `src/domain`.
 * The real API takes integers only (the enums are `type: integer` in the spec), so a name
 * such as "Block" is a type error here, unlike in the seed file and the desired state.
 */
import { z } from 'zod';
import type { EnumTable } from '../../domain/enums.js';

/** "1 (Block), 2 (Log), …": the allowed values, for messages. */
function describeEnum(table: EnumTable): string {
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
  const name = field.charAt(0).toUpperCase() + field.slice(1);
  const message = `The field ${name} must be one of ${describeEnum(table)}.${note}`;
  return z
    .number()
    .int()
    .refine((v) => allowed.has(v), { message });
}

/**
 * A string enum matched case-insensitively and returned in its canonical spelling: the MC
 * API changed the casing of its enums over time (`Shared` → `shared`, `Tcp` → `tcp`) and
 * clients still send both (docs/api-notes.md, Container apps). `clrType` is the spec's enum name, for messages.
 */
export function caseInsensitiveEnum<T extends string>(clrType: string, values: readonly T[]): z.ZodType<T> {
  const byLower = new Map(values.map((v) => [v.toLowerCase(), v]));
  // System.Text.Json's words for a name its enum converter does not know; the path is added
  // where the issue is mapped (validation/issues.ts), which knows it.
  const message = `The JSON value could not be converted to ${clrType}.`;
  return z.string().transform((input, ctx) => {
    const found = byLower.get(input.toLowerCase());
    if (found === undefined) {
      ctx.addIssue({ code: 'custom', message, params: { clrType } });
      return z.NEVER;
    }
    return found;
  });
}
