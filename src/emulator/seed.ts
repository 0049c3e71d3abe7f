/**
 * The seed file: YAML describing the emulated account (Shield Zones with their custom rules
 * and access lists, apps, DNS zones, and the data of the read-only operations).
 *
 * Strict: unknown keys are errors, enums are names (case-insensitive) or integers, and every
 * problem is reported as `file:line:col: message (at path)`, all of them at once. Apps are
 * written in the E4 request form (the shape a user knows from the API docs) and built with
 * the same code as E4, so a seeded app is exactly what a PATCH would have produced.
 */
import { readFile } from 'node:fs/promises';
import type { Document } from 'yaml';
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import type { EnumTable } from '../domain/enums.js';
import {
  AccessListAction,
  AccessListCategory,
  AccessListType,
  BotCategorizationAction,
  BotCategory,
  BotCategoryAction,
  enumValue,
  ShieldPlanType,
} from '../domain/enums.js';
import { createApp } from './app-patch.js';
import { defaultOptimalRegion, defaultWafCatalog } from './defaults.js';
import type { ZoneLimitOverrides } from './records.js';
import { envelopeOk } from './replies.js';
import { EmulatorState } from './store.js';
import {
  AppName,
  AutoScalingRequest,
  ContainerRequest,
  RegionSettingsRequest,
  VolumeRequest,
} from './validation/app.js';
import { fieldPath } from './validation/issues.js';
import { ruleConfigurationSchema, toRuleConfiguration } from './validation/waf-rule.js';
import type { ApiGuardianMetrics, BotCategorizationGroup } from './wire.js';

/** An enum given by name (any casing) or integer; resolves to the integer. */
function enumInput(field: string, table: EnumTable) {
  const names = Object.keys(table).join(', ');
  return z.union([z.string(), z.number().int()]).transform((input, ctx) => {
    const value = enumValue(table, input);
    if (value === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `${field} '${input}' is not one of ${names} (or their integers)`,
      });
      return z.NEVER;
    }
    return value;
  });
}

const Id = z.number().int().nonnegative();

const CustomRuleSeed = z.strictObject({
  id: Id,
  ruleName: z.string(),
  ruleDescription: z.string().nullable().optional(),
  userId: z.string().optional(),
  ruleJson: z.string().nullable().optional(),
  ruleConfiguration: ruleConfigurationSchema(enumInput),
});

const CustomAccessListSeed = z.strictObject({
  id: Id,
  configurationId: Id.optional(),
  name: z.string().min(1),
  description: z.string().nullable().optional(),
  type: enumInput('type', AccessListType),
  /** Stored exactly as written (use a YAML block scalar for several entries). */
  content: z.string().optional(),
  /** Alternative to content: joined with "\n", no trailing newline. */
  entries: z.array(z.string()).optional(),
  isEnabled: z.boolean().default(true),
  action: enumInput('action', AccessListAction).default(AccessListAction.Block),
});

const ManagedAccessListSeed = z.strictObject({
  id: Id,
  configurationId: Id.optional(),
  name: z.string().min(1),
  description: z.string().nullable().optional(),
  type: enumInput('type', AccessListType).default(AccessListType.CIDR),
  category: enumInput('category', AccessListCategory).default(AccessListCategory.None),
  requiredPlan: enumInput('requiredPlan', ShieldPlanType).default(ShieldPlanType.Basic),
  isEnabled: z.boolean().default(false),
  action: enumInput('action', AccessListAction).default(AccessListAction.Block),
  entryCount: z.number().int().nonnegative().default(0),
  updateFrequency: z.string().default('1.00:00:00'),
});

const BotCategorySeed = z.strictObject({
  category: enumInput('category', BotCategory),
  categoryAction: enumInput('categoryAction', BotCategoryAction).default(BotCategoryAction.None),
  bots: z.array(
    z.strictObject({
      botId: Id,
      userAgentMatch: z.string(),
      action: enumInput('action', BotCategorizationAction).default(BotCategorizationAction.None),
      isVerifiable: z.boolean().default(false),
    }),
  ),
});

