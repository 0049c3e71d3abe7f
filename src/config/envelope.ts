/**
 * The envelope every desired-state document shares: `apiVersion`, `kind`, `metadata` and a
 * `spec` checked by the kind's own schema. Strict at every level: an unknown key is an error.
 */
import { z } from 'zod';
import { KIND_NAMES, KIND_SPECS, type KindName } from '../kinds/specs.js';

/** The only apiVersion this edgesync reads. */
export const API_VERSION = 'edgesync/v1';

/** metadata.name: lowercase letters, digits and `-`, starting with a letter or digit (docs/design.md, Desired state). */
export const RESOURCE_NAME_PATTERN = /^[a-z0-9]([-a-z0-9]*)$/;

/** Longest metadata.name: Kubernetes' object-name limit, so names fit wherever those fit. */
const MAX_NAME_LENGTH = 253;

/** `metadata` of every document: name (unique per kind), suspend, drift. Strict. */
export const MetadataSpec = z.strictObject({
  name: z
    .string()
    .min(1, { message: 'must not be empty', abort: true })
    .max(MAX_NAME_LENGTH, `must be at most ${MAX_NAME_LENGTH} characters`)
    .regex(
      RESOURCE_NAME_PATTERN,
      'must be lowercase letters, digits and "-", starting with a letter or digit',
    ),
  /** true: never written (still shown in plans). */
  suspend: z.boolean().optional(),
  /** report: audit only, never written. */
  drift: z.enum(['correct', 'report']).optional(),
});
/** Parsed metadata, defaults not yet applied. */
export type MetadataSpec = z.infer<typeof MetadataSpec>;

const ApiVersion = z.literal(API_VERSION, {
  error: (iss) =>
    iss.input === undefined
      ? undefined
      : `unsupported apiVersion ${JSON.stringify(iss.input)}; expected ${API_VERSION}`,
});

/** The strict envelope of one kind, its spec checked by that kind's schema. */
function envelopeOf<K extends KindName>(kind: K) {
  return z.strictObject({
    apiVersion: ApiVersion,
    kind: z.literal(kind),
    metadata: MetadataSpec,
    spec: KIND_SPECS[kind].schema,
  });
}

/** Per kind, the schema of a whole document of that kind. */
export const KIND_ENVELOPES = Object.fromEntries(
  KIND_NAMES.map((kind): [KindName, z.ZodType] => [kind, envelopeOf(kind)]),
) as Readonly<Record<KindName, z.ZodType>>;

/**
 * For a document whose kind is missing or unknown: the rest of the envelope is still checked,
 * so a typo in `kind` does not hide a wrong apiVersion or a bad name. The kind problem itself
 * is reported by the loader, which can name the kinds that exist.
 */
export const UnknownKindEnvelope = z.strictObject({
  apiVersion: ApiVersion,
  kind: z.unknown().optional(),
  metadata: MetadataSpec,
  spec: z.unknown(),
});

/** The message for a `kind` that is missing or not one of KIND_NAMES. */
export function unknownKindMessage(kind: unknown): string {
  if (kind === undefined) return 'is required';
  const near = KIND_NAMES.find(
    (name) => typeof kind === 'string' && name.toLowerCase() === kind.toLowerCase(),
  );
  if (near !== undefined)
    return `unknown kind ${JSON.stringify(kind)}; did you mean ${near}? (kinds are case-sensitive)`;
  return `unknown kind ${JSON.stringify(kind)}; expected one of ${KIND_NAMES.join(', ')}`;
}

/** Every document, as one union (the JSON Schema's top level). */
export const DocumentSpec = z.union(KIND_NAMES.map((kind) => KIND_ENVELOPES[kind]));
