/**
 * Export of `WafCustomRule`: every custom rule of a Shield Zone (one paged listing), written
 * with its whole ruleConfiguration. E1 always sends the whole configuration anyway, so the
 * exported rule declares every field the API holds — `value`, the flags, empty transformation
 * and condition lists included — and drift on any of them shows in the plan. A rule whose
 * name is unique in its zone is written without its id: the document adopts it by ruleName.
 */
import type { CustomWafRuleWire } from '../../api/wire/shield.js';
import {
  enumName,
  WafRuleActionType,
  WafRuleOperatorType,
  WafRuleSeverityType,
  WafRuleTransformationType,
} from '../../domain/enums.js';
import { compact } from '../common/diff.js';
import { type ExportedSpec, type KindExporter, optionalEnumName, uniqueNames } from '../common/export.js';
import { normalizeWafRule, readZoneWafRules } from './index.js';

/**
 * One live rule in the desired-state format. Chained conditions leave out `isNegated`,
 * `isRegexVariable` when false: the plan compares the condition list whole, with false as the
 * default of both, so leaving them out changes nothing and reads better.
 */
function wafRuleToSpec(wire: CustomWafRuleWire, shieldZoneId: number, byKey = false): ExportedSpec {
  const live = normalizeWafRule(wire);
  const c = live.ruleConfiguration;
  const spec = compact({
    id: byKey ? undefined : live.id,
    shieldZoneId: live.shieldZoneId ?? shieldZoneId,
    ruleName: live.ruleName,
    // A description does not change what the rule does: left unmanaged when there is none.
    ruleDescription: live.ruleDescription === '' ? undefined : live.ruleDescription,
    ruleConfiguration: {
      actionType: optionalEnumName(WafRuleActionType, c.actionType),
      operatorType: optionalEnumName(WafRuleOperatorType, c.operatorType),
      severityType: optionalEnumName(WafRuleSeverityType, c.severityType),
      variableTypes: c.variableTypes,
      transformationTypes: c.transformationTypes.map((t) => enumName(WafRuleTransformationType, t)),
      value: c.value,
      isNegated: c.isNegated,
      isRegexVariable: c.isRegexVariable,
      chainedRuleConditions: c.chainedRuleConditions.map((condition) => ({
        variableTypes: condition.variableTypes,
        operatorType: optionalEnumName(WafRuleOperatorType, condition.operatorType),
        value: condition.value,
        isNegated: condition.isNegated ? true : undefined,
        isRegexVariable: condition.isRegexVariable ? true : undefined,
      })),
    },
  });
  return { kind: 'WafCustomRule', liveName: live.ruleName, id: live.id, spec, warnings: [] };
}

/** Every custom rule of a Shield Zone, from the paged listing the plan reads too. */
export const wafCustomRuleExporter: KindExporter<'shieldZone'> = {
  kind: 'WafCustomRule',
  scope: 'shieldZone',
  async read(shieldZoneId, ctx) {
    const rules = await readZoneWafRules(shieldZoneId, ctx);
    const unique = uniqueNames(rules.map((rule) => rule.ruleName ?? ''));
    return rules.map((rule) => wafRuleToSpec(rule, shieldZoneId, unique.has(rule.ruleName ?? '')));
  },
};
