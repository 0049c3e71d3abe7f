/**
 * The canonical JSON behind every digest, and the deep freeze that makes a loaded desired
 * state immutable (it is shared by the engine, the daemon's status and the next reload).
 */
import { sha256Hex } from '../domain/checksum.js';

/**
 * JSON with object keys sorted (by UTF-16 code unit, JavaScript's default sort) at every
 * level; arrays keep their order, `undefined` members are left out as JSON.stringify does.
 * Two values that mean the same thing give the same text whatever order the YAML had.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  // Written with plain loops and string appends: this runs for every resource of every load.
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    let out = `[${canonicalJson(value[0] ?? null)}`;
    for (let i = 1; i < value.length; i += 1) out += `,${canonicalJson(value[i] ?? null)}`;
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length > 1) keys.sort();
  let out = '';
  for (const key of keys) {
    const member = record[key];
    if (member === undefined) continue;
    out += `${out === '' ? '{' : ','}${JSON.stringify(key)}:${canonicalJson(member)}`;
  }
  return out === '' ? '{}' : `${out}}`;
}

/** Lowercase hex SHA-256 of the canonical JSON of `{kind, metadata, spec}`: a resource's digest. */
export function resourceDigest(kind: string, metadata: unknown, spec: unknown): string {
  return sha256Hex(canonicalJson({ kind, metadata, spec }));
}

/**
 * A valid resource's metadata and spec as the loader keeps them, with the digest of their
 * canonical JSON. They are parsed back from that JSON rather than kept as validated: every
 * string the YAML parser returns is a slice of the file's text, and one kept slice keeps the
 * whole text alive in the daemon between runs (see docs/performance.md, Latest figures, memory). Parsed back,
 * the strings are the resource's own and the objects the most compact V8 makes.
 */
export function canonicalResource<Metadata, Spec>(
  kind: string,
  metadata: Metadata,
  spec: Spec,
): { readonly metadata: Metadata; readonly spec: Spec; readonly digest: string } {
  const json = canonicalJson({ kind, metadata, spec });
  const parsed = JSON.parse(json) as { metadata: Metadata; spec: Spec };
  return { metadata: parsed.metadata, spec: parsed.spec, digest: sha256Hex(json) };
}

/** Freezes a plain data value and everything inside it; returns it for chaining. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}