const Count = z.number().int().nonnegative().default(0);

const ActivitySeed = z.strictObject({
  blockedRequests: Count,
  loggedRequests: Count,
  rateLimited: Count,
  requestsInspected: Count,
  failedRequestValidation: Count,
  failedAuthenticationEnforcement: Count,
});

const ApiGuardianSeed = z.strictObject({
  totalBlockedRequests: Count,
  totalLoggedRequests: Count,
  totalRateLimited: Count,
  totalRequestsInspected: Count,
  totalFailedRequestValidation: Count,
  totalFailedAuthenticationEnforcement: Count,
  overviewPastTwentyEightDays: z.record(z.string(), ActivitySeed).nullable().default({}),
});

const ShieldZoneSeed = z.strictObject({
  id: Id,
  pullZoneId: Id.optional(),
  planType: enumInput('planType', ShieldPlanType).default(ShieldPlanType.Advanced),
  /** Plan limits of this zone; each one left out follows the plan (see shield-zone.ts). */
  customWafRulesLimit: Id.optional(),
  customListLimit: Id.optional(),
  customEntryLimit: Id.optional(),
  rateLimitRulesLimit: Id.optional(),
  customRules: z.array(CustomRuleSeed).default([]),
  customAccessLists: z.array(CustomAccessListSeed).default([]),
  managedAccessLists: z.array(ManagedAccessListSeed).default([]),
  botCategories: z.array(BotCategorySeed).optional(),
  apiGuardian: ApiGuardianSeed.optional(),
});

const AppSeed = z.strictObject({
  id: z.string().min(1),
  name: AppName,
  status: z.enum(['unknown', 'active', 'progressing', 'inactive', 'failing', 'suspended']).optional(),
  runtimeType: z.string().optional(),
  autoScaling: AutoScalingRequest.optional(),
  regionSettings: RegionSettingsRequest.optional(),
  containerTemplates: z.array(ContainerRequest).min(1),
  volumes: z.array(VolumeRequest).optional(),
});

const DnsZoneSeed = z.strictObject({
  id: Id,
  domain: z.string().min(1),
  dnsSecEnabled: z.boolean().default(false),
  dsConfigured: z.boolean().default(false),
});

const RegionSeed = z.strictObject({
  id: z.string().min(1),
  name: z.string(),
  group: z.string(),
  hasAnycastSupport: z.boolean(),
  hasCapacity: z.boolean(),
});

const WafCatalogSeed = z.array(
  z.strictObject({
    planValue: enumInput('planValue', ShieldPlanType),
    planName: z.string(),
    rules: z.array(
      z.strictObject({
        name: z.string(),
        ruleset: z.string(),
        ruleGroups: z.array(
          z.strictObject({
            id: Id,
            name: z.string(),
            code: z.string(),
            fileName: z.string(),
            mainGroup: z.string(),
            ruleset: z.string(),
            description: z.string(),
            rules: z.array(z.strictObject({ ruleId: z.string(), description: z.string() })),
          }),
        ),
      }),
    ),
  }),
);

/** The seed document's schema. */
export const EmulatorSeedSpec = z.strictObject({
  shieldZones: z.array(ShieldZoneSeed).default([]),
  apps: z.array(AppSeed).default([]),
  dnsZones: z.array(DnsZoneSeed).default([]),
  optimalRegion: RegionSeed.optional(),
  wafCatalog: WafCatalogSeed.optional(),
});

/**
 * A seed as written (YAML or code): enums by name or integer, defaults optional. Everything
 * that takes a seed validates it again, so a hand-built object gets the same checks.
 */
export type EmulatorSeed = z.input<typeof EmulatorSeedSpec>;
type ParsedSeed = z.output<typeof EmulatorSeedSpec>;

