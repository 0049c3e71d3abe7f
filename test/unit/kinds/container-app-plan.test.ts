import { describe, expect, it } from 'vitest';
import type { AppWire } from '../../../src/api/wire/mc.js';
import { sha256Hex } from '../../../src/domain/checksum.js';
import { stringifyRevealing } from '../../../src/domain/sensitive.js';
import type { PlanContext } from '../../../src/kinds/common/kind.js';
import { normalizeApp } from '../../../src/kinds/container-app/convert.js';
import { NO_APP_SECRETS } from '../../../src/kinds/container-app/env.js';
import { planApp } from '../../../src/kinds/container-app/plan.js';
import type { ContainerAppSpec } from '../../../src/kinds/container-app/spec.js';
import { ephemeralInstallKey } from '../../../src/state/install-key.js';
import { desired } from '../../helpers/desired.js';

const ctx: PlanContext = { remembered: () => undefined, keyedDigest: (data) => `keyed:${data}` };

function liveApp(): AppWire {
  return {
    id: 'app1',
    name: 'storefront',
    status: 'active',
    runtimeType: 'Shared',
    autoScaling: { min: 1, max: 3 },
    regionSettings: { allowedRegionIds: ['DE', 'NY'], requiredRegionIds: ['DE'], maxAllowedRegions: 2 },
    containerTemplates: [
      {
        id: 'c-web',
        name: 'web',
        image: 'registry/acme/web:1.4.1',
        imageName: 'web',
        imageNamespace: 'acme',
        imageTag: '1.4.1',
        imageRegistryId: '123',
        imageDigest: 'sha256:aaaa',
        imagePullPolicy: 'IfNotPresent',
        environmentVariables: [
          { name: 'LOG_LEVEL', value: 'info' },
          { name: 'REGION', value: 'eu' },
        ],
        endpoints: [
          {
            id: 'e1',
            displayName: 'web-cdn',
            type: 'CDN',
            isSslEnabled: true,
            pullZoneId: '555',
            publicHost: 'x.b-cdn.net',
            portMappings: [{ containerPort: 8080, exposedPort: 80, protocols: ['Tcp'] }],
          },
        ],
        volumeMounts: [{ name: 'data', mountPath: '/data' }],
      },
      {
        id: 'c-worker',
        name: 'worker',
        imageName: 'worker',
        imageNamespace: 'acme',
        imageTag: '2.0',
        imageRegistryId: '123',
        environmentVariables: [],
        endpoints: [],
        volumeMounts: [],
      },
    ],
    volumes: [{ name: 'data', size: 10 }],
  };
}

/** A request body as the API client serialises it: SensitiveValues as their values. */
function onTheWire(body: unknown): unknown {
  return JSON.parse(stringifyRevealing(body));
}

function plan(spec: Record<string, unknown>, live: AppWire = liveApp(), context: PlanContext = ctx) {
  return planApp(
    desired<ContainerAppSpec>('ContainerApp', 'storefront', { appId: 'app1', ...spec }),
    { app: normalizeApp(live), secrets: NO_APP_SECRETS },
    context,
  );
}

