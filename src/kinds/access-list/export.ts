/**
 * Export of `AccessList`: every custom list of a Shield Zone with its content (one GET per
 * list: the listing has none) and its configuration (`enabled`, `action`) from the listing.
 * Entries are written in the canonical form the plan compares: trimmed, blank lines dropped,
 * so a live trailing newline exports as nothing and plans as nothing. A list whose name is
 * unique in its zone is written without its id (it adopts by name) and with its type (so it
 * can be re-created).
 */
import type { AccessListDetailsWire, CustomAccessListWire } from '../../api/wire/shield.js';
import { AccessListAction, AccessListType } from '../../domain/enums.js';
import { readZoneAccessLists } from '../common/access-lists.js';
import { compact } from '../common/diff.js';
import { type ExportedSpec, type KindExporter, optionalEnumName, uniqueNames } from '../common/export.js';
import { entryProblem } from './entries.js';
import { canonicalLines } from './spec.js';

/**
 * One custom list in the desired-state format. A repeated entry is written once, with a
 * warning: the format refuses duplicates, so the plan of the export then removes the copies.
 */
function accessListToSpec(
  shieldZoneId: number,
  details: AccessListDetailsWire,
  list: CustomAccessListWire,
  byKey = false,
): ExportedSpec {
  const lines = canonicalLines(list.content ?? '');
  const entries = [...new Set(lines)];
  const name = list.name ?? details.name ?? '';
  const warnings =
    entries.length === lines.length
      ? []
      : [
          `access list ${details.listId} (${JSON.stringify(name)}) repeats ${lines.length - entries.length} of its entries; ` +
            'the export lists each once, so its plan removes the copies',
        ];
  const spec = compact({
    shieldZoneId,
    id: byKey ? undefined : details.listId,
    name: name === '' ? undefined : name,
    type: exportedType(list.type ?? details.type, entries),
    entries,
    enabled: details.isEnabled,
    action: optionalEnumName(AccessListAction, details.action),
  });
  return { kind: 'AccessList', liveName: name, id: details.listId, spec, warnings };
}

/**
 * The list's type by name, so the document can re-create the list; left out when a live entry
 * does not fit it (an address in a CIDR list), since the loader checks entries against a
 * declared type and the export must validate.
 */
function exportedType(type: number | null | undefined, entries: readonly string[]): string | undefined {
  if (type === null || type === undefined) return undefined;
  if (entries.some((entry) => entryProblem(type, entry) !== undefined)) return undefined;
  return optionalEnumName(AccessListType, type);
}

/** Every custom list of a Shield Zone; the listing is shared with ManagedAccessList. */
export const accessListExporter: KindExporter<'shieldZone'> = {
  kind: 'AccessList',
  scope: 'shieldZone',
  async read(shieldZoneId, ctx) {
    const listing = await readZoneAccessLists(shieldZoneId, ctx);
    const unique = uniqueNames((listing.customLists ?? []).map((details) => details.name ?? ''));
    return Promise.all(
      (listing.customLists ?? []).map(async (details) => {
        const list = await ctx.limit(() =>
          ctx.api.getCustomAccessList(shieldZoneId, details.listId, { signal: ctx.signal }),
        );
        return accessListToSpec(shieldZoneId, details, list, unique.has(details.name ?? ''));
      }),
    );
  },
};
