/**
 * Export of `ManagedAccessList`: the curated lists a Shield Zone has switched on, by `listId`.
 *
 * Only enabled lists are exported. A zone sees every curated list the platform offers, and
 * almost all of them are off because nobody chose them; pinning each of those "off" would fill
 * the repository with lists the team never decided about. The enabled ones are the choices the
 * account made. A disabled list stays unmanaged: edgesync does not touch it, and adding its
 * document later (`enabled: true`) switches it on.
 */
import type { AccessListDetailsWire } from '../../api/wire/shield.js';
import { AccessListAction } from '../../domain/enums.js';
import { readZoneAccessLists } from '../common/access-lists.js';
import { compact } from '../common/diff.js';
import { type ExportedSpec, type KindExporter, optionalEnumName } from '../common/export.js';

/** One managed list in the desired-state format (identified by `listId`, which never changes). */
function managedListToSpec(shieldZoneId: number, details: AccessListDetailsWire): ExportedSpec {
  const spec = compact({
    shieldZoneId,
    listId: details.listId,
    enabled: details.isEnabled,
    action: optionalEnumName(AccessListAction, details.action),
  });
  return { kind: 'ManagedAccessList', liveName: details.name ?? '', id: details.listId, spec, warnings: [] };
}

/** The enabled managed lists of a Shield Zone, from the listing AccessList reads too. */
export const managedAccessListExporter: KindExporter<'shieldZone'> = {
  kind: 'ManagedAccessList',
  scope: 'shieldZone',
  async read(shieldZoneId, ctx) {
    const listing = await readZoneAccessLists(shieldZoneId, ctx);
    return (listing.managedLists ?? [])
      .filter((details) => details.isEnabled)
      .map((details) => managedListToSpec(shieldZoneId, details));
  },
};
