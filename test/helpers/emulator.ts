/**
 * Emulator fixture for tests: a fresh emulator per test, seeded with TEST_SEED, closed after.
 * `call` is a thin fetch wrapper over real loopback HTTP (no mocks) that returns the status,
 * headers, raw text and parsed JSON of a reply.
 */
import { test as base } from 'vitest';
import type { Emulator, EmulatorSeed } from '../../src/emulator/index.js';
import { startEmulator } from '../../src/emulator/index.js';

/** The key every test emulator accepts. */
export const TEST_KEY = 'test-access-key-0123456789';

/** A container template with only the fields an app's PATCH or seed needs (`web`, image acme/web:1). */
export const MINIMAL_TEMPLATE = {
  name: 'web',
  imageRegistryId: '1',
  imageNamespace: 'acme',
  imageName: 'web',
  imageTag: '1',
};

/** A small account: two Shield Zones (one pull zone listed), one app with two containers, two DNS zones. */
export const TEST_SEED: EmulatorSeed = {
  shieldZones: [
    {
      id: 42,
      pullZoneId: 1042,
      planType: 'Advanced',
      customRules: [
        {
          id: 1234,
          ruleName: 'Block SQLi',
          ruleDescription: 'SQL injection',
          ruleConfiguration: {
            actionType: 'Block',
            operatorType: 'DETECTSQLI',
            severityType: 'CRITICAL',
            variableTypes: { REQUEST_URI: '', ARGS: '' },
            transformationTypes: ['URLDECODE', 'LOWERCASE'],
            value: '',
            isNegated: false,
          },
        },
        {
          id: 1235,
          ruleName: 'Log scanners',
          ruleConfiguration: { actionType: 2, operatorType: 2, severityType: 1, value: 'sqlmap' },
        },
        {
          id: 1236,
          ruleName: 'Third',
          ruleConfiguration: { actionType: 'Challenge', operatorType: 'RX', value: '^/admin' },
        },
      ],
      customAccessLists: [
        {
          id: 9001,
          configurationId: 19001,
          name: 'Office IPs',
          type: 'CIDR',
          content: '203.0.113.0/24\n198.51.100.7',
          action: 'Block',
        },
        {
          id: 9002,
          configurationId: 19002,
          name: 'Countries',
          type: 'Country',
          entries: ['KP'],
          isEnabled: false,
          action: 'Challenge',
        },
      ],
      managedAccessLists: [
        { id: 5, configurationId: 10005, name: 'VPN Providers', category: 'VPNs', entryCount: 100 },
      ],
    },
    { id: 43, planType: 'Basic' },
  ],
  apps: [
    {
      id: 'app1',
      name: 'storefront',
      runtimeType: 'shared',
      autoScaling: { min: 1, max: 3 },
      regionSettings: { allowedRegionIds: ['DE', 'NY'], requiredRegionIds: ['DE'], maxAllowedRegions: 2 },
      containerTemplates: [
        {
          id: 'tpl-web',
          name: 'web',
          imageRegistryId: '123',
          imageNamespace: 'acme',
          imageName: 'web',
          imageTag: '1.4.2',
          environmentVariables: [{ name: 'LOG_LEVEL', value: 'info' }],
          endpoints: [
            {
              displayName: 'web-cdn',
              cdn: { isSslEnabled: true, portMappings: [{ containerPort: 8080, protocols: ['tcp'] }] },
            },
          ],
          volumeMounts: [{ name: 'data', mountPath: '/data' }],
        },
        {
          id: 'tpl-worker',
          name: 'worker',
          imageRegistryId: '123',
          imageNamespace: 'acme',
          imageName: 'worker',
          imageTag: '2.0.0',
        },
      ],
      volumes: [
        { name: 'data', size: 10 },
        { name: 'cache', size: 5 },
      ],
    },
  ],
  dnsZones: [
    { id: 12345, domain: 'example.com', dnsSecEnabled: true },
    { id: 12346, domain: 'example.org' },
  ],
  // Zone 42's pull zone; zone 43's (43) is not listed.
  pullZones: [{ id: 1042, name: 'shop', hostnames: ['shop.example.com'] }],
};

/** A reply as the tests see it. */
export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON, or undefined when the body is empty or not JSON. */
  json: unknown;
}

/** Options of `call`. `key: null` sends no AccessKey header; a string sends that key. */
export interface CallOptions {
  body?: unknown;
  rawBody?: string;
  key?: string | null;
  headers?: Record<string, string>;
}

/** One request over loopback with the test key (unless told otherwise). */
export async function call(
  emu: Emulator,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? TEST_KEY : options.key;
  if (key !== null) headers.AccessKey = key;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    headers['content-type'] = 'application/json';
  }
  const response = await fetch(`${emu.url}${path}`, { method, headers, body });
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** Starts an emulator with TEST_SEED (or `seed`) for one test. */
export async function withEmulator(seed: EmulatorSeed = TEST_SEED): Promise<Emulator> {
  return startEmulator({ accessKey: TEST_KEY, seed });
}

/** `test` with an `emu` fixture: a fresh, seeded emulator per test, closed afterwards. */
export const test = base.extend<{ emu: Emulator }>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads fixture dependencies from this pattern
  emu: async ({}, use) => {
    const emu = await withEmulator();
    await use(emu);
    await emu.close();
  },
});