/** One problem in a seed, with its position when the seed came from text. */
export interface SeedIssue {
  path: string;
  message: string;
  line?: number;
  col?: number;
}

/** A seed that does not validate; `message` lists every issue, one per line. */
export class SeedError extends Error {
  readonly issues: readonly SeedIssue[];

  constructor(source: string, issues: readonly SeedIssue[]) {
    const lines = issues.map((i) =>
      i.line === undefined
        ? `${source}: ${i.message} (at ${i.path})`
        : `${source}:${i.line}:${i.col}: ${i.message} (at ${i.path})`,
    );
    super(`invalid emulator seed:\n${lines.join('\n')}`);
    this.name = 'SeedError';
    this.issues = issues;
  }
}

interface RawIssue {
  path: PropertyKey[];
  message: string;
}

function zodIssues(error: z.ZodError): RawIssue[] {
  const out: RawIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        out.push({ path: [...issue.path, key], message: `unknown field '${key}'` });
    } else {
      out.push({ path: [...issue.path], message: issue.message });
    }
  }
  return out;
}

function zoneLimitOverrides(zone: z.output<typeof ShieldZoneSeed>): ZoneLimitOverrides {
  const limits: ZoneLimitOverrides = {};
  if (zone.customWafRulesLimit !== undefined) limits.customWafRules = zone.customWafRulesLimit;
  if (zone.customListLimit !== undefined) limits.customLists = zone.customListLimit;
  if (zone.customEntryLimit !== undefined) limits.customEntries = zone.customEntryLimit;
  if (zone.rateLimitRulesLimit !== undefined) limits.rateLimitRules = zone.rateLimitRulesLimit;
  return limits;
}

/**
 * Loads a validated seed into `state`; returns the cross-object problems (duplicate ids,
 * apps that do not build) instead of throwing, so they can be reported with positions.
 */
