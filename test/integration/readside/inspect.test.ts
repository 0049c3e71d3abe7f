/**
 * `edgesync inspect` against the emulator over real HTTP, in-process: the tables, `--json`,
 * the catalogue filters, and every failure shape of E6–E9 as one line on stderr with exit 1.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator, EmulatorSeed } from '../../../src/emulator/index.js';
import { cli, cliAgainst } from '../../helpers/cli.js';
import { TEST_KEY, TEST_SEED, withEmulator } from '../../helpers/emulator.js';
import { startTestServer } from '../../helpers/http-server.js';

const [ZONE_42, ZONE_43] = TEST_SEED.shieldZones ?? [];

/** The SQLI rule group, in both plans of the catalogue. */
const SQLI_GROUP = {
  id: 942,
  name: 'SQL Injection',
  code: 'SQLI',
  fileName: 'REQUEST-942-SQLI.conf',
  mainGroup: 'OWASP Core Rule Set',
  ruleset: 'owasp-crs',
  description: 'SQLi rules',
  rules: [
    { ruleId: '942100', description: 'SQL injection via libinjection' },
    { ruleId: '942110', description: 'Common injection testing' },
  ],
};

const SEED: EmulatorSeed = {
  ...TEST_SEED,
  shieldZones: [
    {
      ...ZONE_42,
      id: 42,
      botCategories: [
        {
          category: 'SEO',
          categoryAction: 'Allow',
          bots: [
            { botId: 1, userAgentMatch: 'Googlebot', action: 'Allow', isVerifiable: true },
            { botId: 2, userAgentMatch: 'bingbot', action: 'None', isVerifiable: true },
          ],
        },
        {
          category: 'AIScraper',
          categoryAction: 'Block',
          bots: [{ botId: 120, userAgentMatch: 'CCBot', action: 'Block', isVerifiable: false }],
        },
      ],
      apiGuardian: {
        totalBlockedRequests: 1204,
        totalLoggedRequests: 5310,
        totalRateLimited: 87,
        totalRequestsInspected: 980412,
        totalFailedRequestValidation: 61,
        totalFailedAuthenticationEnforcement: 19,
        overviewPastTwentyEightDays: {
          '2026-11-02': { blockedRequests: 40, requestsInspected: 35000, rateLimited: 3 },
          '2026-11-01': { blockedRequests: 4, loggedRequests: 10, requestsInspected: 3500 },
        },
      },
    },
    { ...ZONE_43, id: 43 },
  ],
  optimalRegion: { id: 'SG', name: 'Singapore', group: 'Asia', hasAnycastSupport: true, hasCapacity: false },
  wafCatalog: [
    {
      planValue: 'Basic',
      planName: 'Basic',
      rules: [
        {
          name: 'OWASP Core Rule Set',
          ruleset: 'owasp-crs',
          ruleGroups: [SQLI_GROUP],
        },
      ],
    },
    {
      planValue: 'Advanced',
      planName: 'Advanced',
      rules: [
        {
          name: 'OWASP Core Rule Set',
          ruleset: 'owasp-crs',
          ruleGroups: [
            SQLI_GROUP,
            {
              id: 941,
              name: 'Cross-Site Scripting',
              code: 'XSS',
              fileName: 'REQUEST-941-XSS.conf',
              mainGroup: 'OWASP Core Rule Set',
              ruleset: 'owasp-crs',
              description: 'XSS rules',
              rules: [{ ruleId: '941100', description: 'XSS via libinjection' }],
            },
          ],
        },
      ],
    },
  ],
};

const E6 = 'read bot categories (GET /shield/shield-zone/42/bot-categorization) failed';
const E7 = 'read optimal region (GET /mc/regions/optimal) failed';
const E8 = 'read WAF rule catalogue (GET /shield/waf/rules/plan-segmentation) failed';
const E9 = 'read API Guardian metrics (GET /shield/metrics/shield-zone/42/api-guardian) failed';
const KEY_HINT = 'check the access key (EDGESYNC_ACCESS_KEY or --access-key-file)';

let emu: Emulator;
beforeEach(async () => {
  emu = await withEmulator(SEED);
});
afterEach(async () => {
  await emu.close();
});

function lines(...text: string[]): string {
  return `${text.join('\n')}\n`;
}

