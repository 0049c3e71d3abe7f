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

const VARIABLE_KEYS: ReadonlySet<string> = new Set(WAF_VARIABLE_TYPES);

/**
 * `{ REQUEST_URI: "" }`; a key written with no value (YAML null) means the empty string.
 * Only the seed's 27 keys: an unknown one is reported at the key itself (`params.at`), with
 * a message that says what the key is, rather than zod's generic "unrecognized key".
 */
const VariableTypes = z
  .record(
    z.string(),
    z
      .string()
      .nullable()
      .transform((v) => v ?? ''),
  )
  .superRefine((vars, ctx) => {
    const keys = Object.keys(vars);
    if (keys.length === 0) ctx.addIssue({ code: 'custom', message: 'needs at least one variable' });
    for (const key of keys) {
      if (!VARIABLE_KEYS.has(key)) {
        const near = VARIABLE_KEYS.has(key.toUpperCase()) ? `; did you mean ${key.toUpperCase()}?` : '';
        ctx.addIssue({
          code: 'custom',
          path: [key],
          params: { at: 'key' },
          message:
            near !== ''
              ? `unknown variable ${JSON.stringify(key)}${near}`
              : `unknown variable ${JSON.stringify(key)}; expected one of the ${WAF_VARIABLE_TYPES.length} variableTypes keys (REQUEST_URI, ARGS, REQUEST_HEADERS, ...)`,
        });
      }
    }
  })
  // JSON Schema (editor completion) lists the keys; zod's record above accepts any string.
  .meta({ propertyNames: { enum: [...WAF_VARIABLE_TYPES] }, minProperties: 1 });

const operatorType = () => enumField('operatorType', WafRuleOperatorType, FORBIDDEN_OPERATOR_VALUES);

/** Strict schema of an item of `chainedRuleConditions` in the desired state (unknown keys are errors). */
export const ChainedRuleConditionSpec = z.strictObject({
  variableTypes: VariableTypes,
  operatorType: operatorType(),
  value: z.string().optional(),
  isNegated: z.boolean().optional(),
  isRegexVariable: z.boolean().optional(),
});
/** The parsed (output) form of ChainedRuleConditionSpec: enums as the integers or spellings the API takes. */
export type ChainedRuleConditionSpec = z.infer<typeof ChainedRuleConditionSpec>;

/** Strict schema of `ruleConfiguration` in the desired state (unknown keys are errors). */
const RuleConfigurationSpec = z.strictObject({
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

/** Strict schema of the `spec` of a WafCustomRule document (unknown keys are errors). */
export const WafCustomRuleSpec = z.strictObject({
  /** Pins the live rule; without it the rule is found by ruleName in its zone, or created (docs/design.md, Identity). */
  id: IntId.optional(),
  shieldZoneId: IntId,
  ruleName: z.string().min(1, 'must not be empty'),
  ruleDescription: z.string().optional(),
  ruleConfiguration: RuleConfigurationSpec,
});
/** The parsed (output) form of WafCustomRuleSpec: enums as the integers or spellings the API takes. */
export type WafCustomRuleSpec = z.infer<typeof WafCustomRuleSpec>;

/** The WafCustomRule kind as the config loader sees it: schema, canonical form, target. */
export const wafCustomRuleSpec: KindSpecModule<WafCustomRuleSpec, WafCustomRuleSpec> = {
  kind: 'WafCustomRule',
  schema: WafCustomRuleSpec,
  resolve: (parsed) => parsed,
  target: (spec) => (spec.id === undefined ? undefined : `custom WAF rule (id ${spec.id})`),
  targetPath: () => ['id'],
  // Only documents without an id find their rule by name (a live zone may hold two rules of one
  // name, each pinned by its id); two such documents must not share a name.
  naturalKey: (spec) =>
    spec.id !== undefined
      ? undefined
      : {
          key: `shield-zone:${spec.shieldZoneId}/custom-rule-name:${spec.ruleName}`,
          label: `custom WAF rule name ${JSON.stringify(spec.ruleName)} in Shield Zone ${spec.shieldZoneId}`,
          path: ['ruleName'],
        },
  shieldZoneId: (spec) => spec.shieldZoneId,
};
