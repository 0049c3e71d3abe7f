/**
 * `WafCustomRule`: reads every custom rule of a Shield Zone with one paged listing, diffs the
 * declared fields and sends E1 with the whole UpdateCustomWafRuleRequest — fields the YAML
 * leaves out carry their live values, so nothing the API defaults silently drifts. A document
 * without an id finds its rule by inventory or ruleName (identity.ts), or creates it.
 */
import { writeRequests } from '../../api/operations.js';
import type {
  ChainedRuleConditionWire,
  CustomWafRuleWire,
  UpdateCustomWafRuleRequest,
} from '../../api/wire/shield.js';
import {
  enumName,
  ShieldPlanType,
  WafRuleActionType,
  WafRuleOperatorType,
  WafRuleSeverityType,
  WafRuleTransformationType,
} from '../../domain/enums.js';
import { compact, diffDeclared } from '../common/diff.js';
import { type KeyedObjects, keyedObjects, resolveIdentity } from '../common/identity.js';
import type { KindLifecycle, KindPlan, LiveRead, ReadContext, ResourceKind } from '../common/kind.js';
import { shareGuard, shieldZoneName } from '../common/lifecycle.js';
import { identified, notFound, readByZone } from '../common/read.js';
import type { DesiredResource, FieldDiff } from '../types.js';
import { type ChainedRuleConditionSpec, type WafCustomRuleSpec, wafCustomRuleSpec } from './spec.js';

/** A chained condition with the API's defaults filled (null value → "", null flags → false). */
interface NormalChainedCondition {
  variableTypes: Record<string, string>;
  operatorType: number | null;
  value: string;
  isNegated: boolean;
  isRegexVariable: boolean;
}

/** A live custom rule in the form the spec is compared with. */
export interface LiveWafRule {
  id: number;
  shieldZoneId: number | null;
  ruleName: string;
  ruleDescription: string;
  ruleConfiguration: {
    actionType: number | null;
    operatorType: number | null;
    severityType: number | null;
    variableTypes: Record<string, string>;
    transformationTypes: number[];
    value: string;
    isNegated: boolean;
    isRegexVariable: boolean;
    chainedRuleConditions: NormalChainedCondition[];
  };
}

function normalVariables(vars: Record<string, string | null> | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(vars ?? {})) out[key] = value ?? '';
  return out;
}

function normalChained(c: ChainedRuleConditionWire): NormalChainedCondition {
  return {
    variableTypes: normalVariables(c.variableTypes),
    operatorType: c.operatorType ?? null,
    value: c.value ?? '',
    isNegated: c.isNegated ?? false,
    isRegexVariable: c.isRegexVariable ?? false,
  };
}

/** Live wire → comparable form; null, absent and empty mean the same thing. */
export function normalizeWafRule(wire: CustomWafRuleWire): LiveWafRule {
  const config = wire.ruleConfiguration ?? {};
  return {
    id: wire.id,
    shieldZoneId: wire.shieldZoneId ?? null,
    ruleName: wire.ruleName ?? '',
    ruleDescription: wire.ruleDescription ?? '',
    ruleConfiguration: {
      actionType: config.actionType ?? null,
      operatorType: config.operatorType ?? null,
      severityType: config.severityType ?? null,
      variableTypes: normalVariables(config.variableTypes),
      transformationTypes: config.transformationTypes ?? [],
      value: config.value ?? '',
      isNegated: config.isNegated ?? false,
      isRegexVariable: config.isRegexVariable ?? false,
      chainedRuleConditions: (config.chainedRuleConditions ?? []).map(normalChained),
    },
  };
}

function desiredChained(c: ChainedRuleConditionSpec): NormalChainedCondition {
  return {
    variableTypes: c.variableTypes as Record<string, string>,
    operatorType: c.operatorType,
    value: c.value ?? '',
    isNegated: c.isNegated ?? false,
    isRegexVariable: c.isRegexVariable ?? false,
  };
}

/** Enum integers back to the seed's names for plans and logs. */
function displayWafValue(path: string, value: unknown): unknown {
  const leaf = path.slice(path.lastIndexOf('.') + 1);
  if (typeof value === 'number') {
    if (leaf === 'actionType') return enumName(WafRuleActionType, value);
    if (leaf === 'operatorType') return enumName(WafRuleOperatorType, value);
    if (leaf === 'severityType') return enumName(WafRuleSeverityType, value);
  }
  if (leaf === 'transformationTypes' && Array.isArray(value)) {
    return value.map((v) => (typeof v === 'number' ? enumName(WafRuleTransformationType, v) : v));
  }
  if (leaf === 'chainedRuleConditions' && Array.isArray(value)) {
    return value.map((c: NormalChainedCondition) => ({
      ...c,
      operatorType: c.operatorType === null ? null : enumName(WafRuleOperatorType, c.operatorType),
    }));
  }
  return value;
}