describe('ContainerApp plan', () => {
  it('is a noop when declared fields match, whatever the enum casing', () => {
    const result = plan({
      name: 'storefront',
      runtimeType: 'shared',
      autoScaling: { min: 1, max: 3 },
      regionSettings: { allowedRegionIds: ['NY', 'DE'], requiredRegionIds: ['DE'], maxAllowedRegions: 2 },
      containerTemplates: [
        {
          name: 'web',
          imageTag: '1.4.1',
          imagePullPolicy: 'ifNotPresent',
          endpoints: [
            {
              displayName: 'web-cdn',
              cdn: { isSslEnabled: true, portMappings: [{ containerPort: 8080, protocols: ['tcp'] }] },
            },
          ],
        },
        { name: 'worker' },
      ],
      volumes: [{ name: 'data', size: 10 }],
    });

    expect(result).toEqual({ diffs: [], requests: [] });
  });

  it('sends only the top-level fields that differ', () => {
    const result = plan({ name: 'storefront-2', autoScaling: { min: 1, max: 5 } });

    expect(result.diffs).toEqual([
      { path: 'name', live: 'storefront', desired: 'storefront-2' },
      { path: 'autoScaling.max', live: 3, desired: 5 },
    ]);
    expect(result.requests).toEqual([
      {
        operation: 'patchApp',
        method: 'PATCH',
        path: '/mc/apps/app1',
        body: { name: 'storefront-2', autoScaling: { min: 1, max: 5 } },
      },
    ]);
  });

  it('sends containerTemplates whole: live ids, live values for left-out fields, new items without id', () => {
    const result = plan({
      allowDeletions: false,
      containerTemplates: [
        { name: 'web', imageTag: '1.4.2' },
        { name: 'worker' },
        { name: 'cron', imageRegistryId: '123', imageNamespace: 'acme', imageName: 'cron', imageTag: '1.0' },
      ],
    });

    expect(result.error).toBeUndefined();
    expect(result.diffs).toEqual([
      { path: 'containerTemplates[web].imageTag', live: '1.4.1', desired: '1.4.2' },
      { path: 'containerTemplates[cron]', live: undefined, desired: 'new container acme/cron:1.0' },
    ]);
    expect(onTheWire(result.requests[0]?.body)).toEqual({
      containerTemplates: [
        {
          id: 'c-web',
          name: 'web',
          imageName: 'web',
          imageNamespace: 'acme',
          imageTag: '1.4.2',
          imageRegistryId: '123',
          imagePullPolicy: 'ifNotPresent',
          environmentVariables: [
            { name: 'LOG_LEVEL', value: 'info' },
            { name: 'REGION', value: 'eu' },
          ],
          endpoints: [
            {
              displayName: 'web-cdn',
              cdn: {
                isSslEnabled: true,
                pullZoneId: 555,
                portMappings: [{ containerPort: 8080, exposedPort: 80, protocols: ['tcp'] }],
              },
            },
          ],
          volumeMounts: [{ name: 'data', mountPath: '/data' }],
        },
        {
          id: 'c-worker',
          name: 'worker',
          imageName: 'worker',
          imageNamespace: 'acme',
          imageTag: '2.0',
          imageRegistryId: '123',
          environmentVariables: [],
          endpoints: [],
          volumeMounts: [],
        },
        { name: 'cron', imageName: 'cron', imageNamespace: 'acme', imageTag: '1.0', imageRegistryId: '123' },
      ],
    });
  });

  it('refuses to delete a live container the YAML no longer lists unless allowDeletions', () => {
    const refused = plan({ containerTemplates: [{ name: 'web' }] });
    const allowed = plan({ containerTemplates: [{ name: 'web' }], allowDeletions: true });

    expect(refused.requests).toEqual([]);
    expect(refused.diffs).toEqual([
      {
        path: 'containerTemplates[worker]',
        live: 'container c-worker acme/worker:2.0',
        desired: undefined,
        destructive: true,
      },
    ]);
    expect(refused.error).toEqual({
      code: 'PLAN_UNSAFE',
      message: 'would delete containerTemplates[worker]; set allowDeletions: true to allow it',
    });
    expect(allowed.error).toBeUndefined();
    expect(
      (allowed.requests[0]!.body as { containerTemplates: { id?: string }[] }).containerTemplates.map(
        (c) => c.id,
      ),
    ).toEqual(['c-web']);
  });

  it('matches endpoints by displayName: a rename is a deletion plus an addition', () => {
    const result = plan({
      containerTemplates: [
        {
          name: 'web',
          endpoints: [{ displayName: 'web-edge', cdn: { portMappings: [{ containerPort: 8080 }] } }],
        },
        { name: 'worker' },
      ],
    });

    expect(result.diffs.map((d) => [d.path, d.destructive ?? false])).toEqual([
      ['containerTemplates[web].endpoints[web-edge]', false],
      ['containerTemplates[web].endpoints[web-cdn]', true],
    ]);
    expect(result.error?.code).toBe('PLAN_UNSAFE');
  });

  it('diffs environment variables by name and keeps live values the YAML leaves out', () => {
    const result = plan({
      containerTemplates: [
        {
          name: 'web',
          environmentVariables: [{ name: 'LOG_LEVEL', value: 'debug' }, { name: 'REGION' }, { name: 'NEW' }],
        },
        { name: 'worker' },
      ],
    });

    expect(result.diffs).toEqual([
      // No state says LOG_LEVEL was applied as a plain literal: its live value is not shown.
      {
        path: 'containerTemplates[web].environmentVariables[LOG_LEVEL]',
        live: '(sensitive)',
        desired: 'debug',
      },
      { path: 'containerTemplates[web].environmentVariables[NEW]', live: undefined, desired: '' },
    ]);
    const body = onTheWire(result.requests[0]?.body) as {
      containerTemplates: { environmentVariables: unknown }[];
    };
    expect(body.containerTemplates[0]?.environmentVariables).toEqual([
      { name: 'LOG_LEVEL', value: 'debug' },
      { name: 'REGION', value: 'eu' },
      { name: 'NEW', value: '' },
    ]);
  });

  it('does not print values of secret-looking environment variables, even in the request, but sends them', () => {
    const result = plan({
      containerTemplates: [
        {
          name: 'web',
          environmentVariables: [
            { name: 'DB_PASSWORD', value: 'hunter2' },
            { name: 'LOG_LEVEL', value: 'info' },
            { name: 'REGION', value: 'eu' },
          ],
        },
        { name: 'worker' },
      ],
    });

    expect(result.diffs).toEqual([
      {
        path: 'containerTemplates[web].environmentVariables[DB_PASSWORD]',
        live: undefined,
        desired: '(sensitive)',
      },
    ]);
    expect(JSON.stringify(result.diffs)).not.toContain('hunter2');
    expect(JSON.stringify(result.requests)).not.toContain('hunter2');
    expect(stringifyRevealing(result.requests)).toContain('hunter2');
  });

  it('does not print secret-looking values that change or go either', () => {
    const live = liveApp();
    const web = live.containerTemplates?.[0];
    if (web === undefined) throw new Error('fixture has no web container');
    web.environmentVariables = [
      { name: 'API_TOKEN', value: 'old-token' },
      { name: 'auth_header', value: 'Bearer old' },
    ];

    const result = plan(
      {
        containerTemplates: [
          { name: 'web', environmentVariables: [{ name: 'API_TOKEN', value: 'new-token' }] },
          { name: 'worker' },
        ],
      },
      live,
    );

    expect(result.diffs).toEqual([
      {
        path: 'containerTemplates[web].environmentVariables[API_TOKEN]',
        live: '(sensitive)',
        desired: '(sensitive)',
      },
      {
        path: 'containerTemplates[web].environmentVariables[auth_header]',
        live: '(sensitive)',
        desired: undefined,
      },
    ]);
    expect(JSON.stringify(result.diffs)).not.toMatch(/old-token|new-token|Bearer/);
  });

  it('hides a sensitive literal and the live value of a name-only sensitive variable, everywhere but on the wire', () => {
    const result = plan({
      containerTemplates: [
        {
          name: 'web',
          environmentVariables: [
            { name: 'REGION', sensitive: true },
            { name: 'LEGACY', value: 'literal-value', sensitive: true },
            { name: 'LOG_LEVEL', value: 'debug' },
          ],
        },
        { name: 'worker' },
      ],
    });

    expect(result.diffs).toEqual([
      {
        path: 'containerTemplates[web].environmentVariables[LEGACY]',
        live: undefined,
        desired: '(sensitive)',
      },
      {
        path: 'containerTemplates[web].environmentVariables[LOG_LEVEL]',
        live: '(sensitive)',
        desired: 'debug',
      },
    ]);
    const printed = JSON.parse(JSON.stringify(result.requests[0]?.body));
    const wire = onTheWire(result.requests[0]?.body) as typeof printed;
    expect(printed.containerTemplates[0].environmentVariables).toEqual([
      { name: 'REGION', value: '(sensitive)' },
      { name: 'LEGACY', value: '(sensitive)' },
      { name: 'LOG_LEVEL', value: 'debug' },
    ]);
    expect(wire.containerTemplates[0].environmentVariables).toEqual([
      { name: 'REGION', value: 'eu' },
      { name: 'LEGACY', value: 'literal-value' },
      { name: 'LOG_LEVEL', value: 'debug' },
    ]);
  });

  it('remembers per variable whether it was applied as a plain literal or as a secret, never the value', () => {
    const result = plan({
      regionSettings: { nodeSelectors: { tier: 'a' } },
      containerTemplates: [
        {
          name: 'web',
          environmentVariables: [
            { name: 'LOG_LEVEL', value: 'info' },
            { name: 'REGION', value: 'eu', sensitive: true },
            { name: 'DB_PASSWORD', value: 'hunter2' },
            { name: 'KEPT' },
          ],
        },
        { name: 'worker' },
      ],
    });

    expect(result.remember).toEqual({
      nodeSelectors: { tier: 'a' },
      environment: {
        web: { LOG_LEVEL: 'literal', REGION: 'sensitive', DB_PASSWORD: 'sensitive', KEPT: 'sensitive' },
      },
      appId: 'app1',
    });
    expect(JSON.stringify(result.remember)).not.toMatch(/hunter2|"eu"/);
  });

  it('prints a live value only when the last apply sent it as a plain literal', () => {
    const live = liveApp();
    const web = live.containerTemplates?.[0];
    if (web === undefined) throw new Error('fixture has no web container');
    web.environmentVariables = [
      { name: 'LOG_LEVEL', value: 'info' },
      { name: 'DATABASE_URL', value: 'postgres://app:pw@db/prod' },
    ];
    const applied: PlanContext = {
      ...ctx,
      remembered: () => ({ environment: { web: { LOG_LEVEL: 'literal', DATABASE_URL: 'sensitive' } } }),
    };
    const path = 'containerTemplates[web].environmentVariables';
    const cases: [string, Record<string, unknown>[], unknown[]][] = [
      [
        'replaced by a literal',
        [
          { name: 'LOG_LEVEL', value: 'debug' },
          { name: 'DATABASE_URL', value: 'x' },
        ],
        [
          { path: `${path}[LOG_LEVEL]`, live: 'info', desired: 'debug' },
          { path: `${path}[DATABASE_URL]`, live: '(sensitive)', desired: 'x' },
        ],
      ],
      [
        'deleted',
        [{ name: 'LOG_LEVEL', value: 'info' }],
        [{ path: `${path}[DATABASE_URL]`, live: '(sensitive)', desired: undefined }],
      ],
      [
        'renamed',
        [
          { name: 'LOG_LEVEL', value: 'info' },
          { name: 'DB_URL', valueFrom: { env: 'EDGESYNC_SECRET_DB' } },
        ],
        [
          { path: `${path}[DB_URL]`, live: undefined, desired: '(sensitive)' },
          { path: `${path}[DATABASE_URL]`, live: '(sensitive)', desired: undefined },
        ],
      ],
    ];
    for (const [, variables, diffs] of cases) {
      const secrets = { values: new Map([['env:EDGESYNC_SECRET_DB', 'v']]), problems: [] };
      const result = planApp(
        desired<ContainerAppSpec>('ContainerApp', 'storefront', {
          appId: 'app1',
          containerTemplates: [{ name: 'web', environmentVariables: variables }, { name: 'worker' }],
        }),
        { app: normalizeApp(live), secrets },
        applied,
      );
      expect(result.diffs).toEqual(diffs);
      expect(JSON.stringify(result.diffs)).not.toContain('postgres://');
    }
  });

  it('keys the digest of an app with secrets: stable for the same values, new for a rotated one', () => {
    const key = ephemeralInstallKey();
    const context: PlanContext = { ...ctx, keyedDigest: key.digest };
    const resource = desired<ContainerAppSpec>('ContainerApp', 'storefront', {
      appId: 'app1',
      containerTemplates: [
        { name: 'web', environmentVariables: [{ name: 'DB', valueFrom: { env: 'EDGESYNC_SECRET_DB' } }] },
        { name: 'worker' },
      ],
    });
    const read = (value: string) => ({
      app: normalizeApp(liveApp()),
      secrets: { values: new Map([['env:EDGESYNC_SECRET_DB', value]]), problems: [] },
    });

    const first = planApp(resource, read('db-secret-one'), context);
    const same = planApp(resource, read('db-secret-one'), context);
    const rotated = planApp(resource, read('db-secret-two'), context);
    const plain = plan({ containerTemplates: [{ name: 'web' }, { name: 'worker' }] });

    expect(first.digest).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(same.digest).toBe(first.digest);
    expect(rotated.digest).not.toBe(first.digest);
    expect(first.digest).not.toContain(sha256Hex('db-secret-one'));
    expect(plain.digest).toBeUndefined();
  });

  it('plans nothing for an app whose secret could not be read', () => {
    const resource = desired<ContainerAppSpec>('ContainerApp', 'storefront', {
      appId: 'app1',
      name: 'renamed',
      containerTemplates: [
        { name: 'web', environmentVariables: [{ name: 'DB', valueFrom: { file: 'db' } }] },
      ],
    });
    const problems = ['environment variable DB of container web: secret file "db" is empty'];

    const result = planApp(
      resource,
      { app: normalizeApp(liveApp()), secrets: { values: new Map(), problems } },
      ctx,
    );

    expect(result).toEqual({
      diffs: [],
      requests: [],
      error: { code: 'SECRET_UNAVAILABLE', message: problems[0] },
    });
  });

  it('sends volumes whole when one changes and refuses removing one without allowDeletions', () => {
    const grown = plan({ volumes: [{ name: 'data', size: 20 }] });
    const removed = plan({ volumes: [] });

    expect(grown.requests[0]?.body).toEqual({ volumes: [{ name: 'data', size: 20 }] });
    expect(removed.error?.message).toBe('would delete volumes[data]; set allowDeletions: true to allow it');
  });

  it('resolves @optimal with the region E7 returned, and fails the app when E7 failed', () => {
    const spec = { regionSettings: { allowedRegionIds: ['@optimal', 'NY'] } };
    const resolved = plan(spec, liveApp(), { ...ctx, optimalRegion: { id: 'SG' } });
    const same = plan(spec, liveApp(), { ...ctx, optimalRegion: { id: 'DE' } });
    const failed = plan(spec, liveApp(), {
      ...ctx,
      optimalRegion: { error: { code: 'API_UNAVAILABLE', message: 'E7 failed: 503' } },
    });

    expect(resolved.diffs).toEqual([
      { path: 'regionSettings.allowedRegionIds', live: ['DE', 'NY'], desired: ['SG', 'NY'] },
    ]);
    expect(resolved.requests[0]?.body).toEqual({
      regionSettings: { allowedRegionIds: ['SG', 'NY'], requiredRegionIds: ['DE'], maxAllowedRegions: 2 },
    });
    expect(same).toEqual({ diffs: [], requests: [] });
    expect(failed).toEqual({
      diffs: [],
      requests: [],
      error: { code: 'API_UNAVAILABLE', message: 'cannot resolve @optimal: E7 failed: 503' },
    });
  });

  it('diffs write-only nodeSelectors against what the last apply remembered', () => {
    const spec = { regionSettings: { nodeSelectors: { disk: 'ssd' } } };
    const first = plan(spec);
    const again = plan(spec, liveApp(), { ...ctx, remembered: () => ({ nodeSelectors: { disk: 'ssd' } }) });

    expect(first.diffs).toEqual([
      { path: 'regionSettings.nodeSelectors', live: '(not readable from the API)', desired: { disk: 'ssd' } },
    ]);
    expect(first.remember).toEqual({ nodeSelectors: { disk: 'ssd' } });
    expect(again.diffs).toEqual([]);
    expect(again.requests).toEqual([]);
  });

  it('refuses a new container that lacks its image fields', () => {
    const result = plan({
      containerTemplates: [{ name: 'web' }, { name: 'worker' }, { name: 'cron', imageName: 'cron' }],
    });

    expect(result.error).toEqual({
      code: 'PLAN_UNSAFE',
      message: 'new container cron needs imageRegistryId, imageNamespace, imageTag',
    });
  });

  it('switches a probe handler without sending both', () => {
    const live = liveApp();
    live.containerTemplates[0]!.probes = {
      liveness: { periodSeconds: 15, tcpSocket: { request: { portNumber: 8080 } } },
    };

    const result = plan(
      {
        containerTemplates: [
          {
            name: 'web',
            probes: { liveness: { httpGet: { request: { path: '/healthz', portNumber: 8080 } } } },
          },
          { name: 'worker' },
        ],
      },
      live,
    );

    expect(result.diffs.map((d) => d.path)).toEqual([
      'containerTemplates[web].probes.liveness.httpGet.request.path',
      'containerTemplates[web].probes.liveness.httpGet.request.portNumber',
      'containerTemplates[web].probes.liveness.tcpSocket',
    ]);
    const body = result.requests[0]?.body as { containerTemplates: { probes?: unknown }[] };
    expect(body.containerTemplates[0]?.probes).toEqual({
      liveness: { periodSeconds: 15, httpGet: { request: { path: '/healthz', portNumber: 8080 } } },
    });
  });
});
