/**
 * `ShieldZone` desired state: which custom objects of a Shield Zone edgesync owns whole
 * (docs/design.md, Identity). It writes nothing itself: with `--prune`, an `exclusive` zone's custom rules
 * (or lists) that no document claims and no `ignore` glob matches are deleted, whether or not
 * the state's inventory knows them, so ownership survives a lost state directory.
 */
import picomatch from 'picomatch';
import { z } from 'zod';
import { IntId } from '../common/fields.js';
import type { KindSpecModule } from '../common/spec-module.js';

const Ownership = z.enum(['exclusive', 'shared'], { error: 'must be exclusive or shared' });

/** A glob matched against a rule's ruleName or a list's name (picomatch syntax). */
const IgnoreGlob = z
  .string()
  .min(1, 'must not be empty')
  .superRefine((glob, ctx) => {
    try {
      picomatch.makeRe(glob);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: `not a glob: ${(err as Error).message}` });
    }
  });

/** Strict schema of the `spec` of a ShieldZone document (unknown keys are errors). */
export const ShieldZoneSpec = z.strictObject({
  shieldZoneId: IntId,
  /** `exclusive`: with --prune, unclaimed custom WAF rules of the zone are deleted. Default shared. */
  customWafRules: Ownership.default('shared'),
  /** `exclusive`: with --prune, unclaimed custom access lists of the zone are deleted. Default shared. */
  customAccessLists: Ownership.default('shared'),
  /** Names (ruleName / list name) never pruned, as globs: `legacy-*`, `Team ?`. */
  ignore: z.array(IgnoreGlob).default([]),
});
/** The parsed (output) form of ShieldZoneSpec: defaults applied. */
export type ShieldZoneSpec = z.infer<typeof ShieldZoneSpec>;

/** A matcher for a zone's `ignore` globs; names are matched whole (spaces and slashes included). */
export function ignoreMatcher(spec: ShieldZoneSpec): (name: string) => boolean {
  if (spec.ignore.length === 0) return () => false;
  // Names are not paths: `*` must match across `/` too, and dot-names are names like others.
  const match = picomatch(spec.ignore, { dot: true, bash: true });
  return (name) => match(name);
}

/** The ShieldZone kind as the config loader sees it: schema, canonical form, target. */
export const shieldZoneSpec: KindSpecModule<ShieldZoneSpec, ShieldZoneSpec> = {
  kind: 'ShieldZone',
  schema: ShieldZoneSpec,
  resolve: (parsed) => parsed,
  target: (spec) => `shield-zone:${spec.shieldZoneId}`,
  targetPath: () => ['shieldZoneId'],
  // Writes nothing: not part of a zone's write lane.
  shieldZoneId: () => undefined,
};
