/**
 * The desired-state half of a resource kind: what the config loader needs and nothing that
 * speaks HTTP. Each kind's `spec.ts` exports one of these; `src/kinds/specs.ts` lists them.
 */
import type { z } from 'zod';
import type { KindName } from '../types.js';

/** A path inside a document's `spec`, as zod and the yaml Document use it. */
type SpecPath = readonly (string | number)[];

/** What `resolve` may ask of the loader: file access confined to the config dir, and issue reporting. */
export interface ResolveContext {
  /**
   * Reads a text file named relative to the YAML file that declares it. Reports an issue at
   * `at` and returns undefined when the file is missing, escapes the config dir or is not UTF-8.
   */
  readRelativeFile(relativePath: string, at: SpecPath): string | undefined;
  /** Reports a validation problem at a path inside `spec`. */
  issue(at: SpecPath, message: string): void;
  /** Reports something worth knowing that does not block (printed by `validate`, never fatal). */
  warn(at: SpecPath, message: string): void;
}

export interface KindSpecModule<Parsed = unknown, Canonical = unknown> {
  readonly kind: KindName;
  /** Strict schema of `spec` (unknown keys are errors); enums come out as integers. */
  readonly schema: z.ZodType<Parsed>;
  /** Turns the parsed spec into the canonical form the engine diffs (reads entriesFile, etc.). */
  resolve(parsed: Parsed, ctx: ResolveContext): Canonical;
  /**
   * The live object a spec pins by id, in the words a conflict shows users (`custom WAF rule
   * (id 7)`); two documents with the same kind and target are an error. Undefined when the
   * document names no id (it is found by its natural key).
   */
  target(spec: Canonical): string | undefined;
  /** Where in `spec` the target is named, so a target conflict points at that line. */
  targetPath(spec: Canonical): SpecPath;
  /**
   * The natural key that finds or creates the live object of a document without an id (docs/design.md,
   * Identity): unique per Shield Zone across the directory, so two documents never claim one object.
   * Documents that pin an id have none here (a live zone may hold two objects of one name);
   * a pinned and a keyed document that meet on one object are refused at plan time.
   */
  naturalKey?(
    spec: Canonical,
  ): { readonly key: string; readonly label: string; readonly path: SpecPath } | undefined;
  /** The Shield Zone written to, if any: writes to one zone are serialised. */
  shieldZoneId(spec: Canonical): number | undefined;
  /**
   * Other names of the live object that documents of any kind may use (an access list's
   * `configurationId`, `live-keys.ts`), and where each is written: two documents with one
   * are an error, whatever their kinds.
   */
  aliases?(spec: Canonical): readonly { readonly key: string; readonly path: SpecPath }[];
}
