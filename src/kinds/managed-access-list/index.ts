/**
 * `ManagedAccessList`: curated lists are only switched (E3); found in the zone's listing by
 * `listId` or by `name` (case-insensitive), which also gives the configuration id.
 */

import {
  type LiveConfiguration,
  liveConfiguration,
  planConfiguration,
  readZoneAccessLists,
} from '../common/access-lists.js';
import type { KindPlan, LiveRead, ReadContext, ResourceKind } from '../common/kind.js';
import { listConfigurationKey } from '../common/live-keys.js';
import { found, notFound, readByZone } from '../common/read.js';
import type { DesiredResource, FieldDiff } from '../types.js';
import { type ManagedAccessListSpec, managedAccessListSpec } from './spec.js';

export interface LiveManagedList {
  listId: number;
  name: string;
  configuration: LiveConfiguration;
}

function planManagedList(desired: DesiredResource<ManagedAccessListSpec>, live: LiveManagedList): KindPlan {
  const diffs: FieldDiff[] = [];
  const request = planConfiguration(desired.spec, live.configuration, diffs);
  return { diffs, requests: request === undefined ? [] : [request] };
}

function readManagedLists(
  resources: readonly DesiredResource<ManagedAccessListSpec>[],
  ctx: ReadContext,
): Promise<Map<string, LiveRead<LiveManagedList>>> {
  return readByZone(
    resources,
    (zoneId) => readZoneAccessLists(zoneId, ctx),
    (resource, listing, zoneId) => {
      const { listId, name } = resource.spec;
      const details = (listing.managedLists ?? []).find((l) =>
        listId !== undefined ? l.listId === listId : l.name?.toLowerCase() === name?.toLowerCase(),
      );
      if (details === undefined) {
        const what = listId !== undefined ? `id ${listId}` : `named ${JSON.stringify(name)}`;
        return notFound(resource, `managed access list ${what} is not in Shield Zone ${zoneId}`);
      }
      return found({
        listId: details.listId,
        name: details.name ?? '',
        configuration: liveConfiguration(details),
      });
    },
  );
}

export const managedAccessListKind: ResourceKind<ManagedAccessListSpec, LiveManagedList> = {
  kind: 'ManagedAccessList',
  spec: managedAccessListSpec as ResourceKind<ManagedAccessListSpec>['spec'],
  readLive: readManagedLists,
  // By listId or by name: only the listing tells that two documents found the same list.
  liveTarget: (live, desired) =>
    listConfigurationKey(desired.spec.shieldZoneId, live.configuration.configurationId),
  plan: planManagedList,
};
