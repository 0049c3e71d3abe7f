/** Wire schemas of the Shield area (`/shield`, camelCase). */
import { z } from 'zod';
import { envelope, GenericRequestResponseWire, WireInt } from './common.js';

const VariableTypesWire = z.record(z.string(), z.string().nullable()).nullish();

export const ChainedRuleConditionWire = z.object({
  variableTypes: VariableTypesWire,
  operatorType: WireInt.nullish(),
  value: z.string().nullish(),
  isNegated: z.boolean().nullish(),
  isRegexVariable: z.boolean().nullish(),
});
export type ChainedRuleConditionWire = z.infer<typeof ChainedRuleConditionWire>;

const RuleConfigurationWire = z.object({
  actionType: WireInt.nullish(),
  variableTypes: VariableTypesWire,
  operatorType: WireInt.nullish(),
  severityType: WireInt.nullish(),
  transformationTypes: z.array(WireInt).nullish(),
  value: z.string().nullish(),
  isNegated: z.boolean().nullish(),
  isRegexVariable: z.boolean().nullish(),
  chainedRuleConditions: z.array(ChainedRuleConditionWire).nullish(),
});

export const CustomWafRuleWire = z.object({
  id: WireInt,
  shieldZoneId: WireInt.nullish(),
  ruleName: z.string().nullish(),
  ruleDescription: z.string().nullish(),
  ruleConfiguration: RuleConfigurationWire.nullish(),
  errorResponse: GenericRequestResponseWire.nullish(),
});
export type CustomWafRuleWire = z.infer<typeof CustomWafRuleWire>;

/**
 * What E1's reply is checked for: the rule it names. The rest of the reply (the whole rule)
 * is not used: the next read validates the live rule in full. Checking all of it cost the
 * apply of 10,000 rules a quarter of its allocations (issue 6), and would turn an applied
 * write into a reported failure over a field edgesync never reads. E4's reply is checked the
 * same way (PatchAppReplyWire).
 */
export const UpdatedCustomWafRuleWire = z.object({ id: WireInt });
export type UpdatedCustomWafRuleWire = z.infer<typeof UpdatedCustomWafRuleWire>;

/** The body E1 takes (UpdateCustomWafRuleRequest); built by edgesync, so exact. */
export interface UpdateCustomWafRuleRequest {
  ruleName: string | null;
  ruleDescription: string | null;
  ruleConfiguration: {
    actionType: number;
    variableTypes: Record<string, string> | null;
    operatorType: number;
    /** Left out only when neither the YAML nor the live rule has one. */
    severityType?: number;
    transformationTypes: number[] | null;
    value: string | null;
    isNegated: boolean | null;
    isRegexVariable: boolean | null;
    chainedRuleConditions: Array<{
      variableTypes: Record<string, string> | null;
      operatorType: number | null;
      value: string | null;
      isNegated: boolean | null;
      isRegexVariable: boolean | null;
    }> | null;
  };
}

/** The body of `POST /shield/waf/custom-rule` (CreateCustomWafRuleRequest). */
export interface CreateCustomWafRuleRequest extends UpdateCustomWafRuleRequest {
  shieldZoneId: number;
}

/** What a create's reply is checked for: the new object's id (the next read validates the rest). */
export const CreatedCustomWafRuleWire = z.object({ id: WireInt });
export type CreatedCustomWafRuleWire = z.infer<typeof CreatedCustomWafRuleWire>;

/** The reply of the Shield deletes: a GenericRequestResponse (success false is refused by the client). */
export const DeletedWire = GenericRequestResponseWire;
export type DeletedWire = z.infer<typeof DeletedWire>;

const PaginationWire = z.object({
  totalCount: WireInt.nullish(),
  totalPages: WireInt.nullish(),
  currentPage: WireInt.nullish(),
  nextPage: WireInt.nullish(),
  pageSize: WireInt.nullish(),
});

export const CustomWafRuleListWire = z.object({
  data: z.array(CustomWafRuleWire).nullish(),
  page: PaginationWire.nullish(),
  error: GenericRequestResponseWire.nullish(),
});

export const CustomAccessListWire = z.object({
  id: WireInt,
  name: z.string().nullish(),
  description: z.string().nullish(),
  type: WireInt.nullish(),
  content: z.string().nullish(),
  checksum: z.string().nullish(),
  entryCount: WireInt.nullish(),
  lastModified: z.string().nullish(),
});
export type CustomAccessListWire = z.infer<typeof CustomAccessListWire>;
export const CustomAccessListEnvelopeWire = envelope(CustomAccessListWire);

/** The body E2 takes; a null or omitted member keeps the live value (checksum: computed). */
export interface UpdateCustomAccessListRequest {
  name?: string | null;
  content?: string | null;
  checksum?: string | null;
}

/** The body of `POST /shield/shield-zone/{sz}/access-lists` (CreateCustomAccessListRequest). */
export interface CreateCustomAccessListRequest {
  name: string;
  type: number;
  content: string;
  checksum: string;
}

