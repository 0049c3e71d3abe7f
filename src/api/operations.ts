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
export type ApiArea = 'shield' | 'mc' | 'dns';

interface OperationInfo {
  /** The seed's operation number, for the nine seed operations. */
  readonly seed?: `E${1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9}`;
  readonly method: HttpMethod;
  readonly area: ApiArea;
  readonly write: boolean;
  /** Path template, for metrics labels (never the substituted path: unbounded cardinality). */
  readonly route: string;
}

export const OPERATIONS = {
  updateCustomWafRule: {
    seed: 'E1',
    method: 'PATCH',
    area: 'shield',
    write: true,
    route: '/shield/waf/custom-rule/{id}',
  },
  updateCustomAccessList: {
    seed: 'E2',
    method: 'PATCH',
    area: 'shield',
    write: true,
    route: '/shield/shield-zone/{shieldZoneId}/access-lists/{id}',
  },
  updateAccessListConfiguration: {
    seed: 'E3',
    method: 'PATCH',
    area: 'shield',
    write: true,
    route: '/shield/shield-zone/{shieldZoneId}/access-lists/configurations/{id}',
  },
  createCustomWafRule: {
    method: 'POST',
    area: 'shield',
    write: true,
    route: '/shield/waf/custom-rule',
  },
  deleteCustomWafRule: {
    method: 'DELETE',
    area: 'shield',
    write: true,
    route: '/shield/waf/custom-rule/{id}',
  },
  createCustomAccessList: {
    method: 'POST',
    area: 'shield',
    write: true,
    route: '/shield/shield-zone/{shieldZoneId}/access-lists',
  },
  deleteCustomAccessList: {
    method: 'DELETE',
    area: 'shield',
    write: true,
    route: '/shield/shield-zone/{shieldZoneId}/access-lists/{id}',
  },
  patchApp: { seed: 'E4', method: 'PATCH', area: 'mc', write: true, route: '/mc/apps/{appId}' },
  createApp: { method: 'POST', area: 'mc', write: true, route: '/mc/apps' },
  deleteApp: { method: 'DELETE', area: 'mc', write: true, route: '/mc/apps/{appId}' },
  deployApp: { method: 'POST', area: 'mc', write: true, route: '/mc/apps/{appId}/deploy' },
  disableDnssec: { seed: 'E5', method: 'DELETE', area: 'dns', write: true, route: '/dnszone/{id}/dnssec' },
  getBotCategorization: {
    seed: 'E6',
    method: 'GET',
    area: 'shield',
    write: false,
    route: '/shield/shield-zone/{shieldZoneId}/bot-categorization',
  },
  getOptimalRegion: { seed: 'E7', method: 'GET', area: 'mc', write: false, route: '/mc/regions/optimal' },
  getWafPlanSegmentation: {
    seed: 'E8',
    method: 'GET',
    area: 'shield',
    write: false,
    route: '/shield/waf/rules/plan-segmentation',
  },
  getApiGuardianMetrics: {
    seed: 'E9',
    method: 'GET',
    area: 'shield',
    write: false,
    route: '/shield/metrics/shield-zone/{shieldZoneId}/api-guardian',
  },
  listCustomWafRules: {
    method: 'GET',
    area: 'shield',
    write: false,
    route: '/shield/waf/custom-rules/{shieldZoneId}',
  },
  getCustomWafRule: { method: 'GET', area: 'shield', write: false, route: '/shield/waf/custom-rule/{id}' },
  listAccessLists: {
    method: 'GET',
    area: 'shield',
    write: false,
    route: '/shield/shield-zone/{shieldZoneId}/access-lists',
  },
  getCustomAccessList: {
    method: 'GET',
    area: 'shield',
    write: false,
    route: '/shield/shield-zone/{shieldZoneId}/access-lists/{id}',
  },
  getShieldZone: {
    method: 'GET',
    area: 'shield',
    write: false,
    route: '/shield/shield-zone/{shieldZoneId}',
  },
  getApp: { method: 'GET', area: 'mc', write: false, route: '/mc/apps/{appId}' },
  listApps: { method: 'GET', area: 'mc', write: false, route: '/mc/apps' },
  getAppOverview: { method: 'GET', area: 'mc', write: false, route: '/mc/apps/{appId}/overview' },
  getDnsZone: { method: 'GET', area: 'dns', write: false, route: '/dnszone/{id}' },
  listDnsZones: { method: 'GET', area: 'dns', write: false, route: '/dnszone' },
  enableDnssec: { method: 'POST', area: 'dns', write: true, route: '/dnszone/{id}/dnssec' },
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
