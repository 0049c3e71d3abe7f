/**
 * zod building blocks shared by the desired-state schemas of every kind.
 *
 * Enum fields accept the seed's names (any casing) or their integers and always output the
 * integer, so the canonical form the engine diffs is numeric; plans print names again.
 *
 * Type errors ("expected a number, got string", "is required") are worded by the config
 * loader's error map, so a schema only carries a message where it can say more than that.
 */
import { z } from 'zod';
import { type EnumTable, enumValue } from '../../domain/enums.js';

/** Positive integer id in JSON's safe range (ids above 2^53-1 cannot round-trip a JS number). */
export const IntId = z
  .number()
  // First, and final: such a number is not even an integer to zod (it is not "safe").
  .max(Number.MAX_SAFE_INTEGER, {
    message: 'is above 2^53-1, which edgesync cannot represent exactly',
    abort: true,
  })
  .int('must be an integer id')
  .positive('must be a positive id');

/** Registry of the enum tables behind enum fields, so JSON Schema generation can list names. */
export const enumFieldRegistry = z.registry<{
  enumName: string;
  table: EnumTable;
  forbidden?: readonly number[];
}>();

/** Registry of the case-insensitive string enums, so JSON Schema generation can list the values. */
export const stringEnumRegistry = z.registry<{ label: string; values: readonly string[] }>();

function article(word: string): string {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}

/**
 * An integer enum given by name (case-insensitive) or by number; outputs the number.
 * `forbidden` lists integers that get their own message (the operator values 10, 11, 13, 16),
 * whether written as a YAML number or as a string of digits.
 */
export function enumField(enumName: string, table: EnumTable, forbidden: readonly number[] = []) {
  const names = Object.keys(table);
  const schema = z
    .union([z.number(), z.string()], {
      error: `must be ${article(enumName)} ${enumName} name or integer`,
    })
    .transform((input, ctx) => {
      const value = enumValue(table, input);
      if (value !== undefined) return value;
      const asNumber =
        typeof input === 'number' ? input : /^\s*\d+\s*$/.test(input) ? Number(input) : Number.NaN;
      ctx.issues.push({
        code: 'custom',
        input,
        message: forbidden.includes(asNumber)
          ? `${enumName} ${asNumber} is not allowed (the API refuses ${forbidden.join(', ')})`
          : `unknown ${enumName} ${JSON.stringify(input)}; expected one of ${names.join(', ')}`,
      });
      return z.NEVER;
    });
  enumFieldRegistry.add(schema, { enumName, table, forbidden });
  return schema;
}

/** A string enum compared case-insensitively; outputs the canonical spelling from `values`. */
export function caseInsensitiveEnum<const T extends readonly string[]>(label: string, values: T) {
  const schema = z.string({ error: `must be one of ${values.join(', ')}` }).transform((input, ctx) => {
    const found = values.find((v) => v.toLowerCase() === input.trim().toLowerCase());
    if (found !== undefined) return found as T[number];
    ctx.issues.push({
      code: 'custom',
      input,
      message: `unknown ${label} ${JSON.stringify(input)}; expected one of ${values.join(', ')}`,
    });
    return z.NEVER;
  });
  stringEnumRegistry.add(schema, { label, values });
  return schema;
}

/**
 * `when` option for object-level refinements: run the check even though other fields have
 * problems, as long as the fields it reads are valid. zod skips refinements once any issue
 * exists, which would hide e.g. "give either entries or entriesFile" behind an unrelated typo;
 * the loader promises every problem at once.
 */
export function whenValid(...keys: readonly string[]) {
  return (payload: { issues: readonly { code?: string; path?: readonly PropertyKey[] }[] }): boolean =>
    !payload.issues.some((issue) => {
      // An unknown key says nothing about the fields the check reads.
      if (issue.code === 'unrecognized_keys') return false;
      const first = issue.path?.[0];
      return first === undefined || keys.includes(String(first));
    });
}

/** Rejects a list whose items repeat a key; `what` names the key in the message. */
export function uniqueBy<T>(
  items: readonly T[],
  key: (item: T) => string,
  what: string,
  ctx: z.RefinementCtx,
  path: (string | number)[] = [],
): void {
  const seen = new Map<string, number>();
  for (const [index, item] of items.entries()) {
    const k = key(item);
    const first = seen.get(k);
    if (first === undefined) {
      seen.set(k, index);
    } else {
      ctx.addIssue({
        code: 'custom',
        path: [...path, index],
        message: `duplicate ${what} ${JSON.stringify(k)} (first at index ${first})`,
      });
    }
  }
}
