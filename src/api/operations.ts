/**
 * Every API operation edgesync uses, as data: its id, seed number, method, area and whether
 * it writes. Plans hold `ApiRequest` values built here, so a plan shows the exact request it
 * will send and can be rendered or tested without a server; the client executes them.
 */
import type { CreateAppRequest, PatchAppRequest } from './wire/mc.js';
import type {
  CreateCustomAccessListRequest,
  CreateCustomWafRuleRequest,
  UpdateAccessListConfigurationRequest,
  UpdateCustomAccessListRequest,
  UpdateCustomWafRuleRequest,
} from './wire/shield.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
/** `dns` is the core API (DNS zones and pull zones): PascalCase, empty 401/404 bodies. */
type ApiArea = 'shield' | 'mc' | 'dns';

interface OperationInfo {
  /** What the operation does, in words: how messages name it (users never see the seed's numbers). */
  readonly title: string;
  /** The seed's operation number, for the nine seed operations (internal; never printed). */
  readonly seed?: `E${1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9}`;
  readonly method: HttpMethod;
  readonly area: ApiArea;
  readonly write: boolean;
  /** Path template, for metrics labels (never the substituted path: unbounded cardinality). */
  readonly route: string;
}

export const OPERATIONS = {
  updateCustomWafRule: {
    title: 'update custom WAF rule',
    seed: 'E1',
    method: 'PATCH',
    area: 'shield',
    write: true,
    route: '/shield/waf/custom-rule/{id}',
  },
  updateCustomAccessList: {
    title: 'update custom access list',
    seed: 'E2',
    method: 'PATCH',
    area: 'shield',
    write: true,
    route: '/shield/shield-zone/{shieldZoneId}/access-lists/{id}',
  },
  updateAccessListConfiguration: {
    title: 'update access list configuration',
    seed: 'E3',
    method: 'PATCH',
    area: 'shield',
    write: true,
    route: '/shield/shield-zone/{shieldZoneId}/access-lists/configurations/{id}',
  },
  createCustomWafRule: {
    title: 'create custom WAF rule',
    method: 'POST',
    area: 'shield',
    write: true,
    route: '/shield/waf/custom-rule',
  },
  deleteCustomWafRule: {
    title: 'delete custom WAF rule',
    method: 'DELETE',
    area: 'shield',
    write: true,
    route: '/shield/waf/custom-rule/{id}',
  },
  createCustomAccessList: {
    title: 'create custom access list',
    method: 'POST',
    area: 'shield',
    write: true,
    route: '/shield/shield-zone/{shieldZoneId}/access-lists',
  },
  deleteCustomAccessList: {
    title: 'delete custom access list',
    method: 'DELETE',
    area: 'shield',
    write: true,
    route: '/shield/shield-zone/{shieldZoneId}/access-lists/{id}',
  },
  patchApp: {
    title: 'update app',
    seed: 'E4',
    method: 'PATCH',
    area: 'mc',
    write: true,
    route: '/mc/apps/{appId}',
  },
  createApp: { title: 'create app', method: 'POST', area: 'mc', write: true, route: '/mc/apps' },
  deleteApp: { title: 'delete app', method: 'DELETE', area: 'mc', write: true, route: '/mc/apps/{appId}' },
  deployApp: {
    title: 'deploy app',
    method: 'POST',
    area: 'mc',
    write: true,
    route: '/mc/apps/{appId}/deploy',
  },
  disableDnssec: {
    title: 'disable DNSSEC',
    seed: 'E5',
    method: 'DELETE',
    area: 'dns',
    write: true,
    route: '/dnszone/{id}/dnssec',
  },
  getBotCategorization: {
    title: 'read bot categories',
    seed: 'E6',
    method: 'GET',
    area: 'shield',
    write: false,
    route: '/shield/shield-zone/{shieldZoneId}/bot-categorization',
  },
  getOptimalRegion: {
    title: 'read optimal region',
    seed: 'E7',
    method: 'GET',
    area: 'mc',
    write: false,
    route: '/mc/regions/optimal',
  },
  getWafPlanSegmentation: {
    title: 'read WAF rule catalogue',
    seed: 'E8',
    method: 'GET',
    area: 'shield',
    write: false,
    route: '/shield/waf/rules/plan-segmentation',
  },
  getApiGuardianMetrics: {
    title: 'read API Guardian metrics',
    seed: 'E9',
    method: 'GET',
    area: 'shield',
    write: false,
    route: '/shield/metrics/shield-zone/{shieldZoneId}/api-guardian',
  },
  listCustomWafRules: {
    title: 'list custom WAF rules',
    method: 'GET',
    area: 'shield',
    write: false,
    route: '/shield/waf/custom-rules/{shieldZoneId}',
  },
  getCustomWafRule: {
    title: 'read custom WAF rule',
    method: 'GET',
    area: 'shield',
    write: false,
    route: '/shield/waf/custom-rule/{id}',
  },
  listAccessLists: {
    title: 'list access lists',
    method: 'GET',
    area: 'shield',
    write: false,
    route: '/shield/shield-zone/{shieldZoneId}/access-lists',
  },
  getCustomAccessList: {
    title: 'read custom access list',
    method: 'GET',
    area: 'shield',
    write: false,
    route: '/shield/shield-zone/{shieldZoneId}/access-lists/{id}',
  },
  getShieldZone: {
    title: 'read Shield Zone',
    method: 'GET',
    area: 'shield',
    write: false,
    route: '/shield/shield-zone/{shieldZoneId}',
  },
  listShieldZones: {
    title: 'list Shield Zones',
    method: 'GET',
    area: 'shield',
    write: false,
    route: '/shield/shield-zones',
  },
  listPullZones: { title: 'list pull zones', method: 'GET', area: 'dns', write: false, route: '/pullzone' },
  getApp: { title: 'read app', method: 'GET', area: 'mc', write: false, route: '/mc/apps/{appId}' },
  listApps: { title: 'list apps', method: 'GET', area: 'mc', write: false, route: '/mc/apps' },
  getAppOverview: {
    title: 'read app overview',
    method: 'GET',
    area: 'mc',
    write: false,
    route: '/mc/apps/{appId}/overview',
  },
  getDnsZone: { title: 'read DNS zone', method: 'GET', area: 'dns', write: false, route: '/dnszone/{id}' },
  listDnsZones: { title: 'list DNS zones', method: 'GET', area: 'dns', write: false, route: '/dnszone' },
  enableDnssec: {
    title: 'enable DNSSEC',
    method: 'POST',
    area: 'dns',
    write: true,
    route: '/dnszone/{id}/dnssec',
  },
} as const satisfies Record<string, OperationInfo>;

