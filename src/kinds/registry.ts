/**
 * Every resource kind the engine reconciles, in apply order. Adding a kind: one folder under
 * `src/kinds/`, one line here and one in `specs.ts`, and the contract test passes for it.
 */
import { accessListKind } from './access-list/index.js';
import type { KindLifecycle, ResourceKind } from './common/kind.js';
import { containerAppKind } from './container-app/index.js';
import { dnsZoneKind } from './dns-zone/index.js';
import { managedAccessListKind } from './managed-access-list/index.js';
import { shieldZoneKind } from './shield-zone/index.js';
import type { KindName } from './types.js';
import { wafCustomRuleKind } from './waf-custom-rule/index.js';

export const KINDS: Readonly<Record<KindName, ResourceKind>> = {
  WafCustomRule: wafCustomRuleKind as ResourceKind,
  AccessList: accessListKind as ResourceKind,
  ManagedAccessList: managedAccessListKind as ResourceKind,
  ContainerApp: containerAppKind as ResourceKind,
  DnsZone: dnsZoneKind as ResourceKind,
  ShieldZone: shieldZoneKind as ResourceKind,
};

/** The lifecycle part of a kind (created, adopted, pruned), when it has one. */
export function lifecycleOf(kind: string): KindLifecycle | undefined {
  return (KINDS as Readonly<Record<string, ResourceKind | undefined>>)[kind]?.lifecycle;
}
