/**
 * `ShieldZone`: a declaration of ownership, not an object edgesync writes. Its read and plan
 * are empty; its `exclusiveScopes` tell the engine's prune step (engine/prune.ts) which zones'
 * custom rules and lists are all edgesync's (`customWafRules`, `customAccessLists`, `ignore`).
 */
import type { ExclusiveScope, KindPlan, LiveRead, ResourceKind } from '../common/kind.js';
import { found } from '../common/read.js';
import type { DesiredResource } from '../types.js';
import { ignoreMatcher, type ShieldZoneSpec, shieldZoneSpec } from './spec.js';

const NOTHING: KindPlan = { diffs: [], requests: [] };

export const shieldZoneKind: ResourceKind<ShieldZoneSpec, null> = {
  kind: 'ShieldZone',
  spec: shieldZoneSpec as ResourceKind<ShieldZoneSpec>['spec'],
  readsLive: false,
  async readLive(resources: readonly DesiredResource<ShieldZoneSpec>[]) {
    return new Map<string, LiveRead<null>>(resources.map((r) => [r.subject, found(null)]));
  },
  plan: () => NOTHING,
  exclusiveScopes(spec) {
    const ignoredBy = ignoreMatcher(spec);
    const scopes: ExclusiveScope[] = [];
    if (spec.customWafRules === 'exclusive')
      scopes.push({ kind: 'WafCustomRule', shieldZoneId: spec.shieldZoneId, ignoredBy });
    if (spec.customAccessLists === 'exclusive')
      scopes.push({ kind: 'AccessList', shieldZoneId: spec.shieldZoneId, ignoredBy });
    return scopes;
  },
};