export type OperationId = keyof typeof OPERATIONS;

/** Operations the reconciler writes with; a plan's requests are always one of these. */
export type WriteOperationId = {
  [K in OperationId]: (typeof OPERATIONS)[K]['write'] extends true ? K : never;
}[OperationId];

/** A request as plain data: what a plan shows and what apply sends. */
export interface ApiRequest<Op extends OperationId = OperationId> {
  readonly operation: Op;
  readonly method: HttpMethod;
  /** Relative to the base URL, parameters substituted, query included. */
  readonly path: string;
  readonly body?: unknown;
}

function request<Op extends OperationId>(operation: Op, path: string, body?: unknown): ApiRequest<Op> {
  const method = OPERATIONS[operation].method;
  return body === undefined ? { operation, method, path } : { operation, method, path, body };
}

const seg = (value: string | number): string => encodeURIComponent(String(value));

/** Builders for every write request; the only place paths of writes are spelled. */
export const writeRequests = {
  /** E1 */
  updateCustomWafRule: (id: number, body: UpdateCustomWafRuleRequest) =>
    request('updateCustomWafRule', `/shield/waf/custom-rule/${seg(id)}`, body),
  /** E2 */
  updateCustomAccessList: (shieldZoneId: number, listId: number, body: UpdateCustomAccessListRequest) =>
    request(
      'updateCustomAccessList',
      `/shield/shield-zone/${seg(shieldZoneId)}/access-lists/${seg(listId)}`,
      body,
    ),
  /** E3: the path id is the list's configuration id, not the list id. */
  updateAccessListConfiguration: (
    shieldZoneId: number,
    configurationId: number,
    body: UpdateAccessListConfigurationRequest,
  ) =>
    request(
      'updateAccessListConfiguration',
      `/shield/shield-zone/${seg(shieldZoneId)}/access-lists/configurations/${seg(configurationId)}`,
      body,
    ),
  createCustomWafRule: (body: CreateCustomWafRuleRequest) =>
    request('createCustomWafRule', '/shield/waf/custom-rule', body),
  deleteCustomWafRule: (id: number) => request('deleteCustomWafRule', `/shield/waf/custom-rule/${seg(id)}`),
  createCustomAccessList: (shieldZoneId: number, body: CreateCustomAccessListRequest) =>
    request('createCustomAccessList', `/shield/shield-zone/${seg(shieldZoneId)}/access-lists`, body),
  deleteCustomAccessList: (shieldZoneId: number, listId: number) =>
    request('deleteCustomAccessList', `/shield/shield-zone/${seg(shieldZoneId)}/access-lists/${seg(listId)}`),
  /** E4 */
  patchApp: (appId: string, body: PatchAppRequest) => request('patchApp', `/mc/apps/${seg(appId)}`, body),
  createApp: (body: CreateAppRequest) => request('createApp', '/mc/apps', body),
  deleteApp: (appId: string) => request('deleteApp', `/mc/apps/${seg(appId)}`),
  deployApp: (appId: string) => request('deployApp', `/mc/apps/${seg(appId)}/deploy`),
  /** E5 */
  disableDnssec: (zoneId: number) => request('disableDnssec', `/dnszone/${seg(zoneId)}/dnssec`),
  enableDnssec: (zoneId: number) => request('enableDnssec', `/dnszone/${seg(zoneId)}/dnssec`),
} as const;

