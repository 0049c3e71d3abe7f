import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { desiredStateJsonSchema, desiredStateJsonSchemaText } from '../../../src/config/json-schema.js';
import { loadDesiredState } from '../../../src/config/loader.js';

const EXAMPLES = fileURLToPath(new URL('../../../config-examples/', import.meta.url));

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.ya?ml$/.test(entry.name) && !entry.parentPath.includes('/.'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

const validate = new Ajv2020({ strict: true, allErrors: true }).compile(desiredStateJsonSchema());
const exampleDocs = yamlFiles(EXAMPLES).flatMap((file) =>
  parseAllDocuments(readFileSync(file, 'utf8')).map((doc, index) => ({
    where: `${relative(EXAMPLES, file)}#${index}`,
    data: doc.toJS() as unknown,
  })),
);

describe('JSON Schema of the desired-state format', () => {
  it('is the committed config-examples/schema/edgesync.schema.json', () => {
    const committed = readFileSync(join(EXAMPLES, 'schema/edgesync.schema.json'), 'utf8');

    expect(committed).toBe(desiredStateJsonSchemaText());
  });

  it('covers every document of config-examples', () => {
    expect(exampleDocs.map((doc) => doc.where)).toHaveLength(18);
  });

  it.each(exampleDocs)('accepts $where', ({ data }) => {
    const ok = validate(data);

    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it('points every example file at the schema with a correct relative modeline', () => {
    for (const file of yamlFiles(EXAMPLES)) {
      const depth = relative(EXAMPLES, file).split('/').length - 1;
      const first = readFileSync(file, 'utf8').split('\n')[0];

      expect(first).toBe(`# yaml-language-server: $schema=${'../'.repeat(depth)}schema/edgesync.schema.json`);
    }
  });

  it.each([
    ['an unknown kind', { apiVersion: 'edgesync/v1', kind: 'PullZone', metadata: { name: 'a' }, spec: {} }],
    [
      'a wrong apiVersion',
      { apiVersion: 'v1', kind: 'DnsZone', metadata: { name: 'a' }, spec: { id: 1, dnssec: true } },
    ],
    [
      'an unknown spec key',
      {
        apiVersion: 'edgesync/v1',
        kind: 'DnsZone',
        metadata: { name: 'a' },
        spec: { id: 1, dnssec: true, x: 1 },
      },
    ],
    [
      'a bad metadata.name',
      {
        apiVersion: 'edgesync/v1',
        kind: 'DnsZone',
        metadata: { name: 'A_B' },
        spec: { id: 1, dnssec: true },
      },
    ],
    [
      'a volume of 101 GB',
      {
        apiVersion: 'edgesync/v1',
        kind: 'ContainerApp',
        metadata: { name: 'a' },
        spec: { appId: 'x', volumes: [{ name: 'v', size: 101 }] },
      },
    ],
    [
      'operator 16',
      {
        apiVersion: 'edgesync/v1',
        kind: 'WafCustomRule',
        metadata: { name: 'a' },
        spec: {
          id: 1,
          shieldZoneId: 2,
          ruleName: 'r',
          ruleConfiguration: { actionType: 'Block', operatorType: 16, variableTypes: { ARGS: '' } },
        },
      },
    ],
    [
      'an unknown variable key',
      {
        apiVersion: 'edgesync/v1',
        kind: 'WafCustomRule',
        metadata: { name: 'a' },
        spec: {
          id: 1,
          shieldZoneId: 2,
          ruleName: 'r',
          ruleConfiguration: { actionType: 'Block', operatorType: 'EQ', variableTypes: { NOPE: '' } },
        },
      },
    ],
  ])('rejects %s', (_what, doc) => {
    expect(validate(doc)).toBe(false);
  });

  it('accepts enum names in any casing and as integers, as the loader does', () => {
    const doc = {
      apiVersion: 'edgesync/v1',
      kind: 'WafCustomRule',
      metadata: { name: 'a' },
      spec: {
        id: 1,
        shieldZoneId: 2,
        ruleName: 'r',
        ruleConfiguration: { actionType: 'block', operatorType: 17, variableTypes: { ARGS: null } },
      },
    };

    expect(validate(doc)).toBe(true);
  });
});

describe('config-examples', () => {
  it('loads with no problem and no warning', async () => {
    const state = await loadDesiredState(EXAMPLES);

    expect(state.warnings).toEqual([]);
    expect(state.fileCount).toBe(7);
    expect(state.resources.map((r) => r.subject)).toEqual([
      'ContainerApp/image-resizer',
      'ContainerApp/storefront',
      'DnsZone/example-com',
      'DnsZone/example-net',
      'AccessList/office-ips',
      'AccessList/abusive-networks',
      'ManagedAccessList/tor-exit-nodes',
      'WafCustomRule/block-sqli-login',
      'WafCustomRule/block-xss-search',
      'WafCustomRule/challenge-admin-outside-office',
      'WafCustomRule/log-scanner-user-agents',
      'AccessList/partner-networks',
      'AccessList/blocked-crawlers',
      'WafCustomRule/block-path-traversal-api',
      'WafCustomRule/block-oversized-bodies',
      'WafCustomRule/allow-health-checks',
      'WafCustomRule/block-api-scrapers',
      'ShieldZone/api-example-com',
    ]);
  });
});
