/**
 * `ShieldZone`: a declaration of ownership, not an object edgesync writes. Its read and plan
 * are empty; the engine's prune step (engine/prune.ts) reads `customWafRules`,
 * `customAccessLists` and `ignore` from the desired documents.
 */
import type { KindPlan, LiveRead, ResourceKind } from '../common/kind.js';
import { found } from '../common/read.js';
import type { DesiredResource } from '../types.js';
import { type ShieldZoneSpec, shieldZoneSpec } from './spec.js';

const NOTHING: KindPlan = { diffs: [], requests: [] };

export const shieldZoneKind: ResourceKind<ShieldZoneSpec, null> = {
  kind: 'ShieldZone',
  spec: shieldZoneSpec as ResourceKind<ShieldZoneSpec>['spec'],
  readsLive: false,
  async readLive(resources: readonly DesiredResource<ShieldZoneSpec>[]) {
    return new Map<string, LiveRead<null>>(resources.map((r) => [r.subject, found(null)]));
  },
  plan: () => NOTHING,
};