/** Builders for read requests (companion reads and E6–E9). */
export const readRequests = {
  getBotCategorization: (shieldZoneId: number) =>
    request('getBotCategorization', `/shield/shield-zone/${seg(shieldZoneId)}/bot-categorization`),
  getOptimalRegion: () => request('getOptimalRegion', '/mc/regions/optimal'),
  getWafPlanSegmentation: () => request('getWafPlanSegmentation', '/shield/waf/rules/plan-segmentation'),
  getApiGuardianMetrics: (shieldZoneId: number) =>
    request('getApiGuardianMetrics', `/shield/metrics/shield-zone/${seg(shieldZoneId)}/api-guardian`),
  listCustomWafRules: (shieldZoneId: number, page: number, perPage: number) =>
    request(
      'listCustomWafRules',
      `/shield/waf/custom-rules/${seg(shieldZoneId)}?page=${page}&perPage=${perPage}`,
    ),
  getCustomWafRule: (id: number) => request('getCustomWafRule', `/shield/waf/custom-rule/${seg(id)}`),
  listAccessLists: (shieldZoneId: number) =>
    request('listAccessLists', `/shield/shield-zone/${seg(shieldZoneId)}/access-lists`),
  getCustomAccessList: (shieldZoneId: number, listId: number) =>
    request('getCustomAccessList', `/shield/shield-zone/${seg(shieldZoneId)}/access-lists/${seg(listId)}`),
  getShieldZone: (shieldZoneId: number) =>
    request('getShieldZone', `/shield/shield-zone/${seg(shieldZoneId)}`),
  listShieldZones: (page: number, perPage: number) =>
    request('listShieldZones', `/shield/shield-zones?page=${page}&perPage=${perPage}`),
  listPullZones: (page: number, perPage: number) =>
    request('listPullZones', `/pullzone?page=${page}&perPage=${perPage}`),
  getApp: (appId: string) => request('getApp', `/mc/apps/${seg(appId)}`),
  listApps: (limit: number, cursor: string | undefined) =>
    request(
      'listApps',
      `/mc/apps?limit=${limit}${cursor === undefined ? '' : `&nextCursor=${encodeURIComponent(cursor)}`}`,
    ),
  getAppOverview: (appId: string) => request('getAppOverview', `/mc/apps/${seg(appId)}/overview`),
  getDnsZone: (zoneId: number) => request('getDnsZone', `/dnszone/${seg(zoneId)}`),
  listDnsZones: (page: number, perPage: number) =>
    request('listDnsZones', `/dnszone?page=${page}&perPage=${perPage}`),
} as const;
