/**
 * E1 request body (`UpdateCustomWafRuleRequest`) validation, exactly per the seed: no
 * additional properties at any level, integer enums from the seed tables (operator values
 * 10, 11, 13 and 16 refused), the 27 variableTypes keys with string values, nullable fields
 * nullable and nothing else.
 */
import { z } from 'zod';
import type { EnumTable } from '../../domain/enums.js';
import {
  WAF_VARIABLE_TYPES,
  WafRuleActionType,
  WafRuleOperatorType,
  WafRuleSeverityType,
  WafRuleTransformationType,
} from '../../domain/enums.js';
import type { ChainedRuleCondition, RuleConfiguration, VariableTypes } from '../wire.js';
import { intEnum } from './enum.js';

const KNOWN_VARIABLES = new Set<string>(WAF_VARIABLE_TYPES);

const FORBIDDEN_NOTE = ' The values 10, 11, 13 and 16 are not allowed.';

/**
 * Builds the schema of one integer-enum field. `note` is what the API adds to its message
 * (the forbidden operator values); the seed words its own messages and may ignore it.
 */
type EnumField<E extends z.ZodType<number>> = (field: string, table: EnumTable, note?: string) => E;

/**
 * RuleConfiguration with its enums read by `enumField`: integers only for the E1 request,
 * names or integers for the seed. Everything else is the same, so a seeded rule is exactly
 * what an E1 could have stored.
 */
export function ruleConfigurationSchema<E extends z.ZodType<number>>(enumField: EnumField<E>) {
  // A map keyed by the seed's 27 variable names: another key is not an unknown field to
  // ignore but a variable the API does not have, refused in lenient mode too.
  const variableTypes = z.record(z.string(), z.string()).superRefine((map, ctx) => {
    for (const key of Object.keys(map)) {
      if (!KNOWN_VARIABLES.has(key)) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `The value '${key}' is not a valid variable type; use one of ${WAF_VARIABLE_TYPES.join(', ')}.`,
        });
      }
    }
  });
  const chainedRuleCondition = z.strictObject({
    variableTypes: variableTypes.nullable().optional(),
    operatorType: enumField('operatorType', WafRuleOperatorType, FORBIDDEN_NOTE).optional(),
    value: z.string().nullable().optional(),
    isNegated: z.boolean().nullable().optional(),
    isRegexVariable: z.boolean().nullable().optional(),
  });
  return z.strictObject({
    actionType: enumField('actionType', WafRuleActionType),
    variableTypes: variableTypes.nullable().optional(),
    operatorType: enumField('operatorType', WafRuleOperatorType, FORBIDDEN_NOTE).optional(),
    severityType: enumField('severityType', WafRuleSeverityType).optional(),
    transformationTypes: z
      .array(enumField('transformationTypes item', WafRuleTransformationType))
      .nullable()
      .optional(),
    value: z.string().nullable().optional(),
    isNegated: z.boolean().nullable().optional(),
    isRegexVariable: z.boolean().nullable().optional(),
    chainedRuleConditions: z.array(chainedRuleCondition).nullable().optional(),
  });
}

/** RuleConfiguration as the E1 request may carry it. */
const RuleConfigurationRequest = ruleConfigurationSchema(intEnum);
/** A validated configuration, from E1 or the seed (both parse enums to integers). */
export type ParsedRuleConfiguration = z.output<typeof RuleConfigurationRequest>;

/** The E1 body. */
export const UpdateCustomWafRuleRequest = z.strictObject({
  ruleName: z.string().nullable().optional(),
  ruleDescription: z.string().nullable().optional(),
  ruleConfiguration: RuleConfigurationRequest.optional(),
});
export type UpdateCustomWafRuleRequest = z.infer<typeof UpdateCustomWafRuleRequest>;

/**
 * `POST /shield/waf/custom-rule` body (`CreateCustomWafRuleRequest`). The spec marks nothing
 * required; the zone, the name and the configuration are what a rule cannot exist without,
 * and `ruleDescription` must be present because the real API answers 400 without it
 * (OCTO 0.3.0, docs/api-notes.md, Custom WAF rules); "" is fine.
 */
export const CreateCustomWafRuleRequest = z.strictObject({
  shieldZoneId: z.number().int(),
  ruleName: z.string(),
  ruleDescription: z.string(),
  ruleConfiguration: RuleConfigurationRequest,
});
export type CreateCustomWafRuleRequest = z.infer<typeof CreateCustomWafRuleRequest>;

function variableTypes(input: Record<string, string> | null | undefined): VariableTypes | null {
  if (input === null || input === undefined) return null;
  const out: VariableTypes = {};
  for (const [key, value] of Object.entries(input)) {
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/**
 * The stored configuration for a validated request configuration. Omitted integer enums take
 * the value the real server's C# model defaults them to (0), which is why leaving
 * `severityType` out makes a rule NOTICE and shows up as drift (docs/api-notes.md, Custom WAF rules, OCTO).
 */
export function toRuleConfiguration(input: ParsedRuleConfiguration): RuleConfiguration {
  const chained: ChainedRuleCondition[] | null =
    input.chainedRuleConditions === null || input.chainedRuleConditions === undefined
      ? null
      : input.chainedRuleConditions.map((c) => ({
          variableTypes: variableTypes(c.variableTypes),
          operatorType: c.operatorType ?? 0,
          value: c.value ?? null,
          isNegated: c.isNegated ?? null,
          isRegexVariable: c.isRegexVariable ?? null,
        }));
  return {
    actionType: input.actionType,
    variableTypes: variableTypes(input.variableTypes),
    operatorType: input.operatorType ?? 0,
    severityType: input.severityType ?? 0,
    transformationTypes: input.transformationTypes ?? null,
    value: input.value ?? null,
    isNegated: input.isNegated ?? null,
    isRegexVariable: input.isRegexVariable ?? null,
    chainedRuleConditions: chained,
  };
}
