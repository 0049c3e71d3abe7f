/**
 * A rich live account for the export round trip: chained, negated and regex rules, names that
 * collide or slug to nothing, lists with a trailing newline, blank lines, CRLF, IPv6 and no
 * entries, ASN numbers, enabled and disabled managed lists, an app with three containers (CDN with sticky
 * sessions, anycast, every probe handler, env, entry points, volumes), a pinned image, and
 * DNS zones with DNSSEC on and off.
 */
import type { EmulatorSeed } from '../../../src/emulator/index.js';

/** A digest the pinned container's image reference ends with. */
export const PINNED_DIGEST = `sha256:${'ab12'.repeat(16)}`;

export const EXPORT_SEED: EmulatorSeed = {
  shieldZones: [
    {
      id: 42,
      planType: 'Business',
      customRules: [
        {
          id: 1001,
          ruleName: 'Block SQLi on login',
          ruleDescription: 'SQL injection attempts on POST /login',
          ruleConfiguration: {
            actionType: 'Block',
            operatorType: 'DETECTSQLI',
            severityType: 'CRITICAL',
            variableTypes: { ARGS: '', REQUEST_BODY: '' },
            transformationTypes: ['URLDECODE', 'LOWERCASE'],
            value: '',
            isNegated: false,
            chainedRuleConditions: [
              { variableTypes: { REQUEST_URI: '' }, operatorType: 'BEGINSWITH', value: '/login' },
              { variableTypes: { REQUEST_METHOD: '' }, operatorType: 'STREQ', value: 'POST' },
            ],
          },
        },
        {
          id: 1002,
          ruleName: 'Admin only from the office',
          ruleConfiguration: {
            actionType: 'Challenge',
            operatorType: 'RX',
            severityType: 'WARNING',
            variableTypes: { REQUEST_HEADERS: 'X-Forwarded-For' },
            transformationTypes: ['COMPRESSWHITESPACE'],
            value: '^(203\\.0\\.113\\.|198\\.51\\.100\\.7$)',
            isNegated: true,
            isRegexVariable: true,
            chainedRuleConditions: [
              {
                variableTypes: { REQUEST_COOKIES: 'session' },
                operatorType: 'CONTAINS',
                value: 'admin: yes # not a comment',
                isNegated: true,
                isRegexVariable: true,
              },
            ],
          },
        },
        {
          id: 1003,
          ruleName: 'Block SQLi on login',
          ruleConfiguration: {
            actionType: 'Log',
            operatorType: 'DETECTXSS',
            variableTypes: { QUERY_STRING: '' },
          },
        },
        {
          id: 1004,
          ruleName: '***',
          ruleConfiguration: {
            actionType: 'Bypass',
            operatorType: 'GE',
            variableTypes: { ARGS_COMBINED_SIZE: '' },
            value: '0',
          },
        },
        {
          id: 1005,
          ruleName: 'No variables',
          ruleConfiguration: { actionType: 'Log', operatorType: 'EQ', value: 'x' },
        },
        {
          id: 1006,
          ruleName: 'Règle été',
          ruleConfiguration: {
            actionType: 'Allow',
            operatorType: 'STREQ',
            variableTypes: { GEO: '' },
            value: 'FR',
          },
        },
      ],
      customAccessLists: [
        {
          id: 9001,
          configurationId: 19001,
          name: 'Office IPs',
          type: 'CIDR',
          content: '203.0.113.0/24\n198.51.100.7\n',
          isEnabled: true,
          action: 'Allow',
        },
        {
          id: 9002,
          configurationId: 19002,
          name: 'Countries',
          type: 'Country',
          entries: ['KP', 'IR'],
          isEnabled: false,
          action: 'Challenge',
        },
        {
          id: 9003,
          configurationId: 19003,
          name: 'Scanners',
          type: 'IP',
          content: '  10.0.0.1 \n\n10.0.0.2\r\n',
          action: 'Block',
        },
        { id: 9004, configurationId: 19004, name: 'Empty for now', type: 'IP', content: '', action: 'Log' },
        {
          id: 9005,
          configurationId: 19005,
          name: 'IPv6 partners',
          type: 'CIDR',
          content: '2001:db8::/32\n2001:db8:1::1',
          action: 'Bypass',
        },
        // ASN entries look like numbers to YAML: they must come out quoted.
        {
          id: 9006,
          configurationId: 19006,
          name: 'Cloud ASNs',
          type: 'ASN',
          content: '13335\n15169\n',
          action: 'Challenge',
        },
      ],
      managedAccessLists: [
        {
          id: 5,
          configurationId: 10005,
          name: 'VPN Providers',
          category: 'VPNs',
          isEnabled: true,
          action: 'Block',
        },
        { id: 6, configurationId: 10006, name: 'Tor exit nodes', category: 'TorExitNodes', isEnabled: false },
      ],
    },
    { id: 43, planType: 'Basic' },
  ],
  apps: [
    {
      id: 'Go1e5FdmzoQdr3O',
      name: 'storefront',
      runtimeType: 'reserved',
      autoScaling: { min: 2, max: 5 },
      regionSettings: {
        allowedRegionIds: ['DE', 'NY', 'SG'],
        requiredRegionIds: ['DE'],
        maxAllowedRegions: 2,
      },
      containerTemplates: [
        {
          name: 'web',
          imageRegistryId: '2714',
          imageNamespace: 'acme',
          imageName: 'storefront-web',
          imageTag: '1.4',
          environmentVariables: [
            { name: 'LOG_LEVEL', value: 'info' },
            { name: 'EMPTY', value: '' },
          ],
          endpoints: [
            {
              displayName: 'web-cdn',
              cdn: {
                isSslEnabled: true,
                pullZoneId: 777,
                stickySessions: { enabled: true, sessionHeaders: ['X-Session-Id', 'X-Cart'] },
                portMappings: [{ containerPort: 8080, protocols: ['tcp'] }],
              },
            },
          ],
          probes: {
            startup: {
              initialDelaySeconds: 5,
              failureThreshold: 30,
              httpGet: { request: { path: '/healthz', portNumber: 8080 } },
            },
            readiness: {
              periodSeconds: 15,
              httpGet: {
                request: { path: '/ready', portNumber: 8080 },
                response: { expectedStatusCode: 'noContent' },
              },
            },
            liveness: { timeoutSeconds: 3, tcpSocket: { request: { portNumber: 8080 } } },
          },
          volumeMounts: [{ name: 'data', mountPath: '/var/lib/web' }],
        },
        {
          name: 'api',
          imageRegistryId: '2714',
          imageNamespace: 'acme',
          imageName: 'storefront-api',
          imageTag: '2.11.0',
          imagePullPolicy: 'always',
          entryPoint: {
            command: '/app/api',
            commandArray: ['/app/api', 'serve'],
            argumentsArray: ['--port', '9000'],
            workingDirectory: '/app',
          },
          endpoints: [
            {
              displayName: 'api-anycast',
              anycast: {
                type: 'iPv4',
                portMappings: [{ containerPort: 9000, exposedPort: 443, protocols: ['tcp', 'udp'] }],
              },
            },
          ],
          probes: { readiness: { grpc: { request: { portNumber: 9001, serviceName: 'health' } } } },
          volumeMounts: [
            { name: 'data', mountPath: '/data' },
            { name: 'cache', mountPath: '/cache' },
          ],
        },
        {
          name: 'worker',
          imageRegistryId: '2714',
          imageNamespace: 'acme',
          imageName: 'worker',
          imageTag: 'latest',
        },
      ],
      volumes: [
        { name: 'data', size: 10 },
        { name: 'cache', size: 1 },
      ],
    },
    {
      id: 'pinnedApp01',
      name: 'pinned',
      regionSettings: { allowedRegionIds: ['SG'], requiredRegionIds: [] },
      containerTemplates: [
        {
          name: 'pinned',
          imageRegistryId: '1',
          imageNamespace: 'acme',
          imageName: 'pinned',
          imageTag: '3.0.0',
          image: `registry.example/acme/pinned@${PINNED_DIGEST}`,
          imageDigest: PINNED_DIGEST,
        },
        {
          name: 'digest-only',
          imageRegistryId: '1',
          imageNamespace: 'acme',
          imageName: 'other',
          imageTag: '1.0.0',
          imageDigest: `sha256:${'cd34'.repeat(16)}`,
        },
      ],
    },
  ],
  dnsZones: [
    { id: 12345, domain: 'example.com', dnsSecEnabled: true },
    { id: 12346, domain: 'example.org', dnsSecEnabled: false },
  ],
};
