/**
 * A Shield Zone's plan limits and its `GET /shield/shield-zone/{id}` view.
 *
 * The real limits per plan are not published (docs/api-notes.md, Still unknown): the seed can set each one
 * per zone, and the defaults below are invented but ordered as the plans are. The Basic plan
 * has no custom WAF rules at all (the API answers its creates 202, docs/api-notes.md, Custom WAF rules); its one
 * custom list is what the API's own 202 message names. OCTO assumes 1/5/10 custom lists for
 * Basic/Advanced/Business; those are the defaults here too.
 */
import { ShieldPlanType } from '../domain/enums.js';
import type { ShieldZoneRecord } from './records.js';

/** The limits in force for one zone. */
export interface ZoneLimits {
  customWafRules: number;
  customLists: number;
  customEntries: number;
  rateLimitRules: number;
}

/** Defaults by ShieldPlanType (Basic, Advanced, Business, Enterprise). */
const PLAN_LIMITS: readonly ZoneLimits[] = [
  { customWafRules: 0, customLists: 1, customEntries: 1_000, rateLimitRules: 0 },
  { customWafRules: 10, customLists: 5, customEntries: 10_000, rateLimitRules: 10 },
  { customWafRules: 25, customLists: 10, customEntries: 50_000, rateLimitRules: 25 },
  { customWafRules: 50, customLists: 20, customEntries: 250_000, rateLimitRules: 50 },
];

/** The zone's limits: what the seed set, else its plan's default. */
export function zoneLimits(zone: ShieldZoneRecord): ZoneLimits {
  const plan = PLAN_LIMITS[zone.planType] ?? (PLAN_LIMITS[ShieldPlanType.Basic] as ZoneLimits);
  return {
    customWafRules: zone.limits.customWafRules ?? plan.customWafRules,
    customLists: zone.limits.customLists ?? plan.customLists,
    customEntries: zone.limits.customEntries ?? plan.customEntries,
    rateLimitRules: zone.limits.rateLimitRules ?? plan.rateLimitRules,
  };
}

/**
 * `ShieldZoneResponse`: the fields edgesync reads (`planType`, the limits,
 * `wafCustomRuleOrder`) from the state, the rest at the values of a freshly enabled zone.
 * The custom-rule order is the zone's rules in id order, the order the listing serves.
 */
export function shieldZoneView(zone: ShieldZoneRecord): Record<string, unknown> {
  const limits = zoneLimits(zone);
  return {
    shieldZoneId: zone.id,
    pullZoneId: zone.pullZoneId,
    learningMode: false,
    learningModeUntil: null,
    wafEnabled: true,
    wafExecutionMode: 1,
    wafDisabledRules: [],
    wafLogOnlyRules: [],
    wafCustomRuleOrder: [...zone.ruleIds],
    wafRequestHeaderLoggingEnabled: false,
    requestBodyLoggingEnabled: false,
    wafRequestIgnoredHeaders: [],
    wafRealtimeThreatIntelligenceEnabled: false,
    wafProfileId: null,
    wafEngineConfig: [],
    wafRequestBodyLimitAction: 0,
    wafResponseBodyLimitAction: 0,
    rateLimitRulesLimit: limits.rateLimitRules,
    customWafRulesLimit: limits.customWafRules,
    planType: zone.planType,
    dDoSShieldSensitivity: 2,
    dDoSExecutionMode: 1,
    dDoSChallengeWindow: null,
    whitelabelResponsePages: false,
  };
}
