/**
 * `AccessList` desired state → E2 (name, content, checksum at the list id) and E3 (enabled,
 * action at the list's configuration id).
 *
 * The canonical content is what gets sent and diffed: entries trimmed, blank and `#` lines of
 * an entriesFile dropped, joined by "\n" with no trailing newline; its checksum is the
 * lowercase hex SHA-256 of the UTF-8 bytes (the PHP client's example checksum confirms this).
 */
import { z } from 'zod';
import { sha256Hex } from '../../domain/checksum.js';
import { AccessListAction, AccessListType } from '../../domain/enums.js';
import { enumField, IntId, whenValid } from '../common/fields.js';
import { listConfigurationKey } from '../common/live-keys.js';
import type { KindSpecModule, ResolveContext } from '../common/spec-module.js';
import { entryProblem } from './entries.js';

/** Strict schema of the `spec` of an AccessList document (unknown keys are errors). */
export const AccessListSpec = z
  .strictObject({
    shieldZoneId: IntId,
    /** Pins the live list; without it the list is found by name in its zone, or created (docs/design.md, Identity). */
    id: IntId.optional(),
    /** Omitted keeps the live name; required without an id (it is the list's natural key). */
    name: z.string().min(1, 'must not be empty').optional(),
    /**
     * IP, CIDR, ASN, Country, Organization or JA4 (or 0-5). Needed to create a list; the API
     * cannot change it, so a different live type is refused at plan time.
     */
    type: enumField('type', AccessListType).optional(),
    entries: z.array(z.string({ error: 'each entry must be a string' })).optional(),
    /** Path relative to the YAML file that declares it; must stay inside the config dir. */
    entriesFile: z.string().min(1).optional(),
    enabled: z.boolean().optional(),
    action: enumField('action', AccessListAction).optional(),
    /** E3 path id; resolved from the zone's access-list listing when omitted. */
    configurationId: IntId.optional(),
  })
  .refine((s) => !(s.entries !== undefined && s.entriesFile !== undefined), {
    message: 'give either entries or entriesFile, not both',
    path: ['entriesFile'],
    when: whenValid('entries', 'entriesFile'),
  })
  .refine((s) => s.id !== undefined || s.name !== undefined, {
    message: 'give an id, or a name that finds or creates the list',
    path: ['name'],
    when: whenValid('id', 'name'),
  });
/** The parsed (output) form of AccessListSpec: enums as the integers or spellings the API takes. */
export type AccessListSpec = z.infer<typeof AccessListSpec>;

/** The canonical form the engine diffs. `content`/`checksum` are absent when content is unmanaged. */
export interface AccessListCanonical {
  shieldZoneId: number;
  /** Absent: the list is found by `name` in its zone, or created. */
  id?: number;
  name?: string;
  type?: number;
  content?: string;
  checksum?: string;
  entryCount?: number;
  enabled?: boolean;
  action?: number;
  configurationId?: number;
}

/**
 * Canonical lines of access-list content as the API may hold it: split on newlines (CRLF
 * too), trimmed, blank lines dropped. Used for live content, so a trailing newline or a blank
 * line added out of band never makes a diff that returns after every apply.
 */
