import { describe, expect, it } from 'vitest';
import {
  enumName,
  enumValue,
  WAF_VARIABLE_TYPES,
  WafRuleOperatorType,
  WafRuleTransformationType,
} from '../../../src/domain/enums.js';

describe('seed enums', () => {
  it('resolves names case-insensitively and integers as themselves', () => {
    expect(enumValue(WafRuleOperatorType, 'detectsqli')).toBe(17);
    expect(enumValue(WafRuleOperatorType, 'DetectSQLi')).toBe(17);
    expect(enumValue(WafRuleOperatorType, 14)).toBe(14);
    expect(enumValue(WafRuleOperatorType, '15')).toBe(15);
  });

  it.each([10, 11, 13, 16])('refuses the forbidden operator value %i', (value) => {
    expect(enumValue(WafRuleOperatorType, value)).toBeUndefined();
  });

  it('names values and falls back to the number', () => {
    expect(enumName(WafRuleTransformationType, 19)).toBe('URLDECODE');
    expect(enumName(WafRuleTransformationType, 99)).toBe('99');
  });

  it('has the 27 variable keys', () => {
    expect(WAF_VARIABLE_TYPES).toHaveLength(27);
  });
});
