/**
 * The JSON Schema of a desired-state document, generated from the same zod schemas the
 * loader validates with, for editors (yaml-language-server) and `edgesync schema`.
 *
 * It describes what may be *written* (zod's input side): enum fields list their names and
 * integers, string enums their values. Rules a JSON Schema cannot express (cross-field
 * checks, entriesFile contents, uniqueness across documents) are left to `edgesync validate`.
 */
import { z } from 'zod';
import { enumFieldRegistry, stringEnumRegistry } from '../kinds/common/fields.js';
import { API_VERSION, DocumentSpec } from './envelope.js';

/** `abc` → `[Aa][Bb][Cc]`: JSON Schema patterns have no case-insensitive flag. */
function caseInsensitivePattern(word: string): string {
  let out = '';
  for (const ch of word) {
    const lower = ch.toLowerCase();
    const upper = ch.toUpperCase();
    out += lower === upper ? ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : `[${upper}${lower}]`;
  }
  return out;
}

/**
 * Generates the schema (draft 2020-12). A document is `anyOf` one envelope per kind, each
 * with `kind` as a const, so an editor narrows to the right spec as soon as `kind` is typed.
 */
export function desiredStateJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(DocumentSpec, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
    override(ctx) {
      const json = ctx.jsonSchema as Record<string, unknown>;
      // zod names its string checks as formats ("starts_with"); JSON Schema validators reject
      // formats they do not know, and the pattern beside it already says the same thing.
      if (json.format === 'starts_with' || json.format === 'regex') delete json.format;
      const enumMeta = enumFieldRegistry.get(ctx.zodSchema as never);
      if (enumMeta !== undefined) {
        const names = Object.keys(enumMeta.table);
        const values = Object.values(enumMeta.table);
        for (const key of Object.keys(json)) delete json[key];
        json.description = `${enumMeta.enumName}: a name (any casing) or its integer`;
        json.anyOf = [
          { type: 'string', enum: names },
          {
            type: 'string',
            pattern: `^\\s*(?:${names.map(caseInsensitivePattern).join('|')}|${values.join('|')})\\s*$`,
          },
          { type: 'integer', enum: values },
        ];
        return;
      }
      const stringMeta = stringEnumRegistry.get(ctx.zodSchema as never);
      if (stringMeta !== undefined) {
        for (const key of Object.keys(json)) delete json[key];
        json.description = `${stringMeta.label}: one of ${stringMeta.values.join(', ')} (any casing)`;
        json.anyOf = [
          { type: 'string', enum: [...stringMeta.values] },
          {
            type: 'string',
            pattern: `^\\s*(?:${stringMeta.values.map(caseInsensitivePattern).join('|')})\\s*$`,
          },
        ];
      }
    },
  }) as Record<string, unknown>;
  return {
    $schema: schema.$schema,
    title: `edgesync desired state (${API_VERSION})`,
    description:
      'One document of an edgesync config directory. `edgesync validate` checks more than this schema can (cross-field and cross-document rules, entriesFile contents).',
    ...Object.fromEntries(Object.entries(schema).filter(([key]) => key !== '$schema')),
  };
}

/** The schema as the text `edgesync schema` prints and config-examples/schema holds. */
export function desiredStateJsonSchemaText(): string {
  return `${JSON.stringify(desiredStateJsonSchema(), null, 2)}\n`;
}
