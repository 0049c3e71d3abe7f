import { describe, expect, onTestFinished } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import { call, TEST_KEY, TEST_SEED, test } from '../helpers/emulator.js';

/**
 * Invalid request bodies across E1-E4: each must be refused with the exact status and the
 * operation's error shape, naming the offending field, and must leave the state untouched.
 * Problem details carry fields as `errors: {field: [messages]}`; the extended error as
 * `errors: [{field, message}]`.
 */

const E1 = '/shield/waf/custom-rule/1234';
const E2 = '/shield/shield-zone/42/access-lists/9001';
const E3 = '/shield/shield-zone/42/access-lists/configurations/19001';
const E4 = '/mc/apps/app1';

const CONFIG = { actionType: 1, operatorType: 17, severityType: 2 };
const TEMPLATE = {
  name: 'web',
  imageRegistryId: '1',
  imageNamespace: 'acme',
  imageName: 'web',
  imageTag: '1',
};
const WEB = { ...TEMPLATE, id: 'tpl-web', volumeMounts: [{ name: 'data', mountPath: '/data' }] };
const CDN = { displayName: 'cdn', cdn: { portMappings: [{ containerPort: 80 }] } };

interface Case {
  label: string;
  path: string;
  /** JSON body, or a raw string sent as is. */
  body: unknown;
  status: number;
  /** 'problem' = problem details with errors map; 'extended' = ErrorDetails with errors list. */
  shape: 'problem' | 'extended';
  /** The field the error must name. */
  field: string;
  /** The exact message for that field, in the real server's (ASP.NET) wording. */
  message?: string;
  contentType?: string;
  /** Refused only by a `strict` emulator: an unknown field, which the real server ignores. */
  strict?: true;
}

