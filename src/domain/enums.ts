/**
 * Seed facts: the enumerations of the management API, as integer <-> name tables.
 *
 * This module is pure data. The desired-state schemas, the kinds, the API client and the
 * emulator all read it, so an enum is spelled in exactly one place. Names are the seed's
 * (`../shared/seeds/000_*.txt`, "Enumerations"); AccessListAction/AccessListType come from
 * the Shield OpenAPI file because the seed leaves them out.
 */

/** An integer enum: name -> value. Names are matched case-insensitively on input. */
export type EnumTable = Readonly<Record<string, number>>;

export const WafRuleActionType = { Block: 1, Log: 2, Challenge: 3, Allow: 4, Bypass: 5 } as const;

export const WafRuleSeverityType = { NOTICE: 0, WARNING: 1, CRITICAL: 2 } as const;

/** 10, 11, 13 and 16 are deliberately absent: the seed says they are not allowed. */
export const WafRuleOperatorType = {
  BEGINSWITH: 0,
  ENDSWITH: 1,
  CONTAINS: 2,
  CONTAINSWORD: 3,
  STRMATCH: 4,
  EQ: 5,
  GE: 6,
  GT: 7,
  LE: 8,
  LT: 9,
  WITHIN: 12,
  RX: 14,
  STREQ: 15,
  DETECTSQLI: 17,
  DETECTXSS: 18,
} as const;

/** Operator integers the seed names as not allowed. */
export const FORBIDDEN_OPERATOR_VALUES: readonly number[] = [10, 11, 13, 16];

export const WafRuleTransformationType = {
  CMDLINE: 1,
  COMPRESSWHITESPACE: 2,
  CSSDECODE: 3,
  HEXENCODE: 4,
  HTMLENTITYDECODE: 5,
  JSDECODE: 6,
  LENGTH: 7,
  LOWERCASE: 8,
  MD5: 9,
  NORMALIZEPATH: 10,
  NORMALISEPATH: 11,
  NORMALIZEPATHWIN: 12,
  NORMALISEPATHWIN: 13,
  REMOVECOMMENTS: 14,
  REMOVENULLS: 15,
  REMOVEWHITESPACE: 16,
  REPLACECOMMENTS: 17,
  SHA1: 18,
  URLDECODE: 19,
  URLDECODEUNI: 20,
  UTF8TOUNICODE: 21,
} as const;

/** The 27 keys allowed in `variableTypes` (each value a string). */
export const WAF_VARIABLE_TYPES = [
  'REQUEST_URI',
  'REQUEST_URI_RAW',
  'ARGS',
  'ARGS_COMBINED_SIZE',
  'ARGS_GET',
  'ARGS_GET_NAMES',
  'ARGS_POST',
  'ARGS_POST_NAMES',
  'FILES_NAMES',
  'GEO',
  'REMOTE_ADDR',
  'QUERY_STRING',
  'REQUEST_BASENAME',
  'REQUEST_BODY',
  'REQUEST_COOKIES_NAMES',
  'REQUEST_COOKIES',
  'REQUEST_FILENAME',
  'REQUEST_HEADERS_NAMES',
  'REQUEST_HEADERS',
  'REQUEST_LINE',
  'REQUEST_METHOD',
  'REQUEST_PROTOCOL',
  'RESPONSE_BODY',
  'RESPONSE_HEADERS',
  'RESPONSE_STATUS',
  'FINGERPRINT',
  'VERIFIED_BOT_CATEGORY',
] as const;

/** E3 `action` (Shield OpenAPI `AccessListAction`). */
export const AccessListAction = { None: 0, Allow: 1, Block: 2, Challenge: 3, Log: 4, Bypass: 5 } as const;

/** Shield OpenAPI `AccessListType`; cannot be changed by E2. */
export const AccessListType = { IP: 0, CIDR: 1, ASN: 2, Country: 3, Organization: 4, JA4: 5 } as const;

/** Shield OpenAPI `ShieldPlanType`. */
export const ShieldPlanType = { Basic: 0, Advanced: 1, Business: 2, Enterprise: 3 } as const;

/** Shield OpenAPI `AccessListCategory`: a bit flag naming what a managed (curated) list contains. */
export const AccessListCategory = {
  None: 0,
  VPNs: 1,
  Datacenters: 2,
  Proxies: 4,
  TorExitNodes: 8,
  Botnets: 16,
  VulnerabilityScanners: 32,
  WebScrapers: 64,
  SearchEngines: 128,
  SearchEngineCrawlers: 256,
  AiSearch: 512,
  AiCrawlers: 1024,
  AiAgents: 2048,
  PagePreview: 4096,
  InternetTools: 8192,
} as const;

/** Shield OpenAPI `BotCategory` (E6 `category`). The spec's description also names 255 System; its enum does not. */
export const BotCategory = {
  None: 0,
  SEO: 1,
  AIScraper: 2,
  AITool: 3,
  Tool: 4,
  Ads: 5,
  Preview: 6,
  Social: 7,
} as const;

/** Shield OpenAPI `BotCategoryAction` (E6 `categoryAction`). */
export const BotCategoryAction = { None: 0, Block: 1, Allow: 2 } as const;

/** Shield OpenAPI `BotCategorizationAction` (E6 per-bot `action`). */
export const BotCategorizationAction = { None: 0, Block: 1, Allow: 2, Ignore: 3 } as const;

/** Magic Containers string enums, in the seed's lower-case form (the form edgesync sends). */
export const RUNTIME_TYPES = ['shared', 'reserved'] as const;
export const PORT_PROTOCOLS = ['tcp', 'udp', 'sctp'] as const;
export const IMAGE_PULL_POLICIES = ['always', 'ifNotPresent'] as const;

/** Name of an enum value, or the number as a string when the table does not know it. */
export function enumName(table: EnumTable, value: number): string {
  for (const [name, v] of Object.entries(table)) {
    if (v === value) return name;
  }
  return String(value);
}

/** Each table's values by lowercased name, built once: enum fields are resolved for every document of every load. */
const byLowerName = new WeakMap<EnumTable, ReadonlyMap<string, number>>();

function lowerNames(table: EnumTable): ReadonlyMap<string, number> {
  let names = byLowerName.get(table);
  if (names === undefined) {
    names = new Map(Object.entries(table).map(([name, value]) => [name.toLowerCase(), value]));
    byLowerName.set(table, names);
  }
  return names;
}

/**
 * Resolves a name (case-insensitive) or an integer to the enum's integer.
 * Returns undefined when the input is not a member, so callers can word their own error.
 */
export function enumValue(table: EnumTable, input: string | number): number | undefined {
  if (typeof input === 'number') {
    return Object.values(table).includes(input) ? input : undefined;
  }
  const wanted = input.trim().toLowerCase();
  const named = lowerNames(table).get(wanted);
  if (named !== undefined) return named;
  if (/^\d+$/.test(wanted)) return enumValue(table, Number(wanted));
  return undefined;
}