describe('inspect bots (E6)', () => {
  it('prints the bots grouped by category, with names from the enum tables', async () => {
    const run = await cliAgainst(emu, ['inspect', 'bots', '--shield-zone', '42']);

    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: lines(
        'SEO (category action: Allow)',
        '  BOT ID  USER-AGENT MATCH  VERIFIABLE  ACTION',
        '       1  Googlebot         yes         Allow',
        '       2  bingbot           yes         None',
        '',
        'AIScraper (category action: Block)',
        '  BOT ID  USER-AGENT MATCH  VERIFIABLE  ACTION',
        '     120  CCBot             no          Block',
        '',
        '3 bots in 2 categories, Shield Zone 42.',
      ),
    });
  });

  it('--json prints the reply', async () => {
    const run = await cliAgainst(emu, ['inspect', 'bots', '--shield-zone', '42', '--json']);

    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      categories: [
        {
          category: 1,
          categoryAction: 2,
          bots: [
            { botId: 1, userAgentMatch: 'Googlebot', category: 1, action: 2, isVerifiable: true },
            { botId: 2, userAgentMatch: 'bingbot', category: 1, action: 0, isVerifiable: true },
          ],
        },
        {
          category: 2,
          categoryAction: 1,
          bots: [{ botId: 120, userAgentMatch: 'CCBot', category: 2, action: 1, isVerifiable: false }],
        },
      ],
      error: { statusCode: 200, success: true, message: null, errorKey: null },
    });
  });

  it('says so when a zone lists no categories', async () => {
    emu.faults.script({
      operation: 'getBotCategorization',
      reply: { status: 200, body: { categories: [], error: { statusCode: 200, success: true } } },
    });

    const run = await cliAgainst(emu, ['inspect', 'bots', '--shield-zone', '42']);

    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: 'No bot categories are listed for Shield Zone 42.\n',
    });
  });

  it('needs --shield-zone, a positive integer', async () => {
    const missing = await cliAgainst(emu, ['inspect', 'bots']);
    const bad = await cliAgainst(emu, ['inspect', 'bots', '--shield-zone', 'x']);

    expect(missing.code).toBe(1);
    expect(missing.stderr.split('\n')[0]).toBe(
      "edgesync: USAGE: required option '--shield-zone <id>' not specified",
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr.split('\n')[0]).toBe(
      "edgesync: USAGE: option '--shield-zone <id>' argument 'x' is invalid. --shield-zone must be a positive integer",
    );
    expect(emu.journal.count()).toBe(0);
  });
});

describe('inspect waf-catalog (E8)', () => {
  it('prints each plan with its rule groups and rule counts', async () => {
    const run = await cliAgainst(emu, ['inspect', 'waf-catalog']);

    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: lines(
        'Basic (plan 0): 1 rule set, 1 rule group, 2 rules',
        '  RULE SET             GROUP  CODE  NAME                  RULES',
        '  OWASP Core Rule Set    942  SQLI  SQL Injection             2',
        '',
        'Advanced (plan 1): 1 rule set, 2 rule groups, 3 rules',
        '  RULE SET             GROUP  CODE  NAME                  RULES',
        '  OWASP Core Rule Set    942  SQLI  SQL Injection             2',
        '  OWASP Core Rule Set    941  XSS   Cross-Site Scripting      1',
      ),
    });
  });

  it('--plan (any casing) lists the rules of that plan', async () => {
    const run = await cliAgainst(emu, ['inspect', 'waf-catalog', '--plan', 'aDVANCED']);

    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: lines(
        'SQLI SQL Injection (group 942 in OWASP Core Rule Set; plan Advanced): 2 rules',
        '  RULE ID  DESCRIPTION',
        '  942100   SQL injection via libinjection',
        '  942110   Common injection testing',
        '',
        'XSS Cross-Site Scripting (group 941 in OWASP Core Rule Set; plan Advanced): 1 rule',
        '  RULE ID  DESCRIPTION',
        '  941100   XSS via libinjection',
      ),
    });
  });

  it('--group lists one group once, naming every plan that has it', async () => {
    const run = await cliAgainst(emu, ['inspect', 'waf-catalog', '--group', 'sqli']);

    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: lines(
        'SQLI SQL Injection (group 942 in OWASP Core Rule Set; plans Basic, Advanced): 2 rules',
        '  RULE ID  DESCRIPTION',
        '  942100   SQL injection via libinjection',
        '  942110   Common injection testing',
      ),
    });
  });

  it('--plan with --group narrows to that group in that plan; --json keeps the reply shape', async () => {
    const run = await cliAgainst(emu, [
      'inspect',
      'waf-catalog',
      '--plan',
      'advanced',
      '--group',
      'XSS',
      '--json',
    ]);

    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      data: [
        {
          planValue: 1,
          planName: 'Advanced',
          rules: [
            {
              name: 'OWASP Core Rule Set',
              ruleset: 'owasp-crs',
              ruleGroups: [
                {
                  id: 941,
                  name: 'Cross-Site Scripting',
                  code: 'XSS',
                  fileName: 'REQUEST-941-XSS.conf',
                  mainGroup: 'OWASP Core Rule Set',
                  ruleset: 'owasp-crs',
                  description: 'XSS rules',
                  rules: [{ ruleId: '941100', description: 'XSS via libinjection' }],
                },
              ],
            },
          ],
        },
      ],
      error: { statusCode: 200, success: true, message: null, errorKey: null },
    });
  });

  it.each([
    [['--plan', 'Gold'], 'edgesync: USAGE: no plan named "Gold"; the catalogue has Basic, Advanced\n'],
    [
      ['--group', 'RCE'],
      'edgesync: USAGE: no rule group with code "RCE" in the catalogue; codes: SQLI, XSS\n',
    ],
    [
      ['--plan', 'basic', '--group', 'xss'],
      'edgesync: USAGE: no rule group with code "xss" in plan Basic; codes: SQLI\n',
    ],
  ])('%j that names nothing is one line and exit 1', async (flags, message) => {
    const run = await cliAgainst(emu, ['inspect', 'waf-catalog', ...flags]);

    expect(run).toEqual({ code: 1, stdout: '', stderr: message });
  });
});