/**
 * The declared part of a spec, in the live form's shape, for `diffDeclared`. Built for each
 * plan, not kept per spec: a kept copy of every rule outlives the run that needed it (see
 * docs/performance.md, Latest figures, memory), and building one is a handful of small objects.
 */
function declared(spec: WafCustomRuleSpec): unknown {
  const c = spec.ruleConfiguration;
  return compact({
    ruleName: spec.ruleName,
    ruleDescription: spec.ruleDescription,
    ruleConfiguration: {
      actionType: c.actionType,
      operatorType: c.operatorType,
      severityType: c.severityType,
      variableTypes: c.variableTypes,
      transformationTypes: c.transformationTypes,
      value: c.value,
      isNegated: c.isNegated,
      isRegexVariable: c.isRegexVariable,
      chainedRuleConditions: c.chainedRuleConditions?.map(desiredChained),
    },
  });
}

/** The whole E1 body: declared values, live values for the rest. */
function buildWafRuleRequest(spec: WafCustomRuleSpec, live: LiveWafRule): UpdateCustomWafRuleRequest {
  const c = spec.ruleConfiguration;
  const l = live.ruleConfiguration;
  const severityType = c.severityType ?? l.severityType ?? undefined;
  return {
    ruleName: spec.ruleName,
    // The API answers 400 when ruleDescription is missing (octorules 0.3.0): always send it.
    ruleDescription: spec.ruleDescription ?? live.ruleDescription,
    ruleConfiguration: {
      actionType: c.actionType,
      variableTypes: c.variableTypes as Record<string, string>,
      operatorType: c.operatorType,
      ...(severityType === undefined ? {} : { severityType }),
      transformationTypes: c.transformationTypes ?? l.transformationTypes,
      value: c.value ?? l.value,
      isNegated: c.isNegated ?? l.isNegated,
      isRegexVariable: c.isRegexVariable ?? l.isRegexVariable,
      chainedRuleConditions: c.chainedRuleConditions?.map(desiredChained) ?? l.chainedRuleConditions,
    },
  };
}

/** What a rule the API creates holds where the request leaves a field out. */
const NEW_RULE: LiveWafRule = {
  id: 0,
  shieldZoneId: null,
  ruleName: '',
  ruleDescription: '',
  ruleConfiguration: {
    actionType: null,
    operatorType: null,
    severityType: null,
    variableTypes: {},
    transformationTypes: [],
    value: '',
    isNegated: false,
    isRegexVariable: false,
    chainedRuleConditions: [],
  },
};

/** `live` null: no rule has the document's key, so it is created (POST with the whole rule). */
function planWafRule(desired: DesiredResource<WafCustomRuleSpec>, live: LiveWafRule | null): KindPlan {
  const diffs: FieldDiff[] = [];
  const spec = desired.spec;
  if (live === null) {
    // Every declared field is new: shown against nothing, `(absent) → value`.
    diffDeclared(declared(spec), {}, '', diffs, displayWafValue);
    const body = buildWafRuleRequest(spec, NEW_RULE);
    return {
      diffs,
      requests: [
        writeRequests.createCustomWafRule({
          shieldZoneId: spec.shieldZoneId,
          ...body,
          ruleDescription: body.ruleDescription ?? '',
        }),
      ],
    };
  }
  diffDeclared(declared(spec), live, '', diffs, displayWafValue);
  if (diffs.length === 0) return { diffs, requests: [] };
  return {
    diffs,
    requests: [writeRequests.updateCustomWafRule(live.id, buildWafRuleRequest(spec, live))],
  };
}

/** Every custom rule of a Shield Zone: one paged listing per zone and run, for reads and exports. */
export function readZoneWafRules(zoneId: number, ctx: ReadContext): Promise<CustomWafRuleWire[]> {
  return ctx.once(`custom-rules:${zoneId}`, () =>
    ctx.limit(() => ctx.api.listCustomWafRules(zoneId, { signal: ctx.signal })),
  );
}

interface ZoneRules {
  readonly byId: Map<number, CustomWafRuleWire>;
  readonly keyed: KeyedObjects<number>;
}

