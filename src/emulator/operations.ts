/**
 * Operation ids: the names the journal, the API client and the metrics all use for the
 * routes. E1-E9 are the seed's operations; the rest are the companion reads and writes
 * edgesync needs; `unknown` is any request that matched no route.
 */
const OPERATIONS = [
  'updateCustomWafRule',
  'updateCustomAccessList',
  'updateAccessListConfiguration',
  'patchApp',
  'disableDnssec',
  'getBotCategorization',
  'getOptimalRegion',
  'getWafPlanSegmentation',
  'getApiGuardianMetrics',
  'listCustomWafRules',
  'getCustomWafRule',
  'listAccessLists',
  'getCustomAccessList',
  'getApp',
  'getDnsZone',
  'listDnsZones',
  'enableDnssec',
  'createCustomWafRule',
  'deleteCustomWafRule',
  'createCustomAccessList',
  'deleteCustomAccessList',
  'getShieldZone',
  'listShieldZones',
  'listPullZones',
  'listApps',
  'getAppOverview',
  'listRegions',
  'getRegionSettings',
  'listVolumes',
  'setContainerEnv',
  'createApp',
  'deleteApp',
  'deployApp',
  'undeployApp',
  'restartApp',
  'addEndpoint',
  'removeEndpoint',
  'removeVolume',
  'listRegistries',
  'unknown',
] as const;

/** One of OPERATIONS. */
export type OperationId = (typeof OPERATIONS)[number];