export const AccessListDetailsWire = z.object({
  listId: WireInt,
  configurationId: WireInt,
  name: z.string().nullish(),
  description: z.string().nullish(),
  isEnabled: z.boolean(),
  type: WireInt.nullish(),
  category: WireInt.nullish(),
  action: WireInt.nullish(),
  requiredPlan: WireInt.nullish(),
  entryCount: WireInt.nullish(),
  updateFrequency: z.string().nullish(),
  lastUpdated: z.string().nullish(),
});
export type AccessListDetailsWire = z.infer<typeof AccessListDetailsWire>;

export const AccessListsWire = z.object({
  managedLists: z.array(AccessListDetailsWire).nullish(),
  customLists: z.array(AccessListDetailsWire).nullish(),
  customEntryCount: WireInt.nullish(),
  customEntryLimit: WireInt.nullish(),
  customListCount: WireInt.nullish(),
  customListLimit: WireInt.nullish(),
  error: GenericRequestResponseWire.nullish(),
});
export type AccessListsWire = z.infer<typeof AccessListsWire>;

const AccessListConfigurationWire = z.object({
  isEnabled: z.boolean().nullish(),
  action: WireInt.nullish(),
});
export const AccessListConfigurationEnvelopeWire = envelope(AccessListConfigurationWire);

/** The body E3 takes. The seed has only isEnabled; `action` is in the real API since 2025-10. */
export interface UpdateAccessListConfigurationRequest {
  isEnabled?: boolean | null;
  action?: number;
}

/** `GET /shield/shield-zone/{sz}`: the zone's plan and limits (ShieldZoneResponse). */
export const ShieldZoneWire = z.object({
  shieldZoneId: WireInt,
  planType: WireInt.nullish(),
  customWafRulesLimit: WireInt.nullish(),
});
export type ShieldZoneWire = z.infer<typeof ShieldZoneWire>;
export const ShieldZoneEnvelopeWire = z.object({ data: ShieldZoneWire.nullish() });

/**
 * `GET /shield/shield-zones`: one page of the account's zones (`inspect zones`). Loose, like
 * the other read-only replies below: `--json` prints the zones as the API sent them.
 */
const ShieldZoneListItemWire = z.looseObject({
  shieldZoneId: WireInt,
  pullZoneId: WireInt.nullish(),
  planType: WireInt.nullish(),
  wafEnabled: z.boolean().nullish(),
});
export type ShieldZoneListItemWire = z.infer<typeof ShieldZoneListItemWire>;
export const ShieldZoneListWire = z.object({
  data: z.array(ShieldZoneListItemWire).nullish(),
  page: PaginationWire.nullish(),
});

/*
 * The read-only replies below (E6, E8, E9) are loose objects: fields they do not name are kept,
 * so `edgesync inspect --json` prints the reply as the API sent it, including fields added
 * after these schemas were written. Nothing else reads those extra fields.
 */
const BotWire = z.looseObject({
  botId: WireInt,
  userAgentMatch: z.string().nullish(),
  isVerifiable: z.boolean().nullish(),
  category: WireInt.nullish(),
  action: WireInt.nullish(),
});
const BotCategoryWire = z.looseObject({
  category: WireInt.nullish(),
  categoryAction: WireInt.nullish(),
  bots: z.array(BotWire).nullish(),
});
export const BotCategorizationWire = z.looseObject({
  categories: z.array(BotCategoryWire).nullish(),
  error: GenericRequestResponseWire.nullish(),
});
export type BotCategorizationWire = z.infer<typeof BotCategorizationWire>;

const WafRuleGroupWire = z.looseObject({
  id: WireInt.nullish(),
  name: z.string().nullish(),
  code: z.string().nullish(),
  fileName: z.string().nullish(),
  mainGroup: z.string().nullish(),
  ruleset: z.string().nullish(),
  description: z.string().nullish(),
  rules: z
    .array(z.looseObject({ ruleId: z.string().nullish(), description: z.string().nullish() }))
    .nullish(),
});
const WafPlanWire = z.looseObject({
  planValue: WireInt.nullish(),
  planName: z.string().nullish(),
  rules: z
    .array(
      z.looseObject({
        name: z.string().nullish(),
        ruleset: z.string().nullish(),
        ruleGroups: z.array(WafRuleGroupWire).nullish(),
      }),
    )
    .nullish(),
});
export const WafPlanSegmentationWire = z.looseObject({
  data: z.array(WafPlanWire).nullish(),
  error: GenericRequestResponseWire.nullish(),
});
export type WafPlanSegmentationWire = z.infer<typeof WafPlanSegmentationWire>;

export const ApiGuardianMetricsWire = z.looseObject({
  data: z
    .looseObject({
      totalBlockedRequests: WireInt.nullish(),
      totalLoggedRequests: WireInt.nullish(),
      totalRateLimited: WireInt.nullish(),
      totalRequestsInspected: WireInt.nullish(),
      totalFailedRequestValidation: WireInt.nullish(),
      totalFailedAuthenticationEnforcement: WireInt.nullish(),
      /** The seed says "object"; the OpenAPI file says a map of activity records. Accept both. */
      overviewPastTwentyEightDays: z.record(z.string(), z.unknown()).nullish(),
    })
    .nullish(),
  error: GenericRequestResponseWire.nullish(),
});
export type ApiGuardianMetricsWire = z.infer<typeof ApiGuardianMetricsWire>;