function readWafRules(
  resources: readonly DesiredResource<WafCustomRuleSpec>[],
  ctx: ReadContext,
): Promise<Map<string, LiveRead<LiveWafRule | null>>> {
  return readByZone(
    resources,
    async (zoneId): Promise<ZoneRules> => {
      const rules = await readZoneWafRules(zoneId, ctx);
      return {
        byId: new Map(rules.map((rule) => [rule.id, rule])),
        keyed: keyedObjects(rules.map((rule) => ({ id: rule.id, key: rule.ruleName ?? '' }))),
      };
    },
    (resource, zone, zoneId) => {
      const spec = resource.spec;
      const resolution = resolveIdentity({
        kind: 'WafCustomRule',
        shieldZoneId: zoneId,
        specId: spec.id,
        key: spec.ruleName,
        owned: ctx.owned(resource.subject),
        live: zone.keyed,
        noun: 'custom WAF rule',
        scopeName: shieldZoneName(zoneId),
      });
      if (resolution.via === 'missing') return notFound(resource, resolution.message);
      if (resolution.via === 'create') {
        return identified(null, {
          kind: 'WafCustomRule',
          shieldZoneId: zoneId,
          via: 'create',
          key: spec.ruleName,
        });
      }
      const wire = zone.byId.get(resolution.id) as CustomWafRuleWire;
      // A literal of one shape, not a spread: one hidden class for every rule's identity.
      return identified(normalizeWafRule(wire), {
        kind: 'WafCustomRule',
        shieldZoneId: zoneId,
        via: resolution.via,
        id: resolution.id,
        key: spec.ruleName,
      });
    },
  );
}

/** A zone's plan and custom rule limit, as the limit check reads them. */
interface RuleLimit {
  readonly planType?: number;
  readonly customWafRulesLimit?: number;
}

const NOUNS = 'custom WAF rules';

/** Rules are created by ruleName in their Shield Zone, within its plan's custom rule limit. */
const lifecycle: KindLifecycle<WafCustomRuleSpec> = {
  kind: 'WafCustomRule',
  nouns: NOUNS,
  keyPath: 'ruleName',
  locate: (spec) => ({ shieldZoneId: spec.shieldZoneId, id: spec.id, key: spec.ruleName }),
  scopeName: shieldZoneName,
  async list(zoneId, ctx) {
    const rules = await readZoneWafRules(zoneId as number, ctx);
    return { items: rules.map((rule) => ({ id: rule.id, key: rule.ruleName ?? '' })) };
  },
  async readLimit(zoneId, ctx): Promise<RuleLimit> {
    const info = await ctx.once(`shield-zone:${zoneId}`, () =>
      ctx.limit(() => ctx.api.getShieldZone(zoneId as number, { signal: ctx.signal })),
    );
    return {
      ...(info.planType == null ? {} : { planType: info.planType }),
      ...(info.customWafRulesLimit == null ? {} : { customWafRulesLimit: info.customWafRulesLimit }),
    };
  },
  limitProblem({ shieldZoneId, creating, listing, limit }) {
    if (limit === undefined || 'error' in limit) {
      return `cannot check Shield Zone ${shieldZoneId}'s custom rule limit: ${limit === undefined ? 'not read' : limit.error}`;
    }
    const info = limit.value as RuleLimit;
    const live = listing !== undefined && !('error' in listing) ? listing.items.length : 0;
    const max = info.customWafRulesLimit;
    if (max === undefined || live + creating <= max) return undefined;
    const plan = info.planType === undefined ? '' : ` (${enumName(ShieldPlanType, info.planType)} plan)`;
    return `Shield Zone ${shieldZoneId}${plan} allows ${max} ${NOUNS} (customWafRulesLimit) and has ${live}: creating ${creating} more would pass it`;
  },
  createOperation: 'createCustomWafRule',
  deleteRequest: (_zoneId, id) => writeRequests.deleteCustomWafRule(id as number),
  deletionGuard: shareGuard(NOUNS, shieldZoneName),
};

export const wafCustomRuleKind: ResourceKind<WafCustomRuleSpec, LiveWafRule | null> = {
  kind: 'WafCustomRule',
  lifecycle,
  spec: wafCustomRuleSpec as ResourceKind<WafCustomRuleSpec>['spec'],
  readLive: readWafRules,
  plan: planWafRule,
  checkReply(request, reply) {
    // The new rule's id: the inventory records it.
    if (request.operation === 'createCustomWafRule') return { id: (reply as { id: number }).id };
    return undefined;
  },
};
