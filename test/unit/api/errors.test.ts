import { describe, expect, it } from 'vitest';
import {
  ApiError,
  codeForStatus,
  describeErrorBody,
  type ErrorBodyInfo,
  formatApiErrorMessage,
} from '../../../src/api/errors.js';
import { ACCEPTED_RESULT_BODY } from '../../helpers/api-client.js';

describe('describeErrorBody', () => {
  const cases: Array<[string, number, string, ErrorBodyInfo]> = [
    [
      'a bare GenericRequestResponse (Shield delete, some 202s)',
      202,
      JSON.stringify({
        statusCode: 202,
        success: false,
        message: 'Not on the free tier',
        errorKey: 'waf.plan_limit',
      }),
      {
        shape: 'envelope-error',
        apiMessage: 'Not on the free tier',
        errorKey: 'waf.plan_limit',
        fieldErrors: [],
      },
    ],
    [
      'problem details',
      400,
      JSON.stringify({
        type: 'about:blank',
        title: 'Bad Request',
        status: 400,
        detail: 'operatorType 10 is not allowed',
      }),
      {
        shape: 'problem-details',
        apiMessage: 'operatorType 10 is not allowed',
        errorKey: undefined,
        fieldErrors: [],
      },
    ],
    [
      'problem details without detail',
      401,
      JSON.stringify({ title: 'Unauthorized', status: 401 }),
      { shape: 'problem-details', apiMessage: 'Unauthorized', errorKey: undefined, fieldErrors: [] },
    ],
    [
      'extended error',
      422,
      JSON.stringify({
        title: 'Validation failed',
        status: 422,
        errors: [{ field: 'name', message: 'too long' }, { message: 'no field' }],
        id: 'app-1',
      }),
      {
        shape: 'extended-error',
        apiMessage: 'Validation failed',
        errorKey: undefined,
        fieldErrors: [
          { field: 'name', message: 'too long' },
          { field: undefined, message: 'no field' },
        ],
      },
    ],
    [
      'ASP.NET validation problem details (errors as a map)',
      400,
      JSON.stringify({
        title: 'One or more validation errors occurred.',
        errors: { Name: ['required', 'short'] },
      }),
      {
        shape: 'problem-details',
        apiMessage: 'One or more validation errors occurred.',
        errorKey: undefined,
        fieldErrors: [
          { field: 'Name', message: 'required' },
          { field: 'Name', message: 'short' },
        ],
      },
    ],
    [
      'envelope error',
      400,
      JSON.stringify({
        data: null,
        error: { statusCode: 400, success: false, message: 'Bad checksum', errorKey: 'k.x' },
      }),
      { shape: 'envelope-error', apiMessage: 'Bad checksum', errorKey: 'k.x', fieldErrors: [] },
    ],
    [
      'a custom rule whose errorResponse failed',
      200,
      JSON.stringify({
        id: 1,
        errorResponse: { statusCode: 400, success: false, message: 'nope', errorKey: null },
      }),
      { shape: 'envelope-error', apiMessage: 'nope', errorKey: undefined, fieldErrors: [] },
    ],
    [
      'status-only',
      500,
      JSON.stringify({ statusCode: 500 }),
      { shape: 'status-only', apiMessage: undefined, errorKey: undefined, fieldErrors: [] },
    ],
    [
      'UnauthorizedResult',
      401,
      JSON.stringify({ statusCode: 401 }),
      { shape: 'unauthorized', apiMessage: undefined, errorKey: undefined, fieldErrors: [] },
    ],
    [
      'AcceptedResult',
      202,
      JSON.stringify(ACCEPTED_RESULT_BODY),
      { shape: 'accepted', apiMessage: undefined, errorKey: undefined, fieldErrors: [] },
    ],
    [
      'AcceptedResult carrying a message',
      202,
      JSON.stringify({ value: { message: 'Upgrade to Advanced' }, formatters: [], statusCode: 202 }),
      { shape: 'accepted', apiMessage: 'Upgrade to Advanced', errorKey: undefined, fieldErrors: [] },
    ],
    [
      'core error',
      400,
      JSON.stringify({ ErrorKey: 'dnszone.invalid', Field: 'Domain', Message: 'The domain is invalid' }),
      {
        shape: 'core-error',
        apiMessage: 'The domain is invalid',
        errorKey: 'dnszone.invalid',
        fieldErrors: [{ field: 'Domain', message: 'The domain is invalid' }],
      },
    ],
    [
      'older MC message list',
      400,
      JSON.stringify([{ message: 'Image not found' }, { message: 'Tag missing' }]),
      {
        shape: 'message-list',
        apiMessage: 'Image not found; Tag missing',
        errorKey: undefined,
        fieldErrors: [],
      },
    ],
    [
      'older MC message list with fields',
      400,
      JSON.stringify([{ field: 'imageTag', message: 'missing' }]),
      {
        shape: 'message-list',
        apiMessage: undefined,
        errorKey: undefined,
        fieldErrors: [{ field: 'imageTag', message: 'missing' }],
      },
    ],
    [
      'older MC JSON string',
      409,
      JSON.stringify('Application count limit is reached'),
      {
        shape: 'message-string',
        apiMessage: 'Application count limit is reached',
        errorKey: undefined,
        fieldErrors: [],
      },
    ],
    ['empty body', 404, '', { shape: 'empty', apiMessage: undefined, errorKey: undefined, fieldErrors: [] }],
    [
      'whitespace body',
      500,
      ' \n',
      { shape: 'empty', apiMessage: undefined, errorKey: undefined, fieldErrors: [] },
    ],
    [
      'plain text',
      400,
      'Bad request: body too large\nmore',
      {
        shape: 'unparseable',
        apiMessage: 'Bad request: body too large',
        errorKey: undefined,
        fieldErrors: [],
      },
    ],
    [
      'an HTML page',
      502,
      '<html><body>Bad gateway</body></html>',
      { shape: 'unparseable', apiMessage: undefined, errorKey: undefined, fieldErrors: [] },
    ],
    [
      'unknown JSON',
      418,
      JSON.stringify({ message: 'teapot', other: 1 }),
      { shape: 'unrecognised', apiMessage: 'teapot', errorKey: undefined, fieldErrors: [] },
    ],
    [
      'a JSON number',
      400,
      '42',
      { shape: 'unrecognised', apiMessage: undefined, errorKey: undefined, fieldErrors: [] },
    ],
  ];

  it.each(cases)('reads %s', (_name, status, text, expected) => {
    expect(describeErrorBody(status, text)).toEqual(expected);
  });

  it('cuts the access key out of every string it keeps', () => {
    const body = JSON.stringify({
      title: 'Bad key SECRET-1',
      errors: [{ field: 'SECRET-1', message: 'key SECRET-1 is wrong' }],
    });

    expect(describeErrorBody(400, body, 'SECRET-1')).toEqual({
      shape: 'extended-error',
      apiMessage: 'Bad key [redacted]',
      errorKey: undefined,
      fieldErrors: [{ field: '[redacted]', message: 'key [redacted] is wrong' }],
    });
  });

  it('keeps long messages to 500 characters on one line', () => {
    const info = describeErrorBody(400, JSON.stringify({ detail: `a\n b${'x'.repeat(600)}` }));

    expect(info.apiMessage).toHaveLength(501);
    expect(info.apiMessage?.startsWith('a bxxx')).toBe(true);
    expect(info.apiMessage?.endsWith('…')).toBe(true);
  });
});