describe('inspect api-guardian (E9)', () => {
  it('prints the six totals and the 28-day overview, keys in order', async () => {
    const run = await cliAgainst(emu, ['inspect', 'api-guardian', '--shield-zone', '42']);

    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: lines(
        'API Guardian, Shield Zone 42',
        'TOTAL                              REQUESTS',
        'requests inspected                   980412',
        'blocked                                1204',
        'logged                                 5310',
        'rate limited                             87',
        'failed request validation                61',
        'failed authentication enforcement        19',
        '',
        'Past 28 days',
        'KEY         INSPECTED  BLOCKED  LOGGED  RATE LIMITED  FAILED VALIDATION  FAILED AUTH',
        '2026-11-01       3500        4      10             0                  0            0',
        '2026-11-02      35000       40       0             3                  0            0',
      ),
    });
  });

  it('tolerates an overview that is some other object, and missing totals', async () => {
    emu.faults.script({
      operation: 'getApiGuardianMetrics',
      reply: {
        status: 200,
        body: {
          data: {
            totalBlockedRequests: 5,
            overviewPastTwentyEightDays: { week1: 12, week2: { blocked: 3 } },
          },
          error: { statusCode: 200, success: true },
        },
      },
    });

    const run = await cliAgainst(emu, ['inspect', 'api-guardian', '--shield-zone', '42']);

    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: lines(
        'API Guardian, Shield Zone 42',
        'TOTAL                              REQUESTS',
        'requests inspected                        -',
        'blocked                                   5',
        'logged                                    -',
        'rate limited                              -',
        'failed request validation                 -',
        'failed authentication enforcement         -',
        '',
        'Past 28 days',
        'KEY    VALUE',
        'week1  12',
        'week2  {"blocked":3}',
      ),
    });
  });

  it('says so when the overview is empty; --json prints the reply', async () => {
    const table = await cliAgainst(emu, ['inspect', 'api-guardian', '--shield-zone', '43']);
    emu.state.shieldZone(43)!.apiGuardian = {
      totalBlockedRequests: 1,
      totalLoggedRequests: 2,
      totalRateLimited: 3,
      totalRequestsInspected: 4,
      totalFailedRequestValidation: 5,
      totalFailedAuthenticationEnforcement: 6,
      overviewPastTwentyEightDays: null,
    };
    const json = await cliAgainst(emu, ['inspect', 'api-guardian', '--shield-zone', '43', '--json']);
    const empty = await cliAgainst(emu, ['inspect', 'api-guardian', '--shield-zone', '43']);

    expect(table.code).toBe(0);
    expect(table.stdout.split('\n').filter((l) => /^\d{4}-\d\d-\d\d /.test(l))).toHaveLength(28);
    expect(JSON.parse(json.stdout)).toEqual({
      data: {
        totalBlockedRequests: 1,
        totalLoggedRequests: 2,
        totalRateLimited: 3,
        totalRequestsInspected: 4,
        totalFailedRequestValidation: 5,
        totalFailedAuthenticationEnforcement: 6,
        overviewPastTwentyEightDays: null,
      },
      error: { statusCode: 200, success: true, message: null, errorKey: null },
    });
    expect(empty.stdout.split('\n').slice(-2)).toEqual(['Past 28 days: no activity reported.', '']);
  });
});

