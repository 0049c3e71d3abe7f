import { createHash } from 'node:crypto';
import { realpathSync, symlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../../src/config/loader.js';
import type { DesiredResource } from '../../../src/config/types.js';
import { tempDir } from '../../helpers/temp-dir.js';

const VALID = fileURLToPath(new URL('../../fixtures/desired/valid/', import.meta.url));

function bySubject(resources: readonly DesiredResource[]): Map<string, DesiredResource> {
  return new Map(resources.map((r) => [r.subject, r]));
}

describe('valid desired state: the canonical form of every kind', () => {
  it('loads every resource in file order, each remembering where it was declared', async () => {
    const state = await loadDesiredState(VALID);

    expect(
      state.resources.map((r) => [r.subject, `${r.source.file}:${r.source.line}:${r.source.col}`]),
    ).toEqual([
      ['ContainerApp/storefront', 'apps/app.yaml:1:1'],
      ['DnsZone/example-com', 'apps/app.yaml:30:1'],
      ['AccessList/one-ip', 'shield/lists.yaml:1:1'],
      ['AccessList/office', 'shield/lists.yaml:10:1'],
      ['AccessList/names-only', 'shield/lists.yaml:23:1'],
      ['ManagedAccessList/tor', 'shield/lists.yaml:32:1'],
      ['ManagedAccessList/vpn-by-name', 'shield/lists.yaml:42:1'],
      ['WafCustomRule/block-sqli-login', 'shield/rules.yaml:1:1'],
      ['WafCustomRule/log-bots', 'shield/rules.yaml:21:1'],
    ]);
    expect(state.fileCount).toBe(3);
    expect(state.warnings).toEqual([]);
  });

  it('WafCustomRule: enums by any casing or integer become integers; a bare variable key means ""', async () => {
    const rules = bySubject((await loadDesiredState(VALID)).resources);

    expect(rules.get('WafCustomRule/block-sqli-login')?.spec).toEqual({
      id: 1234,
      shieldZoneId: 42,
      ruleName: 'Block SQLi on login',
      ruleDescription: 'SQL injection attempts on /login',
      ruleConfiguration: {
        actionType: 1,
        operatorType: 17,
        severityType: 2,
        variableTypes: { REQUEST_URI: '', ARGS: '' },
        transformationTypes: [19, 8],
        value: '',
        isNegated: false,
        chainedRuleConditions: [
          { variableTypes: { REQUEST_METHOD: '' }, operatorType: 15, value: 'POST', isNegated: true },
        ],
      },
    });
    expect(rules.get('WafCustomRule/log-bots')?.metadata).toEqual({
      name: 'log-bots',
      suspend: true,
      drift: 'report',
    });
  });

  it('AccessList: trimmed entries, comment and blank lines of an entriesFile dropped, checksum of the content', async () => {
    const lists = bySubject((await loadDesiredState(VALID)).resources);

    expect(lists.get('AccessList/one-ip')?.spec).toEqual({
      shieldZoneId: 42,
      id: 9001,
      content: '192.168.0.1',
      checksum: '37d7a80604871e579850a658c7add2ae7557d0c6abcc9b31ecddc4424207eba3',
      entryCount: 1,
    });
    expect(lists.get('AccessList/office')?.spec).toEqual({
      shieldZoneId: 42,
      id: 9002,
      name: 'Office IPs',
      content: '203.0.113.0/24\n198.51.100.7',
      checksum: '69434d89d7e49e9c61d17e3db1069eb4b9252b26e16822485565c619f44e384e',
      entryCount: 2,
      enabled: true,
      action: 2,
      configurationId: 77,
    });
    // No entries and no entriesFile: the content is not managed at all.
    expect(lists.get('AccessList/names-only')?.spec).toEqual({
      shieldZoneId: 42,
      id: 9003,
      name: 'Renamed list',
    });
  });

  it('ManagedAccessList: by listId or by name', async () => {
    const lists = bySubject((await loadDesiredState(VALID)).resources);

    expect(lists.get('ManagedAccessList/tor')?.spec).toEqual({
      shieldZoneId: 42,
      listId: 11,
      enabled: true,
      action: 3,
    });
    expect(lists.get('ManagedAccessList/vpn-by-name')?.spec).toEqual({
      shieldZoneId: 42,
      name: 'VPN providers',
      enabled: false,
    });
  });

  it('ContainerApp: string enums in the seed casing, registry id as a string, null env value as ""', async () => {
    const apps = bySubject((await loadDesiredState(VALID)).resources);

    expect(apps.get('ContainerApp/storefront')?.spec).toEqual({
      appId: 'Go1e5FdmzoQdr3O',
      name: 'storefront',
      runtimeType: 'shared',
      autoScaling: { min: 1, max: 3 },
      regionSettings: {
        allowedRegionIds: ['DE', 'NY', '@optimal'],
        requiredRegionIds: ['DE'],
        maxAllowedRegions: 2,
      },
      containerTemplates: [
        {
          name: 'web',
          imageRegistryId: '123',
          imageNamespace: 'acme',
          imageName: 'web',
          imageTag: '1.4.2',
          imagePullPolicy: 'ifNotPresent',
          environmentVariables: [
            { name: 'LOG_LEVEL', value: 'info' },
            { name: 'EMPTY', value: '' },
          ],
          endpoints: [
            {
              displayName: 'web-cdn',
              cdn: { isSslEnabled: true, portMappings: [{ containerPort: 8080, protocols: ['tcp'] }] },
            },
          ],
          probes: {
            readiness: { periodSeconds: 10, httpGet: { request: { path: '/ready', portNumber: 8080 } } },
          },
          volumeMounts: [{ name: 'data', mountPath: '/data' }],
        },
      ],
      volumes: [{ name: 'data', size: 10 }],
    });
  });

  it('DnsZone: digest is the SHA-256 of the sorted-key JSON of kind, metadata and spec', async () => {
    const zone = bySubject((await loadDesiredState(VALID)).resources).get('DnsZone/example-com');
    const canonical =
      '{"kind":"DnsZone","metadata":{"drift":"correct","name":"example-com","suspend":false},"spec":{"dnssec":false,"id":12345}}';

    expect(zone?.spec).toEqual({ id: 12345, dnssec: false });
    expect(zone?.digest).toBe(createHash('sha256').update(canonical).digest('hex'));
  });

  it('returns a deep-frozen state', async () => {
    const state = await loadDesiredState(VALID);

    expect(Object.isFrozen(state)).toBe(true);
    expect(Object.isFrozen(state.resources)).toBe(true);
    expect(Object.isFrozen(state.resources[0]?.spec)).toBe(true);
  });

  it('reads through a config dir that is a symlink, and reports the real path', async () => {
    const link = `${tempDir()}/current`;
    symlinkSync(VALID, link);

    const state = await loadDesiredState(link);

    expect(state.configDir).toBe(realpathSync(VALID));
    expect(state.resources).toHaveLength(9);
  });
});
