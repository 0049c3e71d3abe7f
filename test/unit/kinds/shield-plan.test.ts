import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/domain/checksum.js';
import { accessListKind, type LiveAccessList } from '../../../src/kinds/access-list/index.js';
import type { AccessListCanonical } from '../../../src/kinds/access-list/spec.js';
import type { PlanContext } from '../../../src/kinds/common/kind.js';
import { normalizeWafRule, wafCustomRuleKind } from '../../../src/kinds/waf-custom-rule/index.js';
import type { WafCustomRuleSpec } from '../../../src/kinds/waf-custom-rule/spec.js';
import { desired } from '../../helpers/desired.js';

const ctx: PlanContext = { remembered: () => undefined, keyedDigest: (data) => `keyed:${data}` };

const liveRule = normalizeWafRule({
  id: 1234,
  shieldZoneId: 42,
  ruleName: 'Block SQLi',
  ruleDescription: null,
  ruleConfiguration: {
    actionType: 1,
    operatorType: 14,
    severityType: 2,
    variableTypes: { REQUEST_URI: null },
    transformationTypes: null,
    value: 'select',
    isNegated: null,
    isRegexVariable: false,
    chainedRuleConditions: null,
  },
});

describe('WafCustomRule plan', () => {
  const base = {
    id: 1234,
    shieldZoneId: 42,
    ruleName: 'Block SQLi',
    ruleConfiguration: { actionType: 'Block', operatorType: 'RX', variableTypes: { REQUEST_URI: '' } },
  };

  it('treats null, absent and empty as equal, so a matching rule is a noop', () => {
    const result = wafCustomRuleKind.plan(
      desired<WafCustomRuleSpec>('WafCustomRule', 'r', {
        ...base,
        ruleConfiguration: {
          ...base.ruleConfiguration,
          transformationTypes: [],
          isNegated: false,
          value: 'select',
        },
      }),
      liveRule,
      ctx,
    );

    expect(result).toEqual({ diffs: [], requests: [] });
  });

  it('shows enum names in diffs and sends the whole request with live values for undeclared fields', () => {
    const result = wafCustomRuleKind.plan(
      desired<WafCustomRuleSpec>('WafCustomRule', 'r', {
        ...base,
        ruleConfiguration: {
          ...base.ruleConfiguration,
          operatorType: 17,
          transformationTypes: ['urldecode', 'LOWERCASE'],
        },
      }),
      liveRule,
      ctx,
    );

    expect(result.diffs).toEqual([
      { path: 'ruleConfiguration.operatorType', live: 'RX', desired: 'DETECTSQLI' },
      { path: 'ruleConfiguration.transformationTypes', live: [], desired: ['URLDECODE', 'LOWERCASE'] },
    ]);
    expect(result.requests).toEqual([
      {
        operation: 'updateCustomWafRule',
        method: 'PATCH',
        path: '/shield/waf/custom-rule/1234',
        body: {
          ruleName: 'Block SQLi',
          ruleDescription: '',
          ruleConfiguration: {
            actionType: 1,
            variableTypes: { REQUEST_URI: '' },
            operatorType: 17,
            severityType: 2,
            transformationTypes: [19, 8],
            value: 'select',
            isNegated: false,
            isRegexVariable: false,
            chainedRuleConditions: [],
          },
        },
      },
    ]);
  });
});

describe('AccessList plan', () => {
  const live: LiveAccessList = {
    listId: 9001,
    name: 'Office IPs',
    configuration: { configurationId: 19001, isEnabled: true, action: 2 },
    content: { checksum: sha256Hex('10.0.0.1\n203.0.113.0/24\n'), content: '10.0.0.1\n203.0.113.0/24\n' },
  };
  const spec = { shieldZoneId: 42, id: 9001 };

  it('settles content canonically: a live trailing newline is not drift', () => {
    const result = accessListKind.plan(
      desired<AccessListCanonical>('AccessList', 'office', {
        ...spec,
        entries: [' 10.0.0.1 ', '203.0.113.0/24'],
      }),
      live,
      ctx,
    );

    expect(result).toEqual({ diffs: [], requests: [] });
  });

  it('sends E2 with canonical content and checksum, and E3 at the configuration id', () => {
    const result = accessListKind.plan(
      desired<AccessListCanonical>('AccessList', 'office', {
        ...spec,
        name: 'Office',
        entries: ['10.0.0.1', '198.51.100.7'],
        enabled: false,
        action: 'Challenge',
      }),
      live,
      ctx,
    );

    expect(result.diffs).toEqual([
      { path: 'name', live: 'Office IPs', desired: 'Office' },
      { path: 'entries', live: ['10.0.0.1', '203.0.113.0/24'], desired: ['10.0.0.1', '198.51.100.7'] },
      { path: 'enabled', live: true, desired: false },
      { path: 'action', live: 'Block', desired: 'Challenge' },
    ]);
    expect(result.requests).toEqual([
      {
        operation: 'updateCustomAccessList',
        method: 'PATCH',
        path: '/shield/shield-zone/42/access-lists/9001',
        body: {
          name: 'Office',
          content: '10.0.0.1\n198.51.100.7',
          checksum: sha256Hex('10.0.0.1\n198.51.100.7'),
        },
      },
      {
        operation: 'updateAccessListConfiguration',
        method: 'PATCH',
        path: '/shield/shield-zone/42/access-lists/configurations/19001',
        body: { isEnabled: false, action: 3 },
      },
    ]);
  });

  it('refuses a change of type with a message, and sends nothing', () => {
    const result = accessListKind.plan(
      desired<AccessListCanonical>('AccessList', 'office', {
        ...spec,
        type: 'CIDR',
        entries: ['10.0.0.0/8'],
      }),
      { ...live, type: 0 },
      ctx,
    );

    expect(result).toEqual({
      diffs: [{ path: 'type', live: 'IP', desired: 'CIDR' }],
      requests: [],
      error: {
        code: 'PLAN_UNSAFE',
        message:
          "type cannot be changed from IP to CIDR: the API keeps a list's type (delete the list, or give this document a new name, to create a list of the new type)",
      },
    });
  });

  it('plans nothing for a declared type equal to the live one', () => {
    const result = accessListKind.plan(
      desired<AccessListCanonical>('AccessList', 'office', {
        ...spec,
        type: 'ip',
        entries: ['10.0.0.1', '203.0.113.7'],
      }),
      // An IP list holds addresses only (issue 23: entries are checked against the type).
      {
        ...live,
        type: 0,
        content: { checksum: sha256Hex('10.0.0.1\n203.0.113.7'), content: '10.0.0.1\n203.0.113.7' },
      },
      ctx,
    );

    expect(result).toEqual({ diffs: [], requests: [] });
  });

  it('fails the change when the API returns another checksum', () => {
    const request = accessListKind.plan(
      desired<AccessListCanonical>('AccessList', 'office', { ...spec, entries: ['1.1.1.1'] }),
      live,
      ctx,
    ).requests[0]!;

    expect(() =>
      accessListKind.checkReply?.(request, { id: 9001, checksum: sha256Hex('1.1.1.1\n'), entryCount: 1 }),
    ).toThrow(
      `the API returned checksum ${sha256Hex('1.1.1.1\n')} for list 9001, expected ${sha256Hex('1.1.1.1')}`,
    );
  });
});