describe('inspect optimal-region (E7)', () => {
  it('prints the region, its group, anycast support and capacity', async () => {
    const table = await cliAgainst(emu, ['inspect', 'optimal-region']);
    const json = await cliAgainst(emu, ['inspect', 'optimal-region', '--json']);

    expect(table).toEqual({
      code: 0,
      stderr: '',
      stdout: lines('ID  NAME       GROUP  ANYCAST  CAPACITY', 'SG  Singapore  Asia   yes      no'),
    });
    expect(JSON.parse(json.stdout)).toEqual({
      region: { id: 'SG', name: 'Singapore', group: 'Asia', hasAnycastSupport: true, hasCapacity: false },
    });
  });

  it('--json prints fields the schema does not name, as the API sent them', async () => {
    emu.faults.script({
      operation: 'getOptimalRegion',
      reply: {
        status: 200,
        body: { region: { id: 'DE', name: 'Frankfurt', group: 'Europe', latencyMs: 12 }, requestId: 'r-1' },
      },
    });

    const run = await cliAgainst(emu, ['inspect', 'optimal-region', '--json']);

    expect(JSON.parse(run.stdout)).toEqual({
      region: { id: 'DE', name: 'Frankfurt', group: 'Europe', latencyMs: 12 },
      requestId: 'r-1',
    });
  });

  it('colours headers only on a terminal without NO_COLOR', async () => {
    const tty = await cliAgainst(emu, ['inspect', 'optimal-region'], { tty: true });
    const noColor = await cliAgainst(emu, ['inspect', 'optimal-region'], {
      tty: true,
      env: { NO_COLOR: '1' },
    });

    expect(tty.stdout.split('\n')[0]).toBe('\u001b[1mID  NAME       GROUP  ANYCAST  CAPACITY\u001b[22m');
    expect(noColor.stdout.split('\n')[0]).toBe('ID  NAME       GROUP  ANYCAST  CAPACITY');
  });
});

const STATUS_500 = { status: 500, body: { statusCode: 500 } };

