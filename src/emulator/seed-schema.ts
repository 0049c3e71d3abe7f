/**
 * The seed file's schema: what a YAML seed may hold (Shield Zones with their custom rules,
 * access lists and limits, apps, DNS zones, the data of the read-only operations) and its
 * defaults. Strict: unknown keys are errors; enums are names (any casing) or integers. Apps
 * are written in the E4 request form, checked by E4's own schemas.
 */
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
import {
  AppName,
  AutoScalingRequest,
  ContainerRequest,
  RegionSettingsRequest,
  VolumeRequest,
} from './validation/app.js';
import { ruleConfigurationSchema } from './validation/waf-rule.js';

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

export const CustomAccessListSeed = z.strictObject({
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

export const ManagedAccessListSeed = z.strictObject({
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

/** A pull zone (core API): its name and custom hostnames; `<name>.b-cdn.net` is added, as the API does. */
const PullZoneSeed = z.strictObject({
  id: Id,
  name: z.string().min(1),
  hostnames: z.array(z.string().min(1)).default([]),
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
  /** The pull zones `GET /pullzone` lists (a Shield Zone names its own by `pullZoneId`). */
  pullZones: z.array(PullZoneSeed).default([]),
  optimalRegion: RegionSeed.optional(),
  /** The `GET /mc/regions` catalogue (default: eight regions). */
  regions: z.array(RegionSeed).optional(),
  wafCatalog: WafCatalogSeed.optional(),
  /**
   * How app changes roll out: `progressing` for `progressingMs` after each change, then
   * `active`, or `failing` for a container whose image tag is in `failingImageTags`.
   */
  rollout: z
    .strictObject({
      progressingMs: z.number().int().nonnegative().default(0),
      failingImageTags: z.array(z.string().min(1)).default([]),
    })
    .optional(),
  /** The `GET /mc/registries` listing (default: Docker Hub and GitHub, public). */
  registries: z
    .array(z.strictObject({ id: z.number().int().positive(), displayName: z.string(), hostName: z.string() }))
    .optional(),
});

/**
 * A seed as written (YAML or code): enums by name or integer, defaults optional. Everything
 * that takes a seed validates it again, so a hand-built object gets the same checks.
 */
export type EmulatorSeed = z.input<typeof EmulatorSeedSpec>;
/** A seed after validation: enums resolved to integers, defaults filled. */
export type ParsedSeed = z.output<typeof EmulatorSeedSpec>;