const CASES: Case[] = [
  // E1: no additional properties, integer enums from the seed tables, types checked.
  {
    label: 'E1 unknown top-level field',
    strict: true,
    path: E1,
    body: { ruleName: 'x', id: 5 },
    status: 400,
    shape: 'problem',
    field: 'id',
    message: "The JSON property 'id' could not be mapped to any .NET member.",
  },
  {
    label: 'E1 unknown field in ruleConfiguration',
    strict: true,
    path: E1,
    body: { ruleConfiguration: { ...CONFIG, requestCount: 5 } },
    status: 400,
    shape: 'problem',
    field: 'ruleConfiguration.requestCount',
  },
  {
    label: 'E1 unknown field in a chained condition',
    strict: true,
    path: E1,
    body: { ruleConfiguration: { ...CONFIG, chainedRuleConditions: [{ operatorType: 2, actionType: 1 }] } },
    status: 400,
    shape: 'problem',
    field: 'ruleConfiguration.chainedRuleConditions[0].actionType',
  },
  {
    label: 'E1 actionType 0',
    path: E1,
    body: { ruleConfiguration: { ...CONFIG, actionType: 0 } },
    status: 400,
    shape: 'problem',
    field: 'ruleConfiguration.actionType',
  },
  {
    label: 'E1 actionType 6',
    path: E1,
    body: { ruleConfiguration: { ...CONFIG, actionType: 6 } },
    status: 400,
    shape: 'problem',
    field: 'ruleConfiguration.actionType',
    message: 'The field ActionType must be one of 1 (Block), 2 (Log), 3 (Challenge), 4 (Allow), 5 (Bypass).',
  },
  {
    label: 'E1 actionType as a name',
    path: E1,
    body: { ruleConfiguration: { ...CONFIG, actionType: 'Block' } },
    status: 400,
    shape: 'problem',
    field: 'ruleConfiguration.actionType',
    message: 'The JSON value could not be converted to System.Int32. Path: $.ruleConfiguration.actionType.',
  },
  {
    label: 'E1 actionType missing',
    path: E1,
    body: { ruleConfiguration: { operatorType: 1 } },
    status: 400,
    shape: 'problem',
    field: 'ruleConfiguration.actionType',
    message: 'The ActionType field is required.',
  },
  {
    label: 'E1 operatorType 10 (forbidden)',
    path: E1,
    body: { ruleConfiguration: { ...CONFIG, operatorType: 10 } },
    status: 400,
    shape: 'problem',
    field: 'ruleConfiguration.operatorType',
  },
  {
    label: 'E1 operatorType 11 (forbidden)',
    path: E1,
    body: { ruleConfiguration: { ...CONFIG, operatorType: 11 } },
    status: 400,
    shape: 'problem',
    field: 'ruleConfiguration.operatorType',
  },
  {
    label: 'E1 operatorType 13 (forbidden)',
    path: E1,
    body: { ruleConfiguration: { ...CONFIG, operatorType: 13 } },
    status: 400,
    shape: 'problem',
    field: 'ruleConfiguration.operatorType',
  },
  {
    label: 'E1 operatorType 16 (forbidden)',
    path: E1,
    body: { ruleConfiguration: { ...CONFIG, operatorType: 16 } },
    status: 400,
    shape: 'problem',
    field: 'ruleConfiguration.operatorType',
  },
  {
    label: 'E1 operatorType 16 in a chained condition',
    path: E1,
    body: { ruleConfiguration: { ...CONFIG, chainedRuleConditions: [{ operatorType: 16 }] } },
    status: 400,
    shape: 'problem',
    field: 'ruleConfiguration.chainedRuleConditions[0].operatorType',
  },
  {
    label: 'E1 operatorType 1.5',
    path: E1,
    body: { ruleConfiguration: { ...CONFIG, operatorType: 1.5 } },
    status: 400,
    shape: 'problem',
    field: 'ruleConfiguration.operatorType',
    message: 'The JSON value could not be converted to System.Int32. Path: $.ruleConfiguration.operatorType.',
  },
  {
    label: 'E1 severityType 3',
    path: E1,
    body: { ruleConfiguration: { ...CONFIG, severityType: 3 } },
    status: 400,
    shape: 'problem',
    field: 'ruleConfiguration.severityType',
  },
  {
    label: 'E1 transformation 0',
    path: E1,
    body: { ruleConfiguration: { ...CONFIG, transformationTypes: [19, 0] } },
    status: 400,
    shape: 'problem',
    field: 'ruleConfiguration.transformationTypes[1]',
  },
  {
    label: 'E1 transformation 22',
    path: E1,
    body: { ruleConfiguration: { ...CONFIG, transformationTypes: [22] } },
    status: 400,
    shape: 'problem',
    field: 'ruleConfiguration.transformationTypes[0]',
  },
  {
    label: 'E1 unknown variableTypes key',
    path: E1,
    body: { ruleConfiguration: { ...CONFIG, variableTypes: { REQUEST_URI: '', HOST: '' } } },
    status: 400,
    shape: 'problem',
    field: 'ruleConfiguration.variableTypes.HOST',
  },
  {
    label: 'E1 variableTypes value not a string',
    path: E1,
    body: { ruleConfiguration: { ...CONFIG, variableTypes: { ARGS: 1 } } },
    status: 400,
    shape: 'problem',
    field: 'ruleConfiguration.variableTypes.ARGS',
  },
  {
    label: 'E1 ruleName not a string',
    path: E1,
    body: { ruleName: 42 },
    status: 400,
    shape: 'problem',
    field: 'ruleName',
  },
  {
    label: 'E1 isNegated not a boolean',
    path: E1,
    body: { ruleConfiguration: { ...CONFIG, isNegated: 'yes' } },
    status: 400,
    shape: 'problem',
    field: 'ruleConfiguration.isNegated',
    message: 'The JSON value could not be converted to System.Boolean. Path: $.ruleConfiguration.isNegated.',
  },
  {
    label: 'E1 ruleConfiguration null',
    path: E1,
    body: { ruleConfiguration: null },
    status: 400,
    shape: 'problem',
    field: 'ruleConfiguration',
  },
  { label: 'E1 body is an array', path: E1, body: [], status: 400, shape: 'problem', field: '$' },
  { label: 'E1 body not JSON', path: E1, body: '{"ruleName": ', status: 400, shape: 'problem', field: '$' },
  { label: 'E1 empty body', path: E1, body: '', status: 400, shape: 'problem', field: '$' },
  // E2
  {
    label: 'E2 unknown field',
    strict: true,
    path: E2,
    body: { content: 'x', type: 1 },
    status: 400,
    shape: 'problem',
    field: 'type',
  },
  {
    label: 'E2 content not a string',
    path: E2,
    body: { content: ['a', 'b'] },
    status: 400,
    shape: 'problem',
    field: 'content',
    message: 'The JSON value could not be converted to System.String. Path: $.content.',
  },
  {
    label: 'E2 wrong checksum',
    path: E2,
    body: { content: 'x', checksum: '0'.repeat(64) },
    status: 400,
    shape: 'problem',
    field: 'checksum',
  },
  { label: 'E2 body not JSON', path: E2, body: 'content=x', status: 400, shape: 'problem', field: '$' },
  // E3
  {
    label: 'E3 isEnabled not a boolean',
    path: E3,
    body: { isEnabled: 'true' },
    status: 400,
    shape: 'problem',
    field: 'isEnabled',
  },
  {
    label: 'E3 action 6',
    path: E3,
    body: { isEnabled: true, action: 6 },
    status: 400,
    shape: 'problem',
    field: 'action',
  },
  {
    label: 'E3 unknown field',
    strict: true,
    path: E3,
    body: { isEnabled: true, listId: 9001 },
    status: 400,
    shape: 'problem',
    field: 'listId',
  },
  // E4
  {
    label: 'E4 unknown top-level field',
    strict: true,
    path: E4,
    body: { name: 'x', description: 'y' },
    status: 400,
    shape: 'extended',
    field: 'description',
  },
  {
    label: 'E4 name with a forbidden character',
    path: E4,
    body: { name: 'shop_front' },
    status: 400,
    shape: 'extended',
    field: 'name',
    message: "The field Name must match the regular expression '[A-Za-z0-9-\\s]+'.",
  },
  {
    label: 'E4 name empty',
    path: E4,
    body: { name: '' },
    status: 400,
    shape: 'extended',
    field: 'name',
    message: 'The field Name must be a string with a minimum length of 1 and a maximum length of 100.',
  },
  {
    label: 'E4 name of 101 characters',
    path: E4,
    body: { name: 'a'.repeat(101) },
    status: 400,
    shape: 'extended',
    field: 'name',
  },
  {
    label: 'E4 runtimeType unknown',
    path: E4,
    body: { runtimeType: 'dedicated' },
    status: 400,
    shape: 'extended',
    field: 'runtimeType',
    message: 'The JSON value could not be converted to ApplicationRuntimeType. Path: $.runtimeType.',
  },
  {
    label: 'E4 autoScaling without max',
    path: E4,
    body: { autoScaling: { min: 1 } },
    status: 400,
    shape: 'extended',
    field: 'autoScaling.max',
    message: 'The Max field is required.',
  },
  {
    label: 'E4 autoScaling min 0',
    path: E4,
    body: { autoScaling: { min: 0, max: 2 } },
    status: 400,
    shape: 'extended',
    field: 'autoScaling.min',
  },
  {
    label: 'E4 required region not allowed',
    path: E4,
    body: { regionSettings: { requiredRegionIds: ['SG'] } },
    status: 400,
    shape: 'extended',
    field: 'regionSettings.requiredRegionIds[0]',
  },
  {
    label: 'E4 unknown field in regionSettings',
    strict: true,
    path: E4,
    body: { regionSettings: { provisioningType: 'static' } },
    status: 400,
    shape: 'extended',
    field: 'regionSettings.provisioningType',
  },
  {
    label: 'E4 volume size 0',
    path: E4,
    body: { volumes: [{ name: 'data', size: 0 }] },
    status: 400,
    shape: 'extended',
    field: 'volumes[0].size',
  },
  {
    label: 'E4 volume size 101',
    path: E4,
    body: { volumes: [{ name: 'data', size: 101 }] },
    status: 400,
    shape: 'extended',
    field: 'volumes[0].size',
    message: 'The field Size must be between 1 and 100.',
  },
  {
    label: 'E4 volume size not an integer',
    path: E4,
    body: { volumes: [{ name: 'data', size: 2.5 }] },
    status: 400,
    shape: 'extended',
    field: 'volumes[0].size',
  },
  {
    label: 'E4 volume with an id',
    strict: true,
    path: E4,
    body: { volumes: [{ id: 'v1', name: 'data', size: 1 }] },
    status: 400,
    shape: 'extended',
    field: 'volumes[0].id',
  },
  {
    label: 'E4 duplicate volume names',
    path: E4,
    body: {
      volumes: [
        { name: 'data', size: 1 },
        { name: 'data', size: 2 },
      ],
    },
    status: 400,
    shape: 'extended',
    field: 'volumes[1].name',
  },
  {
    label: 'E4 template without imageTag',
    path: E4,
    body: { containerTemplates: [{ ...WEB, imageTag: undefined }] },
    status: 400,
    shape: 'extended',
    field: 'containerTemplates[0].imageTag',
    message: 'The ImageTag field is required.',
  },
  {
    label: 'E4 template without imageRegistryId',
    path: E4,
    body: { containerTemplates: [{ ...WEB, imageRegistryId: undefined }] },
    status: 400,
    shape: 'extended',
    field: 'containerTemplates[0].imageRegistryId',
  },
  {
    label: 'E4 unknown template id',
    path: E4,
    body: { containerTemplates: [{ ...WEB, id: 'tpl-nope' }] },
    status: 400,
    shape: 'extended',
    field: 'containerTemplates[0].id',
  },
  {
    label: 'E4 duplicate template names',
    path: E4,
    body: { containerTemplates: [WEB, { ...TEMPLATE }] },
    status: 400,
    shape: 'extended',
    field: 'containerTemplates[1].name',
    message: "Duplicate container name 'web'.",
  },
  {
    label: 'E4 empty containerTemplates',
    path: E4,
    body: { containerTemplates: [] },
    status: 400,
    shape: 'extended',
    field: 'containerTemplates',
  },
  {
    label: 'E4 mount of an unknown volume',
    path: E4,
    body: { containerTemplates: [{ ...WEB, volumeMounts: [{ name: 'nope', mountPath: '/x' }] }] },
    status: 400,
    shape: 'extended',
    field: 'containerTemplates[0].volumeMounts[0].name',
  },
  {
    label: 'E4 relative mountPath',
    path: E4,
    body: { containerTemplates: [{ ...WEB, volumeMounts: [{ name: 'data', mountPath: 'data' }] }] },
    status: 400,
    shape: 'extended',
    field: 'containerTemplates[0].volumeMounts[0].mountPath',
    message:
      "The field MountPath must match the regular expression '^/(?!.*//)(?!.*\\.\\.)(?!.*\\s)([a-zA-Z0-9._-]+/?)+$'.",
  },
  {
    label: 'E4 imagePullPolicy unknown',
    path: E4,
    body: { containerTemplates: [{ ...WEB, imagePullPolicy: 'never' }] },
    status: 400,
    shape: 'extended',
    field: 'containerTemplates[0].imagePullPolicy',
  },
  {
    label: 'E4 port 0',
    path: E4,
    body: {
      containerTemplates: [
        { ...WEB, endpoints: [{ displayName: 'c', cdn: { portMappings: [{ containerPort: 0 }] } }] },
      ],
    },
    status: 400,
    shape: 'extended',
    field: 'containerTemplates[0].endpoints[0].cdn.portMappings[0].containerPort',
  },
  {
    label: 'E4 port 65536',
    path: E4,
    body: {
      containerTemplates: [
        {
          ...WEB,
          endpoints: [
            { displayName: 'c', cdn: { portMappings: [{ containerPort: 80, exposedPort: 65536 }] } },
          ],
        },
      ],
    },
    status: 400,
    shape: 'extended',
    field: 'containerTemplates[0].endpoints[0].cdn.portMappings[0].exposedPort',
    message: 'The field ExposedPort must be between 1 and 65535.',
  },
  {
    label: 'E4 protocol http',
    path: E4,
    body: {
      containerTemplates: [
        {
          ...WEB,
          endpoints: [
            { displayName: 'c', cdn: { portMappings: [{ containerPort: 80, protocols: ['http'] }] } },
          ],
        },
      ],
    },
    status: 400,
    shape: 'extended',
    field: 'containerTemplates[0].endpoints[0].cdn.portMappings[0].protocols[0]',
  },
  {
    label: 'E4 endpoint with an id',
    strict: true,
    path: E4,
    body: { containerTemplates: [{ ...WEB, endpoints: [{ ...CDN, id: 'e1' }] }] },
    status: 400,
    shape: 'extended',
    field: 'containerTemplates[0].endpoints[0].id',
  },
  {
    label: 'E4 endpoint with neither cdn nor anycast',
    path: E4,
    body: { containerTemplates: [{ ...WEB, endpoints: [{ displayName: 'c' }] }] },
    status: 400,
    shape: 'extended',
    field: 'containerTemplates[0].endpoints[0].cdn',
  },
  {
    label: 'E4 duplicate endpoint displayName',
    path: E4,
    body: { containerTemplates: [{ ...WEB, endpoints: [CDN, CDN] }] },
    status: 400,
    shape: 'extended',
    field: 'containerTemplates[0].endpoints[1].displayName',
  },
  {
    label: 'E4 probe period 0',
    path: E4,
    body: { containerTemplates: [{ ...WEB, probes: { liveness: { periodSeconds: 0 } } }] },
    status: 400,
    shape: 'extended',
    field: 'containerTemplates[0].probes.liveness.periodSeconds',
  },
  {
    label: 'E4 probe failureThreshold 1001',
    path: E4,
    body: { containerTemplates: [{ ...WEB, probes: { readiness: { failureThreshold: 1001 } } }] },
    status: 400,
    shape: 'extended',
    field: 'containerTemplates[0].probes.readiness.failureThreshold',
    message: 'The field FailureThreshold must be between 1 and 1000.',
  },
  {
    label: 'E4 unknown probe kind',
    strict: true,
    path: E4,
    body: { containerTemplates: [{ ...WEB, probes: { warmup: {} } }] },
    status: 400,
    shape: 'extended',
    field: 'containerTemplates[0].probes.warmup',
  },
  {
    label: 'E4 sticky sessions with 4 headers',
    path: E4,
    body: {
      containerTemplates: [
        {
          ...WEB,
          endpoints: [
            {
              displayName: 'c',
              cdn: {
                stickySessions: { sessionHeaders: ['a', 'b', 'c', 'd'] },
                portMappings: [{ containerPort: 80 }],
              },
            },
          ],
        },
      ],
    },
    status: 400,
    shape: 'extended',
    field: 'containerTemplates[0].endpoints[0].cdn.stickySessions.sessionHeaders',
    message: "The field SessionHeaders must be a string or array type with a maximum length of '3'.",
  },
  { label: 'E4 body not JSON', path: E4, body: 'name: x', status: 400, shape: 'extended', field: '$' },
];