export function canonicalLines(content: string): string[] {
  return content
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** Canonical content of live text: `canonicalLines` joined by "\n". */
export function canonicalContent(content: string): string {
  return canonicalLines(content).join('\n');
}

/** One canonical entry and where it was written, so a duplicate can point at both copies. */
interface Entry {
  readonly value: string;
  /** Index in `entries`, or 1-based line in the entriesFile. */
  readonly at: number;
}

function resolveEntries(spec: AccessListSpec, ctx: ResolveContext): Entry[] | undefined {
  if (spec.entries !== undefined) {
    const entries: Entry[] = [];
    for (const [index, raw] of spec.entries.entries()) {
      const entry = raw.trim();
      if (entry === '') ctx.issue(['entries', index], 'entry is empty');
      else if (/[\r\n]/.test(entry)) ctx.issue(['entries', index], 'entry contains a newline');
      else entries.push({ value: entry, at: index });
    }
    return entries;
  }
  if (spec.entriesFile !== undefined) {
    const text = ctx.readRelativeFile(spec.entriesFile, ['entriesFile']);
    if (text === undefined) return undefined;
    const entries: Entry[] = [];
    for (const [index, line] of text.split(/\r?\n/).entries()) {
      const entry = line.trim();
      if (entry !== '' && !entry.startsWith('#')) entries.push({ value: entry, at: index + 1 });
    }
    return entries;
  }
  return undefined;
}

/** Most wrong entries reported per list: a file that is not a list at all gets a summary, not 100,000 lines. */
const MAX_ENTRY_ISSUES = 10;

/**
 * Checks every entry against the declared type (none declared: nothing to check). The entry
 * itself is not repeated in the message: what a file that is not a list holds is nobody's
 * business, and its line is enough to find it.
 */
function checkEntryTypes(spec: AccessListSpec, entries: readonly Entry[], ctx: ResolveContext): void {
  if (spec.type === undefined) return;
  let wrong = 0;
  for (const entry of entries) {
    const problem = entryProblem(spec.type, entry.value);
    if (problem === undefined) continue;
    wrong += 1;
    if (wrong > MAX_ENTRY_ISSUES) continue;
    if (spec.entriesFile !== undefined)
      ctx.issue(['entriesFile'], `entry on line ${entry.at} of ${spec.entriesFile} ${problem}`);
    else ctx.issue(['entries', entry.at], `entry ${problem}`);
  }
  if (wrong > MAX_ENTRY_ISSUES) {
    ctx.issue(
      spec.entriesFile !== undefined ? ['entriesFile'] : ['entries'],
      `${wrong - MAX_ENTRY_ISSUES} more entries do not fit the list's type (${wrong} in all)`,
    );
  }
}

function resolveAccessList(spec: AccessListSpec, ctx: ResolveContext): AccessListCanonical {
  const canonical: AccessListCanonical = { shieldZoneId: spec.shieldZoneId };
  if (spec.id !== undefined) canonical.id = spec.id;
  if (spec.name !== undefined) canonical.name = spec.name;
  if (spec.type !== undefined) canonical.type = spec.type;
  const entries = resolveEntries(spec, ctx);
  if (entries !== undefined) {
    checkEntryTypes(spec, entries, ctx);
    // A duplicate is an error, not silently dropped: the API would keep both lines.
    const seen = new Map<string, number>();
    for (const entry of entries) {
      const first = seen.get(entry.value);
      if (first === undefined) {
        seen.set(entry.value, entry.at);
      } else if (spec.entriesFile !== undefined) {
        ctx.issue(
          ['entriesFile'],
          `duplicate entry ${JSON.stringify(entry.value)} on line ${entry.at} of ${spec.entriesFile} (first on line ${first})`,
        );
      } else {
        ctx.issue(
          ['entries', entry.at],
          `duplicate entry ${JSON.stringify(entry.value)} (first at index ${first})`,
        );
      }
    }
    const values = entries.map((entry) => entry.value);
    canonical.content = values.join('\n');
    canonical.checksum = sha256Hex(canonical.content);
    canonical.entryCount = values.length;
  }
  if (spec.enabled !== undefined) canonical.enabled = spec.enabled;
  if (spec.action !== undefined) canonical.action = spec.action;
  if (spec.configurationId !== undefined) canonical.configurationId = spec.configurationId;
  return canonical;
}

/** The AccessList kind as the config loader sees it: schema, canonical form, target. */
export const accessListSpec: KindSpecModule<AccessListSpec, AccessListCanonical> = {
  kind: 'AccessList',
  schema: AccessListSpec,
  resolve: resolveAccessList,
  target: (spec) =>
    spec.id === undefined
      ? undefined
      : `custom access list (id ${spec.id} in Shield Zone ${spec.shieldZoneId})`,
  targetPath: () => ['id'],
  naturalKey: (spec) =>
    spec.id !== undefined || spec.name === undefined
      ? undefined
      : {
          key: `shield-zone:${spec.shieldZoneId}/access-list-name:${spec.name}`,
          label: `custom access list name ${JSON.stringify(spec.name)} in Shield Zone ${spec.shieldZoneId}`,
          path: ['name'],
        },
  shieldZoneId: (spec) => spec.shieldZoneId,
  aliases: (spec) =>
    spec.configurationId === undefined
      ? []
      : [{ key: listConfigurationKey(spec.shieldZoneId, spec.configurationId), path: ['configurationId'] }],
};