describe('codeForStatus', () => {
  it.each([
    [401, 'API_AUTH'],
    [403, 'API_AUTH'],
    [404, 'API_NOT_FOUND'],
    [400, 'API_REJECTED'],
    [409, 'API_REJECTED'],
    [422, 'API_REJECTED'],
    [405, 'API_REJECTED'],
    [200, 'API_REJECTED'],
    [202, 'API_REJECTED'],
    [429, 'API_RATE_LIMITED'],
    [500, 'API_UNAVAILABLE'],
    [503, 'API_UNAVAILABLE'],
    [302, 'API_BAD_RESPONSE'],
  ])('%i → %s', (status, code) => {
    expect(codeForStatus(status)).toBe(code);
  });
});

describe('formatApiErrorMessage', () => {
  it.each([
    [
      'the brief example',
      {
        status: 400,
        shape: 'problem-details',
        apiMessage: 'operatorType 10 is not allowed',
      },
      'update custom WAF rule (PATCH /shield/waf/custom-rule/1234) failed: 400 Bad Request: operatorType 10 is not allowed (problem details)',
    ],
    [
      'field errors after the message, its full stop dropped',
      {
        status: 400,
        shape: 'extended-error',
        apiMessage: 'One or more validation errors occurred.',
        fieldErrors: [
          { field: 'name', message: 'too long' },
          { field: undefined, message: 'bad image' },
        ],
      },
      'update custom WAF rule (PATCH /shield/waf/custom-rule/1234) failed: 400 Bad Request: One or more validation errors occurred; name: too long; bad image (extended error)',
    ],
    [
      'a core error said once',
      {
        status: 400,
        shape: 'core-error',
        apiMessage: 'invalid',
        errorKey: 'dns.invalid',
        fieldErrors: [{ field: 'Domain', message: 'invalid' }],
      },
      'update custom WAF rule (PATCH /shield/waf/custom-rule/1234) failed: 400 Bad Request: Domain: invalid [dns.invalid] (core API error)',
    ],
    [
      'no reply with a problem and a note',
      { shape: 'no-reply', problem: 'timed out after 200 ms', note: 'gave up after 3 attempts' },
      'update custom WAF rule (PATCH /shield/waf/custom-rule/1234) failed: no reply: timed out after 200 ms; gave up after 3 attempts',
    ],
  ] as const)('formats %s', (_name, fields, expected) => {
    const init = {
      code: 'API_REJECTED',
      operation: 'updateCustomWafRule',
      method: 'PATCH',
      path: '/shield/waf/custom-rule/1234',
      attempts: 1,
      ...fields,
    } as const;

    expect(formatApiErrorMessage(init as Parameters<typeof formatApiErrorMessage>[0])).toBe(expected);
  });

  it('names the operation in words', () => {
    const error = new ApiError({
      code: 'API_NOT_FOUND',
      operation: 'getApp',
      method: 'GET',
      path: '/mc/apps/x',
      status: 404,
      shape: 'problem-details',
      apiMessage: 'Application not found',
      attempts: 1,
    });

    expect(error.message).toBe(
      'read app (GET /mc/apps/x) failed: 404 Not Found: Application not found (problem details)',
    );
    expect(error.route).toBe('/mc/apps/{appId}');
    expect(error.details).toEqual({
      operation: 'getApp',
      method: 'GET',
      route: '/mc/apps/{appId}',
      path: '/mc/apps/x',
      status: 404,
      shape: 'problem-details',
      apiMessage: 'Application not found',
      attempts: 1,
    });
    expect(error.retryable).toBe(false);
    expect(error.name).toBe('ApiError');
  });

  it('never puts a seed operation number in the message or details', () => {
    const error = new ApiError({
      code: 'API_UNAVAILABLE',
      operation: 'getWafPlanSegmentation',
      method: 'GET',
      path: '/shield/waf/rules/plan-segmentation',
      status: 500,
      shape: 'status-only',
      attempts: 4,
      note: 'gave up after 4 attempts',
    });

    expect(error.message).toMatch(/^read WAF rule catalogue \(GET /);
    expect(error.details).toMatchObject({ operation: 'getWafPlanSegmentation', attempts: 4 });
    expect(JSON.stringify(error.details)).not.toMatch(/\bE8\b/);
    expect(error.retryable).toBe(true);
  });
});
