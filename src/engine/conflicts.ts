/**
 * Two documents that reach one live object in ways the loader cannot compare (a managed list
 * by `listId` and another by `name`) are found here, once the reads have shown which object
 * each one reached: both would write it, each undoing the other on every run. Both become
 * errors naming the other, and nothing is sent for either. Pure, like the plan that calls it.
 */

import { issueLocation } from '../config/issues.js';
import type { DesiredResource } from '../config/types.js';
import { KINDS } from '../kinds/registry.js';
import type { PlanError } from '../kinds/types.js';
import type { LiveSnapshot } from './read.js';

/** Subject → the error of each resource whose live object another resource also reached. */
export function liveConflicts(
  resources: readonly DesiredResource[],
  snapshot: LiveSnapshot,
): Map<string, PlanError> {
  const byObject = new Map<string, DesiredResource[]>();
  for (const resource of resources) {
    const read = snapshot.reads.get(resource.subject);
    if (read?.lookup.status !== 'found') continue;
    const key = KINDS[resource.kind].liveTarget?.(read.lookup.live, resource);
    if (key === undefined) continue;
    const sharing = byObject.get(key);
    if (sharing === undefined) byObject.set(key, [resource]);
    else sharing.push(resource);
  }
  const errors = new Map<string, PlanError>();
  for (const [key, sharing] of byObject) {
    if (sharing.length < 2) continue;
    for (const resource of sharing) {
      const others = sharing
        .filter((other) => other !== resource)
        .map((other) => `${other.subject} (${issueLocation(other.source)})`)
        .join(', ');
      errors.set(resource.subject, {
        code: 'CONFIG_INVALID',
        message: `reaches the same live object (${key}) as ${others}: two documents for one object would undo each other on every run, so neither is applied; keep one`,
      });
    }
  }
  return errors;
}

/**
 * `scope` plus every resource that could reach the same live object as one of it: those of
 * the kinds that name their live object (`liveTarget`) in the same Shield Zone. A run of only
 * the changed resources must still see a new document for an object an unchanged one holds,
 * or that run would write it once before a full run refused both. Keeps `all`'s order.
 */
export function withConflictPeers(
  scope: readonly DesiredResource[],
  all: readonly DesiredResource[],
): readonly DesiredResource[] {
  const zoneOf = (resource: DesiredResource): number | undefined => {
    const kind = KINDS[resource.kind];
    return kind.liveTarget === undefined ? undefined : kind.spec.shieldZoneId(resource.spec);
  };
  const zones = new Set(scope.map(zoneOf).filter((zone) => zone !== undefined));
  if (zones.size === 0) return scope;
  const inScope = new Set(scope.map((resource) => resource.subject));
  return all.filter((resource) => {
    if (inScope.has(resource.subject)) return true;
    const zone = zoneOf(resource);
    return zone !== undefined && zones.has(zone);
  });
}