/** Everything a write could have touched, as plain JSON. */
function snapshot(emu: Emulator): string {
  return JSON.stringify({
    rule: emu.state.customRule(1234),
    list: emu.state.accessList(42, 9001),
    app: emu.state.app('app1'),
    nodeSelectors: emu.state.nodeSelectors('app1'),
  });
}

function fieldsOf(shape: Case['shape'], body: unknown): string[] {
  if (shape === 'problem') return Object.keys((body as { errors?: Record<string, string[]> }).errors ?? {});
  return ((body as { errors?: { field: string }[] }).errors ?? []).map((e) => e.field);
}

function messagesOf(shape: Case['shape'], body: unknown, field: string): string[] {
  if (shape === 'problem') return (body as { errors: Record<string, string[]> }).errors[field] ?? [];
  return (body as { errors: { field: string; message: string }[] }).errors
    .filter((e) => e.field === field)
    .map((e) => e.message);
}

describe('invalid request bodies', () => {
  test('the table has at least 30 cases across E1-E4', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(30);
    expect(new Set(CASES.map((c) => c.path))).toEqual(new Set([E1, E2, E3, E4]));
  });

  test.for(CASES)(
    '$label',
    async ({ path, body, status, shape, field, message, strict }, { emu: lenient }) => {
      const strictEmu = strict
        ? await startEmulator({ accessKey: TEST_KEY, seed: TEST_SEED, strict })
        : undefined;
      onTestFinished(() => strictEmu?.close());
      const emu = strictEmu ?? lenient;
      const before = snapshot(emu);

      const result = await call(
        emu,
        'PATCH',
        path,
        typeof body === 'string'
          ? { rawBody: body, headers: { 'content-type': 'application/json' } }
          : { body },
      );

      expect(result.status).toBe(status);
      const json = result.json as Record<string, unknown>;
      expect(json.status).toBe(status);
      expect(json.title).toEqual(expect.any(String));
      expect(json.instance).toBe(path);
      if (shape === 'problem') {
        expect(json.type).toEqual(expect.stringContaining('rfc9110'));
        expect(json).not.toHaveProperty('id');
      } else {
        expect(json.id).toBe('app1');
        expect(Array.isArray(json.errors)).toBe(true);
      }
      expect(fieldsOf(shape, json)).toContain(field);
      if (message !== undefined) expect(messagesOf(shape, json, field)).toContain(message);
      expect(JSON.stringify(json)).not.toMatch(/Invalid input|expected \w+, received/);
      expect(snapshot(emu)).toBe(before);
    },
  );
});

