/**
 * Every error shape of docs/api-notes.md, Errors, over HTTP: the code, shape,
 * status, the API's words and the exact message. Retries are off (maxAttempts 1) so each case
 * is one exchange; retrying is tested in faults.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiErrorShape, FieldError } from '../../../src/api/errors.js';
import { ApiError } from '../../../src/api/errors.js';
import type { ApiClient } from '../../../src/api/types.js';
import type { ErrorCode } from '../../../src/errors.js';
import { ACCEPTED_RESULT_BODY, createTestClient, type TestClient } from '../../helpers/api-client.js';
import { reply, startTestServer, type TestServer } from '../../helpers/http-server.js';
import {
  APP_ID,
  accessList,
  CONFIGURATION_ID,
  DNS_ZONE_ID,
  LIST_ID,
  patchAppBody,
  RULE_ID,
  ruleReply,
  updateRuleBody,
  ZONE,
} from './fixtures.js';

let server: TestServer;
let test: TestClient;

beforeEach(async () => {
  server = await startTestServer();
  test = createTestClient(server.url, { retry: { maxAttempts: 1 } });
});

afterEach(async () => {
  await test.dispose();
  await server.close();
});

const E1 = (c: ApiClient) => c.updateCustomWafRule(RULE_ID, updateRuleBody);
const E2 = (c: ApiClient) => c.updateCustomAccessList(ZONE, LIST_ID, { content: 'x' });
const E3 = (c: ApiClient) => c.updateAccessListConfiguration(ZONE, CONFIGURATION_ID, { isEnabled: true });
const E4 = (c: ApiClient) => c.patchApp(APP_ID, patchAppBody);
const E5 = (c: ApiClient) => c.disableDnssec(DNS_ZONE_ID);
const E6 = (c: ApiClient) => c.getBotCategorization(ZONE);
const E7 = (c: ApiClient) => c.getOptimalRegion();
const E8 = (c: ApiClient) => c.getWafPlanSegmentation();
const E9 = (c: ApiClient) => c.getApiGuardianMetrics(ZONE);

const E1_PATH = `update custom WAF rule (PATCH /shield/waf/custom-rule/${RULE_ID})`;
const E2_PATH = `update custom access list (PATCH /shield/shield-zone/${ZONE}/access-lists/${LIST_ID})`;
const E3_PATH = `update access list configuration (PATCH /shield/shield-zone/${ZONE}/access-lists/configurations/${CONFIGURATION_ID})`;
const E4_PATH = `update app (PATCH /mc/apps/${APP_ID})`;
const E5_PATH = `disable DNSSEC (DELETE /dnszone/${DNS_ZONE_ID}/dnssec)`;
const E6_PATH = `read bot categories (GET /shield/shield-zone/${ZONE}/bot-categorization)`;
const E7_PATH = 'read optimal region (GET /mc/regions/optimal)';
const E8_PATH = 'read WAF rule catalogue (GET /shield/waf/rules/plan-segmentation)';
const E9_PATH = `read API Guardian metrics (GET /shield/metrics/shield-zone/${ZONE}/api-guardian)`;

interface ErrorCase {
  name: string;
  call: (client: ApiClient) => Promise<unknown>;
  status: number;
  body?: unknown;
  code: ErrorCode;
  shape: ApiErrorShape;
  apiMessage?: string;
  errorKey?: string;
  fieldErrors?: FieldError[];
  message: string;
}

const problem = (status: number, title: string, detail?: string) => ({
  type: `https://tools.ietf.org/html/rfc9110#section-15.5.${status - 399}`,
  title,
  status,
  ...(detail === undefined ? {} : { detail }),
  instance: '/x',
});
const extended = (status: number, title: string, errors: FieldError[]) => ({
  title,
  status,
  detail: null,
  instance: `/apps/${APP_ID}`,
  errors,
  id: APP_ID,
});
const envelopeError = (statusCode: number, message: string, errorKey: string) => ({
  data: null,
  error: { statusCode, success: false, message, errorKey },
});

const cases: ErrorCase[] = [
  // Shield: E1
  {
    name: 'E1 400 problem details',
    call: E1,
    status: 400,
    body: problem(400, 'Bad Request', 'operatorType 10 is not allowed'),
    code: 'API_REJECTED',
    shape: 'problem-details',
    apiMessage: 'operatorType 10 is not allowed',
    message: `${E1_PATH} failed: 400 Bad Request: operatorType 10 is not allowed (problem details)`,
  },
  {
    name: 'E1 401 UnauthorizedResult',
    call: E1,
    status: 401,
    body: { statusCode: 401 },
    code: 'API_AUTH',
    shape: 'unauthorized',
    message: `${E1_PATH} failed: 401 Unauthorized (UnauthorizedResult)`,
  },
  {
    name: 'E1 500 with no body',
    call: E1,
    status: 500,
    code: 'API_UNAVAILABLE',
    shape: 'empty',
    message: `${E1_PATH} failed: 500 Internal Server Error (empty body)`,
  },
  // Shield: E2, E3 (envelope on 400, problem details on 401/404)
  {
    name: 'E2 400 envelope error',
    call: E2,
    status: 400,
    body: envelopeError(400, 'The checksum does not match the content.', 'access_list.checksum_mismatch'),
    code: 'API_REJECTED',
    shape: 'envelope-error',
    apiMessage: 'The checksum does not match the content.',
    errorKey: 'access_list.checksum_mismatch',
    message: `${E2_PATH} failed: 400 Bad Request: The checksum does not match the content. [access_list.checksum_mismatch] (envelope error)`,
  },
  {
    name: 'E2 400 problem details (seed shape)',
    call: E2,
    status: 400,
    body: problem(400, 'Bad Request', 'content must not be empty'),
    code: 'API_REJECTED',
    shape: 'problem-details',
    apiMessage: 'content must not be empty',
    message: `${E2_PATH} failed: 400 Bad Request: content must not be empty (problem details)`,
  },
  {
    name: 'E2 401 problem details',
    call: E2,
    status: 401,
    body: problem(401, 'Unauthorized'),
    code: 'API_AUTH',
    shape: 'problem-details',
    apiMessage: 'Unauthorized',
    message: `${E2_PATH} failed: 401 Unauthorized: Unauthorized (problem details)`,
  },
  {
    name: 'E3 404 problem details',
    call: E3,
    status: 404,
    body: problem(404, 'Not Found', 'Access list configuration 901 not found'),
    code: 'API_NOT_FOUND',
    shape: 'problem-details',
    apiMessage: 'Access list configuration 901 not found',
    message: `${E3_PATH} failed: 404 Not Found: Access list configuration 901 not found (problem details)`,
  },
  {
    name: 'E3 403 envelope error',
    call: E3,
    status: 403,
    body: envelopeError(403, 'This list is not available on your plan', 'not_available.access_list'),
    code: 'API_AUTH',
    shape: 'envelope-error',
    apiMessage: 'This list is not available on your plan',
    errorKey: 'not_available.access_list',
    message: `${E3_PATH} failed: 403 Forbidden: This list is not available on your plan [not_available.access_list] (envelope error)`,
  },
  // MC: E4 (problem details and extended error)
  {
    name: 'E4 400 extended error with field errors',
    call: E4,
    status: 400,
    body: extended(400, 'One or more validation errors occurred.', [
      { field: 'name', message: 'The name must match [A-Za-z0-9-\\s]+' },
      { field: 'volumes[0].size', message: 'Size must be between 1 and 100' },
    ]),
    code: 'API_REJECTED',
    shape: 'extended-error',
    apiMessage: 'One or more validation errors occurred.',
    fieldErrors: [
      { field: 'name', message: 'The name must match [A-Za-z0-9-\\s]+' },
      { field: 'volumes[0].size', message: 'Size must be between 1 and 100' },
    ],
    message: `${E4_PATH} failed: 400 Bad Request: One or more validation errors occurred; name: The name must match [A-Za-z0-9-\\s]+; volumes[0].size: Size must be between 1 and 100 (extended error)`,
  },
  {
    name: 'E4 422 extended error',
    call: E4,
    status: 422,
    body: extended(422, 'Image not found', [
      { field: 'containerTemplates[0].imageTag', message: 'unknown tag' },
    ]),
    code: 'API_REJECTED',
    shape: 'extended-error',
    apiMessage: 'Image not found',
    fieldErrors: [{ field: 'containerTemplates[0].imageTag', message: 'unknown tag' }],
    message: `${E4_PATH} failed: 422 Unprocessable Entity: Image not found; containerTemplates[0].imageTag: unknown tag (extended error)`,
  },
  {
    name: 'E4 403 extended error (suspended account)',
    call: E4,
    status: 403,
    body: extended(403, 'Account suspended', []),
    code: 'API_AUTH',
    shape: 'extended-error',
    apiMessage: 'Account suspended',
    message: `${E4_PATH} failed: 403 Forbidden: Account suspended (extended error)`,
  },
  {
    name: 'E4 401 problem details',
    call: E4,
    status: 401,
    body: problem(401, 'Unauthorized'),
    code: 'API_AUTH',
    shape: 'problem-details',
    apiMessage: 'Unauthorized',
    message: `${E4_PATH} failed: 401 Unauthorized: Unauthorized (problem details)`,
  },
  {
    name: 'E4 404 problem details',
    call: E4,
    status: 404,
    body: problem(404, 'Not Found', 'Application not found'),
    code: 'API_NOT_FOUND',
    shape: 'problem-details',
    apiMessage: 'Application not found',
    message: `${E4_PATH} failed: 404 Not Found: Application not found (problem details)`,
  },
  {
    name: 'E4 400 older MC message list',
    call: E4,
    status: 400,
    body: [{ message: 'Invalid runtime type' }],
    code: 'API_REJECTED',
    shape: 'message-list',
    apiMessage: 'Invalid runtime type',
    message: `${E4_PATH} failed: 400 Bad Request: Invalid runtime type (message list)`,
  },
  {
    name: 'E4 409 older MC JSON string',
    call: E4,
    status: 409,
    body: JSON.stringify('Application count limit is reached'),
    code: 'API_REJECTED',
    shape: 'message-string',
    apiMessage: 'Application count limit is reached',
    message: `${E4_PATH} failed: 409 Conflict: Application count limit is reached (message string)`,
  },
  // DNS: E5 (empty bodies on 401/404/500, core error on 400)
  {
    name: 'E5 401 empty',
    call: E5,
    status: 401,
    code: 'API_AUTH',
    shape: 'empty',
    message: `${E5_PATH} failed: 401 Unauthorized (empty body)`,
  },
  {
    name: 'E5 404 empty',
    call: E5,
    status: 404,
    code: 'API_NOT_FOUND',
    shape: 'empty',
    message: `${E5_PATH} failed: 404 Not Found (empty body)`,
  },
  {
    name: 'E5 500 empty',
    call: E5,
    status: 500,
    code: 'API_UNAVAILABLE',
    shape: 'empty',
    message: `${E5_PATH} failed: 500 Internal Server Error (empty body)`,
  },
  {
    name: 'E5 400 core error',
    call: E5,
    status: 400,
    body: {
      ErrorKey: 'dnszone.dnssec_not_enabled',
      Field: 'Id',
      Message: 'DNSSEC is not enabled on this zone',
    },
    code: 'API_REJECTED',
    shape: 'core-error',
    apiMessage: 'DNSSEC is not enabled on this zone',
    errorKey: 'dnszone.dnssec_not_enabled',
    fieldErrors: [{ field: 'Id', message: 'DNSSEC is not enabled on this zone' }],
    message: `${E5_PATH} failed: 400 Bad Request: Id: DNSSEC is not enabled on this zone [dnszone.dnssec_not_enabled] (core API error)`,
  },
  // Shield reads: E6 problem details / envelope, E8/E9 status-only
  {
    name: 'E6 400 problem details',
    call: E6,
    status: 400,
    body: problem(400, 'Bad Request', 'shieldZoneId is invalid'),
    code: 'API_REJECTED',
    shape: 'problem-details',
    apiMessage: 'shieldZoneId is invalid',
    message: `${E6_PATH} failed: 400 Bad Request: shieldZoneId is invalid (problem details)`,
  },
  {
    name: 'E6 404 envelope error',
    call: E6,
    status: 404,
    body: {
      categories: null,
      error: {
        statusCode: 404,
        success: false,
        message: 'Shield zone not found',
        errorKey: 'not_found.shield_zone',
      },
    },
    code: 'API_NOT_FOUND',
    shape: 'envelope-error',
    apiMessage: 'Shield zone not found',
    errorKey: 'not_found.shield_zone',
    message: `${E6_PATH} failed: 404 Not Found: Shield zone not found [not_found.shield_zone] (envelope error)`,
  },
  {
    name: 'E7 500 extended error',
    call: E7,
    status: 500,
    body: extended(500, 'No region has capacity', []),
    code: 'API_UNAVAILABLE',
    shape: 'extended-error',
    apiMessage: 'No region has capacity',
    message: `${E7_PATH} failed: 500 Internal Server Error: No region has capacity (extended error)`,
  },
  {
    name: 'E7 401 problem details',
    call: E7,
    status: 401,
    body: problem(401, 'Unauthorized'),
    code: 'API_AUTH',
    shape: 'problem-details',
    apiMessage: 'Unauthorized',
    message: `${E7_PATH} failed: 401 Unauthorized: Unauthorized (problem details)`,
  },
  {
    name: 'E8 401 UnauthorizedResult',
    call: E8,
    status: 401,
    body: { statusCode: 401 },
    code: 'API_AUTH',
    shape: 'unauthorized',
    message: `${E8_PATH} failed: 401 Unauthorized (UnauthorizedResult)`,
  },
  {
    name: 'E8 500 status-only',
    call: E8,
    status: 500,
    body: { statusCode: 500 },
    code: 'API_UNAVAILABLE',
    shape: 'status-only',
    message: `${E8_PATH} failed: 500 Internal Server Error (status only)`,
  },
  {
    name: 'E9 400 status-only',
    call: E9,
    status: 400,
    body: { statusCode: 400 },
    code: 'API_REJECTED',
    shape: 'status-only',
    message: `${E9_PATH} failed: 400 Bad Request (status only)`,
  },
  {
    name: 'E9 401 UnauthorizedResult',
    call: E9,
    status: 401,
    body: { statusCode: 401 },
    code: 'API_AUTH',
    shape: 'unauthorized',
    message: `${E9_PATH} failed: 401 Unauthorized (UnauthorizedResult)`,
  },
  // Companions
  {
    name: 'getApp 404 extended error',
    call: (c) => c.getApp(APP_ID),
    status: 404,
    body: extended(404, 'Application not found', []),
    code: 'API_NOT_FOUND',
    shape: 'extended-error',
    apiMessage: 'Application not found',
    message: `read app (GET /mc/apps/${APP_ID}) failed: 404 Not Found: Application not found (extended error)`,
  },
  {
    name: 'getDnsZone 404 empty',
    call: (c) => c.getDnsZone(DNS_ZONE_ID),
    status: 404,
    code: 'API_NOT_FOUND',
    shape: 'empty',
    message: `read DNS zone (GET /dnszone/${DNS_ZONE_ID}) failed: 404 Not Found (empty body)`,
  },
  {
    name: 'a plain-text 400',
    call: (c) => c.getCustomWafRule(RULE_ID),
    status: 400,
    body: 'Request body too large',
    code: 'API_REJECTED',
    shape: 'unparseable',
    apiMessage: 'Request body too large',
    message: `read custom WAF rule (GET /shield/waf/custom-rule/${RULE_ID}) failed: 400 Bad Request: Request body too large (not JSON)`,
  },
  {
    name: 'a redirect (the base URL points elsewhere)',
    call: (c) => c.getDnsZone(DNS_ZONE_ID),
    status: 301,
    code: 'API_BAD_RESPONSE',
    shape: 'empty',
    message: `read DNS zone (GET /dnszone/${DNS_ZONE_ID}) failed: 301 Moved Permanently (empty body)`,
  },
];

describe('error shapes', () => {
  it.each(cases)('$name → $code ($shape)', async (c) => {
    server.setHandler(reply(c.status, c.body));

    const error = await c.call(test.client).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect({
      code: apiError.code,
      shape: apiError.shape,
      status: apiError.status,
      apiMessage: apiError.apiMessage,
      errorKey: apiError.errorKey,
      fieldErrors: apiError.fieldErrors,
      attempts: apiError.attempts,
    }).toEqual({
      code: c.code,
      shape: c.shape,
      status: c.status,
      apiMessage: c.apiMessage,
      errorKey: c.errorKey,
      fieldErrors: c.fieldErrors ?? [],
      attempts: 1,
    });
    expect(apiError.message).toBe(c.message);
    expect(server.requests).toHaveLength(1);
  });
});

describe('Shield failures in disguise', () => {
  const freeTier =
    'We do not support Custom WAF Rule creation on our Free Tier of Bunny Shield, please upgrade to Advanced.';
  const limit = 'Custom Access List limit exceeded. You can have a maximum of 1 custom lists.';
  const disguised: ErrorCase[] = [
    {
      name: 'E1 202 AcceptedResult',
      call: E1,
      status: 202,
      body: ACCEPTED_RESULT_BODY,
      code: 'API_REJECTED',
      shape: 'accepted',
      message: `${E1_PATH} failed: 202 Accepted (AcceptedResult)`,
    },
    {
      name: 'E1 202 envelope error',
      call: E1,
      status: 202,
      body: envelopeError(202, freeTier, 'invalid_plan_type.custom_waf_rule'),
      code: 'API_REJECTED',
      shape: 'envelope-error',
      apiMessage: freeTier,
      errorKey: 'invalid_plan_type.custom_waf_rule',
      message: `${E1_PATH} failed: 202 Accepted: ${freeTier} [invalid_plan_type.custom_waf_rule] (envelope error)`,
    },
    {
      name: 'E1 200 with errorResponse.success false',
      call: E1,
      status: 200,
      body: {
        ...ruleReply,
        errorResponse: {
          statusCode: 400,
          success: false,
          message: 'Invalid regex',
          errorKey: 'waf.invalid_regex',
        },
      },
      code: 'API_REJECTED',
      shape: 'envelope-error',
      apiMessage: 'Invalid regex',
      errorKey: 'waf.invalid_regex',
      message: `${E1_PATH} failed: 200 OK: Invalid regex [waf.invalid_regex] (envelope error)`,
    },
    {
      name: 'E2 200 with error.success false',
      call: E2,
      status: 200,
      body: {
        data: accessList,
        error: { statusCode: 400, success: false, message: limit, errorKey: 'limit.access_list' },
      },
      code: 'API_REJECTED',
      shape: 'envelope-error',
      apiMessage: limit,
      errorKey: 'limit.access_list',
      message: `${E2_PATH} failed: 200 OK: ${limit} [limit.access_list] (envelope error)`,
    },
    {
      name: 'E2 202 envelope error',
      call: E2,
      status: 202,
      body: envelopeError(202, limit, 'limit.access_list'),
      code: 'API_REJECTED',
      shape: 'envelope-error',
      apiMessage: limit,
      errorKey: 'limit.access_list',
      message: `${E2_PATH} failed: 202 Accepted: ${limit} [limit.access_list] (envelope error)`,
    },
    {
      name: 'E3 200 with error.success false',
      call: E3,
      status: 200,
      body: {
        data: { isEnabled: false },
        error: {
          statusCode: 400,
          success: false,
          message: 'List unavailable',
          errorKey: 'not_available.access_list',
        },
      },
      code: 'API_REJECTED',
      shape: 'envelope-error',
      apiMessage: 'List unavailable',
      errorKey: 'not_available.access_list',
      message: `${E3_PATH} failed: 200 OK: List unavailable [not_available.access_list] (envelope error)`,
    },
    {
      name: 'E3 202 with a successful-looking envelope',
      call: E3,
      status: 202,
      body: {
        data: { isEnabled: true },
        error: { statusCode: 202, success: true, message: null, errorKey: null },
      },
      code: 'API_REJECTED',
      shape: 'unrecognised',
      message: `${E3_PATH} failed: 202 Accepted (unrecognised body)`,
    },
    {
      name: 'E6 202 plan refusal on a read',
      call: E6,
      status: 202,
      body: {
        categories: [],
        error: {
          statusCode: 202,
          success: false,
          message: 'Bot detection needs Advanced',
          errorKey: 'invalid_plan_type.bot_detection',
        },
      },
      code: 'API_REJECTED',
      shape: 'envelope-error',
      apiMessage: 'Bot detection needs Advanced',
      errorKey: 'invalid_plan_type.bot_detection',
      message: `${E6_PATH} failed: 202 Accepted: Bot detection needs Advanced [invalid_plan_type.bot_detection] (envelope error)`,
    },
  ];

  it.each(disguised)('$name → API_REJECTED', async (c) => {
    server.setHandler(reply(c.status, c.body));

    const error = (await c.call(test.client).catch((e: unknown) => e)) as ApiError;

    expect(error).toBeInstanceOf(ApiError);
    expect([error.code, error.shape, error.status, error.apiMessage, error.errorKey]).toEqual([
      c.code,
      c.shape,
      c.status,
      c.apiMessage,
      c.errorKey,
    ]);
    expect(error.message).toBe(c.message);
  });

  it('does not treat a 202 from MC or DNS as a failure', async () => {
    server.setHandler(reply(202, { id: APP_ID }));

    await expect(E4(test.client)).resolves.toEqual({ id: APP_ID });
  });
});

describe('bad responses', () => {
  it('a malformed JSON reply → API_BAD_RESPONSE', async () => {
    server.setHandler(reply(200, '{"region": {"id": "DE",', { 'content-type': 'application/json' }));

    const error = (await E7(test.client).catch((e: unknown) => e)) as ApiError;

    expect([error.code, error.shape, error.status]).toEqual(['API_BAD_RESPONSE', 'unparseable', 200]);
    expect(error.message).toBe(`${E7_PATH} failed: 200 OK: the reply is not JSON (not JSON)`);
  });

  it('an empty 200 where a body is due → API_BAD_RESPONSE', async () => {
    server.setHandler(reply(200));

    const error = (await E5(test.client).catch((e: unknown) => e)) as ApiError;

    expect([error.code, error.shape]).toEqual(['API_BAD_RESPONSE', 'empty']);
    expect(error.message).toBe(`${E5_PATH} failed: 200 OK: the reply is not JSON (empty body)`);
  });

  it('a reply failing its wire schema → API_BAD_RESPONSE naming the operation and the field', async () => {
    server.setHandler(reply(200, { region: { name: 'Frankfurt', hasCapacity: 'yes' } }));

    const error = (await E7(test.client).catch((e: unknown) => e)) as ApiError;

    expect([error.code, error.shape, error.operation]).toEqual([
      'API_BAD_RESPONSE',
      'schema-mismatch',
      'getOptimalRegion',
    ]);
    expect(error.message).toBe(
      `${E7_PATH} failed: 200 OK: the reply does not match its schema: region.id: Invalid input: expected string, received undefined; region.hasCapacity: Invalid input: expected boolean, received string (schema mismatch)`,
    );
  });

  it('an envelope without data → API_BAD_RESPONSE', async () => {
    server.setHandler(reply(200, { data: null, error: { statusCode: 200, success: true } }));

    const error = (await test.client.getCustomAccessList(ZONE, LIST_ID).catch((e: unknown) => e)) as ApiError;

    expect(error.code).toBe('API_BAD_RESPONSE');
    expect(error.message).toBe(
      `read custom access list (GET /shield/shield-zone/${ZONE}/access-lists/${LIST_ID}) failed: 200 OK: the reply has no data (schema mismatch)`,
    );
  });
});