function populate(seed: ParsedSeed, state: EmulatorState): RawIssue[] {
  const issues: RawIssue[] = [];
  const ruleIds = new Set<number>();
  if (seed.optimalRegion !== undefined) state.optimalRegion = seed.optimalRegion;
  if (seed.wafCatalog !== undefined) state.wafCatalog = seed.wafCatalog;

  for (const [zi, zone] of seed.shieldZones.entries()) {
    const at = (...rest: PropertyKey[]): PropertyKey[] => ['shieldZones', zi, ...rest];
    if (state.shieldZone(zone.id) !== undefined) {
      issues.push({ path: at('id'), message: `duplicate shield zone id ${zone.id}` });
      continue;
    }
    const record = state.addShieldZone({
      id: zone.id,
      pullZoneId: zone.pullZoneId ?? zone.id,
      planType: zone.planType,
      limits: zoneLimitOverrides(zone),
    });
    if (zone.botCategories !== undefined) {
      // Each bot repeats its group's category, as the real reply does.
      record.botCategories = zone.botCategories.map(
        (group): BotCategorizationGroup => ({
          category: group.category,
          categoryAction: group.categoryAction,
          bots: group.bots.map((bot) => ({ ...bot, category: group.category })),
        }),
      );
    }
    if (zone.apiGuardian !== undefined) record.apiGuardian = zone.apiGuardian as ApiGuardianMetrics;

    for (const [r, rule] of zone.customRules.entries()) {
      if (ruleIds.has(rule.id)) {
        issues.push({ path: at('customRules', r, 'id'), message: `duplicate custom rule id ${rule.id}` });
        continue;
      }
      ruleIds.add(rule.id);
      state.addCustomRule({
        id: rule.id,
        shieldZoneId: zone.id,
        userId: rule.userId ?? 'emulator-user',
        ruleName: rule.ruleName,
        ruleDescription: rule.ruleDescription ?? null,
        ruleJson: rule.ruleJson ?? null,
        ruleConfiguration: toRuleConfiguration(rule.ruleConfiguration),
        errorResponse: envelopeOk(),
      });
    }

    const lists = [
      ...zone.customAccessLists.map((list, i) => ({
        kind: 'custom' as const,
        list,
        path: at('customAccessLists', i),
      })),
      ...zone.managedAccessLists.map((list, i) => ({
        kind: 'managed' as const,
        list,
        path: at('managedAccessLists', i),
      })),
    ];
    // Explicit configuration ids first, so generated ones never collide with them.
    const explicit = new Set<number>();
    for (const { list, path } of lists) {
      if (list.configurationId === undefined) continue;
      if (explicit.has(list.configurationId)) {
        issues.push({
          path: [...path, 'configurationId'],
          message: `duplicate configurationId ${list.configurationId}`,
        });
      }
      explicit.add(list.configurationId);
    }
    const reserved = new Set<number>();
    for (const entry of lists) {
      if (record.accessLists.has(entry.list.id)) {
        issues.push({
          path: [...entry.path, 'id'],
          message: `duplicate access list id ${entry.list.id} in this zone`,
        });
        continue;
      }
      let configurationId = entry.list.configurationId;
      if (configurationId === undefined) {
        do configurationId = state.nextNumber();
        while (explicit.has(configurationId) || reserved.has(configurationId));
      } else if (reserved.has(configurationId)) {
        continue;
      }
      reserved.add(configurationId);
      if (entry.kind === 'custom') {
        const list = entry.list as z.output<typeof CustomAccessListSeed>;
        if (list.content !== undefined && list.entries !== undefined) {
          issues.push({ path: [...entry.path, 'entries'], message: 'give content or entries, not both' });
          continue;
        }
        state.addAccessList({
          kind: 'custom',
          shieldZoneId: zone.id,
          listId: list.id,
          configurationId,
          name: list.name,
          description: list.description ?? null,
          type: list.type,
          content: list.content ?? (list.entries ?? []).join('\n'),
          isEnabled: list.isEnabled,
          action: list.action,
        });
      } else {
        const list = entry.list as z.output<typeof ManagedAccessListSeed>;
        state.addAccessList({
          kind: 'managed',
          shieldZoneId: zone.id,
          listId: list.id,
          configurationId,
          name: list.name,
          description: list.description ?? null,
          type: list.type,
          entryCount: list.entryCount,
          isEnabled: list.isEnabled,
          action: list.action,
          category: list.category,
          requiredPlan: list.requiredPlan,
          updateFrequency: list.updateFrequency,
        });
      }
    }
  }

  for (const [a, app] of seed.apps.entries()) {
    if (state.app(app.id) !== undefined) {
      issues.push({ path: ['apps', a, 'id'], message: `duplicate app id '${app.id}'` });
      continue;
    }
    const pinned = app.containerTemplates
      .map((t) => t.id)
      .filter((id): id is string => typeof id === 'string');
    if (new Set(pinned).size !== pinned.length) {
      issues.push({
        path: ['apps', a, 'containerTemplates'],
        message: 'container template ids must be unique',
      });
      continue;
    }
    const input: Parameters<typeof createApp>[0] = {
      id: app.id,
      name: app.name,
      containerTemplates: app.containerTemplates,
    };
    if (app.status !== undefined) input.status = app.status;
    if (app.runtimeType !== undefined) {
      const runtime = app.runtimeType.toLowerCase();
      if (runtime !== 'shared' && runtime !== 'reserved') {
        issues.push({ path: ['apps', a, 'runtimeType'], message: 'runtimeType must be shared or reserved' });
        continue;
      }
      input.runtimeType = runtime;
    }
    if (app.autoScaling !== undefined) input.autoScaling = app.autoScaling;
    if (app.regionSettings !== undefined) input.regionSettings = app.regionSettings;
    if (app.volumes !== undefined) input.volumes = app.volumes;
    const outcome = createApp(input, state);
    if (!outcome.ok) {
      for (const error of outcome.errors) {
        issues.push({ path: ['apps', a, ...pathSegments(error.field)], message: error.message });
      }
      continue;
    }
    state.setApp(outcome.app, outcome.nodeSelectors);
  }

  for (const [d, zone] of seed.dnsZones.entries()) {
    if (state.dnsZoneRecord(zone.id) !== undefined) {
      issues.push({ path: ['dnsZones', d, 'id'], message: `duplicate DNS zone id ${zone.id}` });
      continue;
    }
    state.addDnsZone(zone);
  }
  return issues;
}

