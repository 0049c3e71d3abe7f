/**
 * The replies of the read-only operations E6–E9 as readable tables. Pure: a validated reply in,
 * text lines out, so the exact output is easy to test and the command module stays small.
 * Enum integers print as the names of `src/domain/enums.ts` (an unknown integer as itself).
 */
import type { OptimalRegionWire } from '../api/wire/mc.js';
import type {
  ApiGuardianMetricsWire,
  BotCategorizationWire,
  WafPlanSegmentationWire,
} from '../api/wire/shield.js';
import {
  BotCategorizationAction,
  BotCategory,
  BotCategoryAction,
  type EnumTable,
  enumName,
} from '../domain/enums.js';
import { ReconcileError } from '../errors.js';
import { type Column, count, renderSections, renderTable, type TableSection, yesNo } from './tables.js';

/** How views print: colour or not. */
export interface ViewOptions {
  readonly color: boolean;
}

function named(table: EnumTable, value: number | null | undefined): string {
  return value === null || value === undefined ? '-' : enumName(table, value);
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** E6: one section per category (name and category action), one row per bot. */
export function botsView(reply: BotCategorizationWire, shieldZoneId: number, options: ViewOptions): string[] {
  const categories = reply.categories ?? [];
  const botCount = categories.reduce((sum, c) => sum + (c.bots?.length ?? 0), 0);
  if (categories.length === 0) return [`No bot categories are listed for Shield Zone ${shieldZoneId}.`];
  const columns: Column[] = [
    { header: 'BOT ID', align: 'right' },
    { header: 'USER-AGENT MATCH' },
    { header: 'VERIFIABLE' },
    { header: 'ACTION' },
  ];
  const sections: TableSection[] = categories.map((category) => ({
    title: `${named(BotCategory, category.category)} (category action: ${named(BotCategoryAction, category.categoryAction)})`,
    rows: (category.bots ?? []).map((bot) => [
      String(bot.botId),
      bot.userAgentMatch ?? '',
      yesNo(bot.isVerifiable),
      named(BotCategorizationAction, bot.action),
    ]),
  }));
  return [
    ...renderSections(columns, sections, { ...options, indent: 2 }),
    '',
    `${plural(botCount, 'bot')} in ${plural(categories.length, 'category', 'categories')}, Shield Zone ${shieldZoneId}.`,
  ];
}

type Plan = NonNullable<WafPlanSegmentationWire['data']>[number];
type RuleSet = NonNullable<Plan['rules']>[number];
type RuleGroup = NonNullable<RuleSet['ruleGroups']>[number];

/** What narrows the catalogue: a plan name and/or a rule-group code, both case-insensitive. */
export interface CatalogFilter {
  readonly plan?: string | undefined;
  readonly group?: string | undefined;
}

function same(a: string | null | undefined, b: string): boolean {
  return (a ?? '').toLowerCase() === b.toLowerCase();
}

function listOf(values: readonly (string | null | undefined)[]): string {
  const names = [...new Set(values.map((v) => v ?? '').filter((v) => v !== ''))];
  return names.length === 0 ? '(none)' : names.join(', ');
}

/**
 * The catalogue narrowed by the filter, in the reply's own shape (plans → rule sets → groups).
 * Throws USAGE when the plan or group names nothing, listing what there is.
 */
export function filterCatalog(
  reply: WafPlanSegmentationWire,
  filter: CatalogFilter,
): WafPlanSegmentationWire {
  const plans = reply.data ?? [];
  let kept = plans;
  if (filter.plan !== undefined) {
    const wanted = filter.plan;
    kept = plans.filter((p) => same(p.planName, wanted));
    if (kept.length === 0) {
      throw new ReconcileError(
        'USAGE',
        `no plan named ${JSON.stringify(wanted)}; the catalogue has ${listOf(plans.map((p) => p.planName))}`,
      );
    }
  }
  if (filter.group !== undefined) {
    const wanted = filter.group;
    const groups = (p: Plan) => (p.rules ?? []).flatMap((set) => set.ruleGroups ?? []);
    const narrowed = kept
      .map((p) => ({
        ...p,
        rules: (p.rules ?? [])
          .map((set) => ({ ...set, ruleGroups: (set.ruleGroups ?? []).filter((g) => same(g.code, wanted)) }))
          .filter((set) => set.ruleGroups.length > 0),
      }))
      .filter((p) => p.rules.length > 0);
    if (narrowed.length === 0) {
      const where = filter.plan === undefined ? 'the catalogue' : `plan ${kept[0]?.planName ?? filter.plan}`;
      throw new ReconcileError(
        'USAGE',
        `no rule group with code ${JSON.stringify(wanted)} in ${where}; codes: ${listOf(kept.flatMap(groups).map((g) => g.code))}`,
      );
    }
    kept = narrowed;
  }
  return { ...reply, data: kept };
}

function ruleCount(group: RuleGroup): number {
  return group.rules?.length ?? 0;
}

/** E8 without a filter: one section per plan, one row per rule group with its rule count. */
export function catalogView(reply: WafPlanSegmentationWire, options: ViewOptions): string[] {
  const plans = reply.data ?? [];
  if (plans.length === 0) return ['The WAF rule catalogue is empty.'];
  const columns: Column[] = [
    { header: 'RULE SET' },
    { header: 'GROUP', align: 'right' },
    { header: 'CODE' },
    { header: 'NAME' },
    { header: 'RULES', align: 'right' },
  ];
  const sections: TableSection[] = plans.map((plan) => {
    const sets = plan.rules ?? [];
    const groups = sets.flatMap((set) => set.ruleGroups ?? []);
    const rules = groups.reduce((sum, g) => sum + ruleCount(g), 0);
    return {
      title: `${plan.planName ?? '(unnamed plan)'} (plan ${count(plan.planValue)}): ${plural(sets.length, 'rule set')}, ${plural(groups.length, 'rule group')}, ${plural(rules, 'rule')}`,
      rows: sets.flatMap((set) =>
        (set.ruleGroups ?? []).map((group) => [
          set.name ?? set.ruleset ?? '',
          count(group.id),
          group.code ?? '',
          group.name ?? '',
          String(ruleCount(group)),
        ]),
      ),
    };
  });
  return renderSections(columns, sections, { ...options, indent: 2 });
}

/**
 * E8 narrowed by `--plan`/`--group`: the rules of each matching group. A group that several
 * plans share with the same rules is shown once, naming those plans.
 */
export function catalogRulesView(narrowed: WafPlanSegmentationWire, options: ViewOptions): string[] {
  const seen = new Map<string, { group: RuleGroup; set: RuleSet; plans: string[] }>();
  for (const plan of narrowed.data ?? []) {
    for (const set of plan.rules ?? []) {
      for (const group of set.ruleGroups ?? []) {
        const key = JSON.stringify([group.id, group.code, set.name, group.rules]);
        const entry = seen.get(key);
        if (entry === undefined) seen.set(key, { group, set, plans: [plan.planName ?? '?'] });
        else entry.plans.push(plan.planName ?? '?');
      }
    }
  }
  const columns: Column[] = [{ header: 'RULE ID' }, { header: 'DESCRIPTION' }];
  const sections: TableSection[] = [...seen.values()].map(({ group, set, plans }) => ({
    title: `${group.code ?? '?'} ${group.name ?? ''} (group ${count(group.id)} in ${set.name ?? set.ruleset ?? '?'}; ${plans.length === 1 ? 'plan' : 'plans'} ${plans.join(', ')}): ${plural(ruleCount(group), 'rule')}`,
    rows: (group.rules ?? []).map((rule) => [rule.ruleId ?? '', rule.description ?? '']),
  }));
  return renderSections(columns, sections, { ...options, indent: 2 });
}

/** The six totals of E9, in the order a reader scans them, with their labels. */
const API_GUARDIAN_TOTALS = [
  ['totalRequestsInspected', 'requests inspected'],
  ['totalBlockedRequests', 'blocked'],
  ['totalLoggedRequests', 'logged'],
  ['totalRateLimited', 'rate limited'],
  ['totalFailedRequestValidation', 'failed request validation'],
  ['totalFailedAuthenticationEnforcement', 'failed authentication enforcement'],
] as const;

/** The per-key activity fields of the 28-day overview (OpenAPI `ApiGuardianEndpointActivity`). */
const ACTIVITY_COLUMNS = [
  ['requestsInspected', 'INSPECTED'],
  ['blockedRequests', 'BLOCKED'],
  ['loggedRequests', 'LOGGED'],
  ['rateLimited', 'RATE LIMITED'],
  ['failedRequestValidation', 'FAILED VALIDATION'],
  ['failedAuthenticationEnforcement', 'FAILED AUTH'],
] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function cell(value: unknown): string {
  if (value === undefined || value === null) return '-';
  return typeof value === 'number' || typeof value === 'string' ? String(value) : JSON.stringify(value);
}

/**
 * The 28-day overview. The OpenAPI file makes it a map of activity records; the seed says only
 * "object". Records get one column per activity field; any other value shape (numbers,
 * strings, lists) is shown as KEY/VALUE instead of failing.
 */
function overviewLines(overview: Record<string, unknown> | null | undefined, options: ViewOptions): string[] {
  const entries = Object.entries(overview ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length === 0) return ['Past 28 days: no activity reported.'];
  if (entries.every(([, value]) => isRecord(value))) {
    const columns: Column[] = [
      { header: 'KEY' },
      ...ACTIVITY_COLUMNS.map(([, header]) => ({ header, align: 'right' as const })),
    ];
    const rows = entries.map(([key, value]) => [
      key,
      ...ACTIVITY_COLUMNS.map(([field]) => cell((value as Record<string, unknown>)[field])),
    ]);
    return renderSections(columns, [{ title: 'Past 28 days', rows }], options);
  }
  return renderSections(
    [{ header: 'KEY' }, { header: 'VALUE' }],
    [{ title: 'Past 28 days', rows: entries.map(([key, value]) => [key, cell(value)]) }],
    options,
  );
}

/** E9: the six totals, then the 28-day overview. */
export function apiGuardianView(
  reply: ApiGuardianMetricsWire,
  shieldZoneId: number,
  options: ViewOptions,
): string[] {
  const data = reply.data;
  if (data === null || data === undefined)
    return [`No API Guardian metrics for Shield Zone ${shieldZoneId}.`];
  const totals = renderSections(
    [{ header: 'TOTAL' }, { header: 'REQUESTS', align: 'right' }],
    [
      {
        title: `API Guardian, Shield Zone ${shieldZoneId}`,
        rows: API_GUARDIAN_TOTALS.map(([field, label]) => [label, count(data[field])]),
      },
    ],
    options,
  );
  return [...totals, '', ...overviewLines(data.overviewPastTwentyEightDays, options)];
}

/** E7: the region chosen, one row. */
export function optimalRegionView(reply: OptimalRegionWire, options: ViewOptions): string[] {
  const r = reply.region;
  return renderTable(
    [
      { header: 'ID' },
      { header: 'NAME' },
      { header: 'GROUP' },
      { header: 'ANYCAST' },
      { header: 'CAPACITY' },
    ],
    [[r.id, r.name ?? '-', r.group ?? '-', yesNo(r.hasAnycastSupport), yesNo(r.hasCapacity)]],
    options,
  );
}
