/**
 * `ShieldZone` desired state: which custom objects of a Shield Zone edgesync owns whole
 * (docs/design.md, Identity). It writes nothing itself: with `--prune`, an `exclusive` zone's custom rules
 * (or lists) that no document claims and no `ignore` glob matches are deleted, whether or not
 * the state's inventory knows them, so ownership survives a lost state directory.
 */
import { z } from 'zod';
import { IntId } from '../common/fields.js';
import type { KindSpecModule } from '../common/spec-module.js';

const Ownership = z.enum(['exclusive', 'shared'], { error: 'must be exclusive or shared' });

/**
 * A glob matched against a rule's ruleName or a list's name: `*` is any run of characters, `?`
 * one character, everything else is itself. Names are free text (`Legacy (old) rule`,
 * `Team [EU]`): a richer syntax (groups, classes, braces) made such names match nothing, and
 * the rule it should have protected was deleted (see docs/configuration.md, ShieldZone → ownership,
 * no request of its own).
 */
const IgnoreGlob = z.string().min(1, 'must not be empty');

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

/** A glob as a regular expression matching a whole name: only `*` and `?` are special. */
function globRegExp(glob: string): RegExp {
  let source = '';
  for (const char of glob) {
    if (char === '*') source += '[\\s\\S]*';
    else if (char === '?') source += '[\\s\\S]';
    else source += char.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'u');
}

/**
 * A matcher for a zone's `ignore` globs: the first glob that matches a name whole (spaces,
 * slashes and dots included), or undefined.
 */
export function ignoreMatcher(spec: ShieldZoneSpec): (name: string) => string | undefined {
  if (spec.ignore.length === 0) return () => undefined;
  const globs = spec.ignore.map((glob) => ({ glob, re: globRegExp(glob) }));
  return (name) => globs.find((g) => g.re.test(name))?.glob;
}

/** The ShieldZone kind as the config loader sees it: schema, canonical form, target. */
export const shieldZoneSpec: KindSpecModule<ShieldZoneSpec, ShieldZoneSpec> = {
  kind: 'ShieldZone',
  schema: ShieldZoneSpec,
  resolve: (parsed) => parsed,
  target: (spec) => `Shield Zone (id ${spec.shieldZoneId})`,
  targetPath: () => ['shieldZoneId'],
  // Writes nothing: not part of a zone's write lane.
  shieldZoneId: () => undefined,
};
