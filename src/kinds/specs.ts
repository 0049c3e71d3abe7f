/**
 * The desired-state schema of every kind, keyed by kind name. The config loader imports only
 * this file from `kinds/`, so loading YAML never pulls in HTTP code.
 */
import { accessListSpec } from './access-list/spec.js';
import type { KindSpecModule } from './common/spec-module.js';
import { containerAppSpec } from './container-app/spec.js';
import { dnsZoneSpec } from './dns-zone/spec.js';
import { managedAccessListSpec } from './managed-access-list/spec.js';
import { shieldZoneSpec } from './shield-zone/spec.js';
import type { KindName } from './types.js';
import { wafCustomRuleSpec } from './waf-custom-rule/spec.js';

export { KIND_NAMES, type KindName } from './types.js';

export const KIND_SPECS: Readonly<Record<KindName, KindSpecModule>> = {
  WafCustomRule: wafCustomRuleSpec as KindSpecModule,
  AccessList: accessListSpec as KindSpecModule,
  ManagedAccessList: managedAccessListSpec as KindSpecModule,
  ContainerApp: containerAppSpec as KindSpecModule,
  DnsZone: dnsZoneSpec as KindSpecModule,
  ShieldZone: shieldZoneSpec as KindSpecModule,
};