/** `a[0].b` → ['a', 0, 'b'] (the inverse of fieldPath). */
function pathSegments(field: string): PropertyKey[] {
  const out: PropertyKey[] = [];
  for (const part of field.split('.')) {
    const match = /^([^[]*)((?:\[\d+\])*)$/.exec(part);
    if (match === null) {
      out.push(part);
      continue;
    }
    if (match[1] !== '') out.push(match[1] as string);
    for (const index of (match[2] ?? '').matchAll(/\[(\d+)\]/g)) out.push(Number(index[1]));
  }
  return out;
}

function locate(doc: Document | undefined, lineCounter: LineCounter | undefined, issue: RawIssue): SeedIssue {
  const out: SeedIssue = { path: fieldPath(issue.path), message: issue.message };
  if (doc === undefined || lineCounter === undefined) return out;
  // A missing key has no node: walk up until something exists, and point there.
  for (let depth = issue.path.length; depth >= 0; depth -= 1) {
    const node = doc.getIn(issue.path.slice(0, depth), true) as
      | { range?: [number, number, number] }
      | undefined;
    if (node?.range !== undefined) {
      const pos = lineCounter.linePos(node.range[0]);
      out.line = pos.line;
      out.col = pos.col;
      break;
    }
  }
  return out;
}

function validate(
  input: unknown,
  source: string,
  doc?: Document,
  lineCounter?: LineCounter,
): { seed: ParsedSeed; state: EmulatorState } | never {
  const parsed = EmulatorSeedSpec.safeParse(input ?? {});
  if (!parsed.success) {
    throw new SeedError(
      source,
      zodIssues(parsed.error).map((i) => locate(doc, lineCounter, i)),
    );
  }
  const state = newState();
  const issues = populate(parsed.data, state);
  if (issues.length > 0)
    throw new SeedError(
      source,
      issues.map((i) => locate(doc, lineCounter, i)),
    );
  return { seed: parsed.data, state };
}

function newState(): EmulatorState {
  return new EmulatorState({ optimalRegion: defaultOptimalRegion(), wafCatalog: defaultWafCatalog() });
}

/**
 * Parses and validates seed YAML. Throws SeedError listing every problem as
 * `sourceName:line:col: message (at path)`. An empty document is an empty seed.
 */
export function parseSeed(text: string, sourceName: string): EmulatorSeed {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new SeedError(
      sourceName,
      doc.errors.map((e) => {
        const issue: SeedIssue = { path: '$', message: e.message.split('\n')[0] ?? e.message };
        const pos = e.linePos?.[0];
        if (pos !== undefined) {
          issue.line = pos.line;
          issue.col = pos.col;
        }
        return issue;
      }),
    );
  }
  return validate(doc.toJS(), sourceName, doc, lineCounter).seed;
}

/**
 * Where `edgesync run --emulator` looks for the account it emulates, relative to the config
 * directory (the loader ignores dot folders).
 */
export const EMULATOR_SEED_PATH = '.emulator/seed.yaml';

/** Reads and parses a seed file; errors name the file (and line) at fault. */
export async function loadSeedFile(path: string): Promise<EmulatorSeed> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new SeedError(path, [
      { path: '$', message: `cannot read the seed file: ${(err as Error).message}` },
    ]);
  }
  return parseSeed(text, path);
}

/** A state built from a seed given in code (validated the same way; errors carry paths only). */
export function stateFromSeed(seed: EmulatorSeed | undefined): EmulatorState {
  return validate(seed ?? {}, 'seed').state;
}