describe('other refused bodies', () => {
  test('a body that is not sent as JSON is 415', async ({ emu }) => {
    const result = await call(emu, 'PATCH', E2, {
      rawBody: '{"content":"x"}',
      headers: { 'content-type': 'text/plain' },
    });

    expect(result.status).toBe(415);
    expect(result.json).toMatchObject({ status: 415 });
  });

  test('text/json and application/*+json are accepted as JSON', async ({ emu }) => {
    const textJson = await call(emu, 'PATCH', E3, {
      rawBody: '{"isEnabled":false}',
      headers: { 'content-type': 'text/json' },
    });
    const mergePatch = await call(emu, 'PATCH', E3, {
      rawBody: '{"isEnabled":true}',
      headers: { 'content-type': 'application/merge-patch+json; charset=utf-8' },
    });

    expect(textJson.status).toBe(200);
    expect(mergePatch.status).toBe(200);
  });

  test('a body over 1 MiB is 413 and changes nothing', async ({ emu }) => {
    const before = snapshot(emu);

    const result = await call(emu, 'PATCH', E2, { body: { content: 'x'.repeat(1024 * 1024 + 10) } });

    expect(result.status).toBe(413);
    expect(snapshot(emu)).toBe(before);
  });

  test('a non-integer E1 id is a 400 problem details naming id', async ({ emu }) => {
    const result = await call(emu, 'PATCH', '/shield/waf/custom-rule/abc', { body: { ruleName: 'x' } });

    expect(result.status).toBe(400);
    expect(fieldsOf('problem', result.json)).toEqual(['id']);
  });
});
