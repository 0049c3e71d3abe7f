/**
 * Built-in data for the read-only operations (E6-E9) when the seed has none: small but
 * complete, so every field of every reply is filled and a client's tables have rows to show.
 */
import { BotCategorizationAction, BotCategory, BotCategoryAction, ShieldPlanType } from '../domain/enums.js';
import type {
  ApiGuardianActivity,
  ApiGuardianMetrics,
  BotCategorizationGroup,
  DnsZoneModel,
  Region,
  WafRuleMainGroupModel,
  WafRulesByPlanModel,
} from './wire.js';

/** E7 default: Frankfurt. */
export function defaultOptimalRegion(): Region {
  return { id: 'DE', name: 'Frankfurt', group: 'Europe', hasAnycastSupport: true, hasCapacity: true };
}

/** `GET /mc/regions` default: a few real bunny.net region codes, Frankfurt (E7's default) first. */
export function defaultRegions(): Region[] {
  const region = (id: string, name: string, group: string, hasAnycastSupport = true): Region => ({
    id,
    name,
    group,
    hasAnycastSupport,
    hasCapacity: true,
  });
  return [
    region('DE', 'Frankfurt', 'Europe'),
    region('UK', 'London', 'Europe'),
    region('SE', 'Stockholm', 'Europe', false),
    region('NY', 'New York', 'North America'),
    region('LA', 'Los Angeles', 'North America'),
    region('SG', 'Singapore', 'Asia'),
    region('SYD', 'Sydney', 'Oceania', false),
    region('BR', 'Sao Paulo', 'South America', false),
  ];
}

/** E6 default: three categories with a few well-known bots. */
export function defaultBotCategories(): BotCategorizationGroup[] {
  return [
    {
      category: BotCategory.SEO,
      categoryAction: BotCategoryAction.None,
      bots: [
        {
          botId: 1,
          userAgentMatch: 'Googlebot',
          category: BotCategory.SEO,
          action: BotCategorizationAction.None,
          isVerifiable: true,
        },
        {
          botId: 2,
          userAgentMatch: 'bingbot',
          category: BotCategory.SEO,
          action: BotCategorizationAction.None,
          isVerifiable: true,
        },
      ],
    },
    {
      category: BotCategory.AIScraper,
      categoryAction: BotCategoryAction.Block,
      bots: [
        {
          botId: 20,
          userAgentMatch: 'GPTBot',
          category: BotCategory.AIScraper,
          action: BotCategorizationAction.Block,
          isVerifiable: true,
        },
        {
          botId: 21,
          userAgentMatch: 'CCBot',
          category: BotCategory.AIScraper,
          action: BotCategorizationAction.Block,
          isVerifiable: false,
        },
      ],
    },
    {
      category: BotCategory.Social,
      categoryAction: BotCategoryAction.Allow,
      bots: [
        {
          botId: 40,
          userAgentMatch: 'facebookexternalhit',
          category: BotCategory.Social,
          action: BotCategorizationAction.Allow,
          isVerifiable: true,
        },
      ],
    },
  ];
}

function ruleSet(prefix: string, groupId: number, groupName: string, code: string): WafRuleMainGroupModel {
  return {
    name: 'OWASP Core Rule Set',
    ruleset: 'owasp-crs',
    ruleGroups: [
      {
        id: groupId,
        name: groupName,
        code,
        fileName: `REQUEST-${groupId}-${code}.conf`,
        mainGroup: 'OWASP Core Rule Set',
        ruleset: 'owasp-crs',
        description: `${groupName} rules`,
        rules: [
          { ruleId: `${prefix}100`, description: `${groupName}: generic attack` },
          { ruleId: `${prefix}110`, description: `${groupName}: encoded attack` },
        ],
      },
    ],
  };
}

/** E8 default: the four Shield plans, each with the rule sets it unlocks. */
export function defaultWafCatalog(): WafRulesByPlanModel[] {
  const basic = [ruleSet('942', 942, 'SQL Injection', 'SQLI')];
  const advanced = [...basic, ruleSet('941', 941, 'Cross-Site Scripting', 'XSS')];
  const business = [...advanced, ruleSet('932', 932, 'Remote Command Execution', 'RCE')];
  const enterprise = [...business, ruleSet('934', 934, 'Node.js Attacks', 'NODEJS')];
  return [
    { planValue: ShieldPlanType.Basic, planName: 'Basic', rules: basic },
    { planValue: ShieldPlanType.Advanced, planName: 'Advanced', rules: advanced },
    { planValue: ShieldPlanType.Business, planName: 'Business', rules: business },
    { planValue: ShieldPlanType.Enterprise, planName: 'Enterprise', rules: enterprise },
  ];
}

/**
 * E9 default: 28 daily buckets keyed by date (`YYYY-MM-DD`, ending today, UTC) with values
 * derived from the zone id, and totals that are the sums of the buckets. The real key
 * format is undocumented (docs/api-notes.md, Read-only operations); dates are the likeliest reading of "past 28 days".
 */
export function defaultApiGuardianMetrics(shieldZoneId: number, today = new Date()): ApiGuardianMetrics {
  const overview: Record<string, ApiGuardianActivity> = {};
  const totals = { blocked: 0, logged: 0, limited: 0, inspected: 0, validation: 0, auth: 0 };
  const base = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  for (let day = 27; day >= 0; day -= 1) {
    const key = new Date(base - day * 86_400_000).toISOString().slice(0, 10);
    const seed = (shieldZoneId * 31 + day * 17) % 97;
    const activity: ApiGuardianActivity = {
      blockedRequests: seed,
      loggedRequests: seed * 2,
      rateLimited: seed % 7,
      requestsInspected: 1000 + seed * 10,
      failedRequestValidation: seed % 5,
      failedAuthenticationEnforcement: seed % 3,
    };
    overview[key] = activity;
    totals.blocked += activity.blockedRequests;
    totals.logged += activity.loggedRequests;
    totals.limited += activity.rateLimited;
    totals.inspected += activity.requestsInspected;
    totals.validation += activity.failedRequestValidation;
    totals.auth += activity.failedAuthenticationEnforcement;
  }
  return {
    totalBlockedRequests: totals.blocked,
    totalLoggedRequests: totals.logged,
    totalRateLimited: totals.limited,
    totalRequestsInspected: totals.inspected,
    totalFailedRequestValidation: totals.validation,
    totalFailedAuthenticationEnforcement: totals.auth,
    overviewPastTwentyEightDays: overview,
  };
}

/** A DNS zone as a fresh account has it: bunny's nameservers, logging off, no records. */
export function newDnsZoneModel(
  id: number,
  domain: string,
  dnsSecEnabled: boolean,
  created: string,
): DnsZoneModel {
  return {
    Id: id,
    Domain: domain,
    Records: [],
    DateModified: created,
    DateCreated: created,
    NameserversDetected: true,
    CustomNameserversEnabled: false,
    Nameserver1: 'kiki.bunny.net',
    Nameserver2: 'coco.bunny.net',
    SoaEmail: `hostmaster@${domain}`,
    NameserversNextCheck: created,
    LoggingEnabled: false,
    LoggingIPAnonymizationEnabled: true,
    LogAnonymizationType: 0,
    DnsSecEnabled: dnsSecEnabled,
    CertificateKeyType: 0,
  };
}
