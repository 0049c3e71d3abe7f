/**
 * Declared-fields diff, shared by every kind: only keys the desired value defines are
 * compared, so anything the YAML leaves out is left to the API. Arrays are compared whole
 * unless a kind diffs them by key itself.
 */
import { isDeepStrictEqual } from 'node:util';
import type { FieldDiff } from '../../engine/types.js';

/** Formats a value for display (enum integers to names, etc.). */
export type DisplayFn = (path: string, value: unknown) => unknown;

const identity: DisplayFn = (_path, value) => value;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Joins a path and a key: `a` + `b` → `a.b`; `` + `b` → `b`. */
export function joinPath(base: string, key: string): string {
  return base === '' ? key : `${base}.${key}`;
}

/**
 * Appends to `out` one FieldDiff per declared leaf of `desired` that differs from `live`.
 * Objects recurse into the keys `desired` defines; anything else (scalars, arrays) is compared
 * with deep equality at its own path.
 */
export function diffDeclared(
  desired: unknown,
  live: unknown,
  path: string,
  out: FieldDiff[],
  display: DisplayFn = identity,
): void {
  if (desired === undefined) return;
  if (isPlainObject(desired) && isPlainObject(live)) {
    for (const [key, value] of Object.entries(desired)) {
      diffDeclared(value, live[key], joinPath(path, key), out, display);
    }
    return;
  }
  if (isPlainObject(desired) && (live === undefined || live === null)) {
    // The live object lacks the whole sub-object: every declared leaf is new.
    for (const [key, value] of Object.entries(desired)) {
      diffDeclared(value, undefined, joinPath(path, key), out, display);
    }
    return;
  }
  if (!isDeepStrictEqual(desired, live)) {
    out.push({ path, live: display(path, live), desired: display(path, desired) });
  }
}

/**
 * Deep-merges `overlay` onto `base`: keys the overlay defines win, objects merge recursively,
 * arrays and scalars replace. Used to fill a request from live values the YAML leaves out.
 */
export function overlay<T>(base: T, over: unknown): T {
  if (over === undefined) return base;
  if (!isPlainObject(base) || !isPlainObject(over)) return over as T;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value !== undefined) merged[key] = overlay(merged[key], value);
  }
  return merged as T;
}

/** Removes keys whose value is undefined, recursively, so requests and plans stay exact. */
export function compact<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => compact(item)) as T;
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v !== undefined) out[key] = compact(v);
  }
  return out as T;
}