describe('inspect failures: one line on stderr, exit 1', () => {
  it.each([
    [
      'E6 404 problem details (unknown zone)',
      undefined,
      ['bots', '--shield-zone', '99'],
      'edgesync: API_NOT_FOUND: read bot categories (GET /shield/shield-zone/99/bot-categorization) failed: 404 Not Found: Shield Zone 99 was not found. (problem details)',
    ],
    [
      'E6 403 problem details',
      {
        operation: 'getBotCategorization',
        reply: {
          status: 403,
          body: {
            type: 'about:blank',
            title: 'Forbidden',
            status: 403,
            detail: 'Bot detection needs the Advanced plan.',
          },
        },
      },
      ['bots', '--shield-zone', '42'],
      `edgesync: API_AUTH: ${E6}: 403 Forbidden: Bot detection needs the Advanced plan. (problem details)`,
    ],
    [
      'E7 500 extended error',
      {
        operation: 'getOptimalRegion',
        times: 6,
        reply: {
          status: 500,
          body: {
            title: 'Internal Server Error',
            status: 500,
            detail: 'Region lookup failed',
            instance: '/mc/regions/optimal',
            errors: [{ field: 'cdnServerToken', message: 'could not be resolved' }],
            id: 'req-1',
          },
        },
      },
      ['optimal-region'],
      `edgesync: API_UNAVAILABLE: ${E7}: 500 Internal Server Error: Region lookup failed; cdnServerToken: could not be resolved (extended error); gave up after 6 attempts`,
    ],
    [
      'E8 status-only 500',
      { operation: 'getWafPlanSegmentation', times: 6, reply: STATUS_500 },
      ['waf-catalog'],
      `edgesync: API_UNAVAILABLE: ${E8}: 500 Internal Server Error (status only); gave up after 6 attempts`,
    ],
    [
      'E9 status-only 500',
      { operation: 'getApiGuardianMetrics', times: 6, reply: STATUS_500 },
      ['api-guardian', '--shield-zone', '42'],
      `edgesync: API_UNAVAILABLE: ${E9}: 500 Internal Server Error (status only); gave up after 6 attempts`,
    ],
    [
      'E8 garbage body',
      { operation: 'getWafPlanSegmentation', reply: { status: 200, body: '{"data": [garbage' } },
      ['waf-catalog'],
      `edgesync: API_BAD_RESPONSE: ${E8}: 200 OK: the reply is not JSON (not JSON)`,
    ],
    [
      'E6 JSON of the wrong shape',
      { operation: 'getBotCategorization', reply: { status: 200, body: { categories: 'none' } } },
      ['bots', '--shield-zone', '42'],
      `edgesync: API_BAD_RESPONSE: ${E6}: 200 OK: the reply does not match its schema: categories: Invalid input: expected array, received string (schema mismatch)`,
    ],
    [
      'E9 envelope with success: false',
      {
        operation: 'getApiGuardianMetrics',
        reply: {
          status: 200,
          body: {
            data: null,
            error: {
              statusCode: 402,
              success: false,
              message: 'API Guardian is not enabled',
              errorKey: 'api_guardian.disabled',
            },
          },
        },
      },
      ['api-guardian', '--shield-zone', '42'],
      `edgesync: API_REJECTED: ${E9}: 200 OK: API Guardian is not enabled [api_guardian.disabled] (envelope error)`,
    ],
  ])('%s', async (_name, fault, argv, message) => {
    if (fault !== undefined) emu.faults.script(fault);

    const run = await cliAgainst(emu, ['inspect', ...argv]);

    expect(run).toEqual({ code: 1, stdout: '', stderr: `${message}\n` });
  });

  it.each([
    [
      ['bots', '--shield-zone', '42'],
      `${E6}: 401 Unauthorized: The AccessKey header is missing or invalid. (problem details)`,
    ],
    [
      ['optimal-region'],
      `${E7}: 401 Unauthorized: The AccessKey header is missing or invalid. (problem details)`,
    ],
    [['waf-catalog'], `${E8}: 401 Unauthorized (UnauthorizedResult)`],
    [['api-guardian', '--shield-zone', '42'], `${E9}: 401 Unauthorized (UnauthorizedResult)`],
  ])('401 for %j names the operation and where the key comes from', async (argv, message) => {
    const run = await cliAgainst(emu, ['inspect', ...argv], { key: 'not-the-key' });

    expect(run).toEqual({ code: 1, stdout: '', stderr: `edgesync: API_AUTH: ${message}; ${KEY_HINT}\n` });
  });

  it('an unreachable API is one line after the retries', async () => {
    const closed = await startTestServer();
    await closed.close();

    const run = await cli(['inspect', 'optimal-region', '--base-url', closed.url], {
      env: { EDGESYNC_ACCESS_KEY: TEST_KEY },
    });

    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: `edgesync: API_UNAVAILABLE: ${E7}: no reply: connection refused (ECONNREFUSED); gave up after 6 attempts\n`,
    });
  });

  it('no key at all is a usage line, and no request is sent', async () => {
    const run = await cli(['inspect', 'optimal-region', '--base-url', emu.url]);

    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: 'edgesync: USAGE: no access key: set EDGESYNC_ACCESS_KEY or pass --access-key-file FILE\n',
    });
    expect(emu.journal.count()).toBe(0);
  });

  it('never prints the access key, even when the API echoes it', async () => {
    emu.faults.script({
      operation: 'getBotCategorization',
      reply: {
        status: 404,
        body: { title: 'Not Found', status: 404, detail: `no zone for key ${TEST_KEY}` },
      },
    });

    const echoed = await cliAgainst(emu, ['inspect', 'bots', '--shield-zone', '42']);
    const runs = [
      echoed,
      await cliAgainst(emu, ['inspect', 'bots', '--shield-zone', '42', '--json']),
      await cliAgainst(emu, ['inspect', 'waf-catalog']),
      await cliAgainst(emu, ['inspect', 'api-guardian', '--shield-zone', '42']),
      await cliAgainst(emu, ['inspect', 'optimal-region', '--log-level', 'trace']),
    ];

    expect(echoed.stderr).toBe(
      `edgesync: API_NOT_FOUND: ${E6}: 404 Not Found: no zone for key [redacted] (problem details)\n`,
    );
    for (const run of runs) expect(`${run.stdout}${run.stderr}`).not.toContain(TEST_KEY);
  });
});
