/**
 * `WafCustomRule` desired state → E1 `PATCH /shield/waf/custom-rule/{id}`.
 *
 * Fields inside ruleConfiguration that the YAML leaves out are not managed: the engine sends
 * the live value for them, because E1 takes the whole request and an omitted field would be
 * reset by the API (api-notes: "always send the full ruleConfiguration").
 */
import { z } from 'zod';
import {
  FORBIDDEN_OPERATOR_VALUES,
  WAF_VARIABLE_TYPES,
  WafRuleActionType,
  WafRuleOperatorType,
  WafRuleSeverityType,
  WafRuleTransformationType,
} from '../../domain/enums.js';
import { enumField, IntId } from '../common/fields.js';
import type { KindSpecModule } from '../common/spec-module.js';

const variableKeys = z.enum(WAF_VARIABLE_TYPES, {
  error: (issue) =>
    `unknown variable ${JSON.stringify(issue.input)}; expected one of the ${WAF_VARIABLE_TYPES.length} variableTypes keys`,
});

/** `{ REQUEST_URI: "" }`; a key written with no value (YAML null) means the empty string. */
const VariableTypes = z
  .partialRecord(
    variableKeys,
    z
      .string()
      .nullable()
      .transform((v) => v ?? ''),
  )
  .refine((vars) => Object.keys(vars).length > 0, 'needs at least one variable');

const operatorType = () => enumField('operatorType', WafRuleOperatorType, FORBIDDEN_OPERATOR_VALUES);

export const ChainedRuleConditionSpec = z.strictObject({
  variableTypes: VariableTypes,
  operatorType: operatorType(),
  value: z.string().optional(),
  isNegated: z.boolean().optional(),
  isRegexVariable: z.boolean().optional(),
});
export type ChainedRuleConditionSpec = z.infer<typeof ChainedRuleConditionSpec>;

export const RuleConfigurationSpec = z.strictObject({
  actionType: enumField('actionType', WafRuleActionType),
  operatorType: operatorType(),
  severityType: enumField('severityType', WafRuleSeverityType).optional(),
  variableTypes: VariableTypes,
  /** Order is meaningful: transformations run in sequence. */
  transformationTypes: z.array(enumField('transformationType', WafRuleTransformationType)).optional(),
  value: z.string().optional(),
  isNegated: z.boolean().optional(),
  isRegexVariable: z.boolean().optional(),
  chainedRuleConditions: z.array(ChainedRuleConditionSpec).optional(),
});
export type RuleConfigurationSpec = z.infer<typeof RuleConfigurationSpec>;

export const WafCustomRuleSpec = z.strictObject({
  id: IntId,
  shieldZoneId: IntId,
  ruleName: z.string().min(1, 'must not be empty'),
  ruleDescription: z.string().optional(),
  ruleConfiguration: RuleConfigurationSpec,
});
export type WafCustomRuleSpec = z.infer<typeof WafCustomRuleSpec>;

export const wafCustomRuleSpec: KindSpecModule<WafCustomRuleSpec, WafCustomRuleSpec> = {
  kind: 'WafCustomRule',
  schema: WafCustomRuleSpec,
  resolve: (parsed) => parsed,
  target: (spec) => `custom-rule:${spec.id}`,
  shieldZoneId: (spec) => spec.shieldZoneId,
};
