/**
 * Reply and request bodies shared by the API client tests, shaped like the real API's
 * (docs/api-notes.md, Operations). Replies carry a few fields the wire schemas do not name, to prove the
 * client tolerates (and drops) them.
 */
import type { PatchAppRequest } from '../../../src/api/wire/mc.js';
import type { UpdateCustomWafRuleRequest } from '../../../src/api/wire/shield.js';

export const ZONE = 55;
export const RULE_ID = 1234;
export const LIST_ID = 9;
export const CONFIGURATION_ID = 901;
export const APP_ID = 'Go1e5FdmzoQdr3O';
export const DNS_ZONE_ID = 7;

export const okGeneric = { statusCode: 200, success: true, message: null, errorKey: null };

const ruleConfiguration = {
  actionType: 1,
  variableTypes: { REQUEST_URI: '' },
  operatorType: 17,
  severityType: 2,
  transformationTypes: [8, 19],
  value: '',
  isNegated: false,
  isRegexVariable: false,
  chainedRuleConditions: [
    {
      variableTypes: { ARGS: '' },
      operatorType: 2,
      value: 'union',
      isNegated: false,
      isRegexVariable: false,
    },
  ],
};

/** A CustomWafRule as the schema keeps it. */
export const rule = {
  id: RULE_ID,
  shieldZoneId: ZONE,
  ruleName: 'block-sqli',
  ruleDescription: '',
  ruleConfiguration,
  errorResponse: okGeneric,
};

/** The same rule as the API sends it, with fields edgesync does not read. */
export const ruleReply = { ...rule, userId: 'u-1', ruleJson: '{"x":1}' };

export const updateRuleBody: UpdateCustomWafRuleRequest = {
  ruleName: 'block-sqli',
  ruleDescription: '',
  ruleConfiguration: {
    actionType: 1,
    variableTypes: { REQUEST_URI: '' },
    operatorType: 17,
    severityType: 2,
    transformationTypes: [8, 19],
    value: '',
    isNegated: false,
    isRegexVariable: false,
    chainedRuleConditions: null,
  },
};

export const accessList = {
  id: LIST_ID,
  name: 'blocked-ips',
  description: 'known bad',
  type: 0,
  content: '192.0.2.1\n198.51.100.7',
  checksum: 'c0ffee',
  entryCount: 2,
  lastModified: '2026-11-01T10:00:00Z',
};

export const dnssecStatus = {
  Enabled: true,
  DsRecord: 'example.com. 3600 IN DS 12345 13 2 ABCDEF',
  Digest: 'ABCDEF',
  DigestType: 'SHA256 (2)',
  Algorithm: 13,
  PublicKey: 'mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ==',
  KeyTag: 12345,
  Flags: 257,
  DsConfigured: false,
};

export const patchAppBody: PatchAppRequest = {
  name: 'web app',
  containerTemplates: [
    {
      id: 'ct-1',
      name: 'web',
      imageName: 'nginx',
      imageNamespace: 'library',
      imageTag: '1.27',
      imageRegistryId: '1',
      environmentVariables: [{ name: 'MODE', value: 'prod' }],
    },
  ],
  volumes: [{ name: 'data', size: 10 }],
};

/** The same body plus one new container (no id): a request that creates. */
export const patchAppCreatingBody: PatchAppRequest = {
  ...patchAppBody,
  containerTemplates: [
    ...(patchAppBody.containerTemplates ?? []),
    {
      name: 'sidecar',
      imageName: 'envoy',
      imageNamespace: 'envoyproxy',
      imageTag: 'v1.31',
      imageRegistryId: '1',
    },
  ],
};

export const app = {
  id: APP_ID,
  name: 'web app',
  status: 'active',
  runtimeType: 'shared',
  autoScaling: { min: 1, max: 3 },
  regionSettings: { allowedRegionIds: ['DE', 'NY'], requiredRegionIds: ['DE'], maxAllowedRegions: 2 },
  containerTemplates: [
    {
      id: 'ct-1',
      name: 'web',
      imageName: 'nginx',
      imageNamespace: 'library',
      imageTag: '1.27',
      imageRegistryId: '1',
      endpoints: [{ id: 'ep-1', displayName: 'public', type: 'cdn', pullZoneId: '4711' }],
    },
  ],
  volumes: [{ name: 'data', size: 10 }],
};
