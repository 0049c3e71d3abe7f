/**
 * Validates replies against the real OpenAPI files (copies in test/fixtures/openapi, so a
 * fresh clone has them) with ajv. OpenAPI 3.0 is not JSON Schema: `nullable: true` becomes a
 * `null` alternative here, and the spec's custom formats (int32, int64, double, date-span,
 * byte) are registered.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';

/** The three spec files, by short name. */
const SPEC_FILES = {
  shield: 'shield-api-v1.0.0.json',
  mc: 'magic-containers-api-v1.0.0.json',
  core: 'core-api-v1.0.0.json',
} as const;
export type SpecName = keyof typeof SPEC_FILES;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const SCHEMA_MAPS = new Set(['properties', 'schemas', 'patternProperties', 'definitions']);

function isObject(value: Json): value is { [key: string]: Json } {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function convertMap(map: { [key: string]: Json }): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  for (const [name, schema] of Object.entries(map)) out[name] = convertNullable(schema);
  return out;
}

/**
 * Converts one OpenAPI 3.0 schema (recursively) to JSON Schema draft-07:
 * `{type: T, nullable: true}` → `{type: [T, 'null']}` (enums get null too), a nullable
 * `$ref`/`oneOf`/`allOf` → `anyOf: [schema, {type: 'null'}]`, a nullable schema without a
 * type (any) stays any.
 */
export function convertNullable(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(convertNullable);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable' || key === 'example' || key.startsWith('x-')) continue;
    // `properties` and `schemas` are maps *of* schemas: their keys are names, never keywords.
    out[key] = SCHEMA_MAPS.has(key) && isObject(value) ? convertMap(value) : convertNullable(value);
  }
  if (schema.nullable !== true) return out;
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
    return out;
  }
  if ('$ref' in out || 'oneOf' in out || 'allOf' in out || 'anyOf' in out) {
    return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

const fixtures = fileURLToPath(new URL('../fixtures/openapi/', import.meta.url));

/** The parsed spec file (cached). */
const specCache = new Map<SpecName, { [key: string]: Json }>();
function loadSpec(name: SpecName): { [key: string]: Json } {
  let spec = specCache.get(name);
  if (spec === undefined) {
    spec = JSON.parse(readFileSync(`${fixtures}${SPEC_FILES[name]}`, 'utf8')) as { [key: string]: Json };
    specCache.set(name, spec);
  }
  return spec;
}

// ajv-formats is CommonJS with a default export; under NodeNext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv;

let ajv: Ajv | undefined;

function ajvInstance(): Ajv {
  if (ajv !== undefined) return ajv;
  ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addFormat('double', { type: 'number', validate: () => true });
  ajv.addFormat('byte', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= 0 && n < 256,
  });
  // .NET TimeSpan text: [d.]hh:mm:ss[.fffffff]
  ajv.addFormat('date-span', /^-?(\d+\.)?\d{1,2}:\d{2}:\d{2}(\.\d{1,7})?$/);
  for (const name of Object.keys(SPEC_FILES) as SpecName[]) {
    const spec = loadSpec(name);
    ajv.addSchema({ $id: name, components: convertNullable(spec.components ?? {}) } as object);
  }
  return ajv;
}

/** A validator for a `$ref` of a spec, e.g. ('shield', '#/components/schemas/CustomWafRule'). */
export function validatorFor(spec: SpecName, ref: string): ValidateFunction {
  const validate = ajvInstance().getSchema(`${spec}${ref}`);
  if (validate === undefined) throw new Error(`no schema ${spec}${ref}`);
  return validate;
}

/**
 * The `$ref` the spec declares for one operation's reply, or undefined when it declares no
 * JSON body (e.g. E1's 500, the core API's 404).
 */
export function responseRef(
  spec: SpecName,
  path: string,
  method: string,
  status: number,
): string | undefined {
  const doc = loadSpec(spec) as {
    paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  };
  const operation = doc.paths[path]?.[method.toLowerCase()];
  if (operation === undefined) throw new Error(`${spec}: no operation ${method} ${path}`);
  const response = operation.responses[String(status)] as
    | { content?: Record<string, { schema?: { $ref?: string } }> }
    | undefined;
  if (response === undefined) throw new Error(`${spec}: ${method} ${path} declares no ${status} reply`);
  return response.content?.['application/json']?.schema?.$ref;
}

/** ajv errors as one readable string. */
export function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
    .join('\n');
}
