/**
 * The generator's documents of the account-wide kinds: container apps and DNS zones, each with
 * its matching live object.
 */
import type { AppSeed, GeneratedDocument } from './generated-repository.js';
import { pick } from './prng.js';

const REGIONS = ['DE', 'NY', 'SG', 'LA', 'UK', 'SYD', 'JP', 'BR'];

/** A 15-character app id in the API's alphabet. */
export function appId(random: () => number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let id = '';
  for (let i = 0; i < 15; i += 1) id += pick(random, [...alphabet]);
  return id;
}

/** The region E7 answers in the emulator (its default), which `@optimal` resolves to. */
const OPTIMAL_REGION_ID = 'DE';

export function containerApp(
  random: () => number,
  index: number,
  id: string,
  reportOnlyShare: number,
): GeneratedDocument {
  const name = `app-${index}`;
  const regions = [pick(random, REGIONS), pick(random, REGIONS.slice(0, 4))];
  const allowed = [...new Set(regions)];
  const reportOnly = random() < reportOnlyShare;
  const maxScale = 2 + Math.floor(random() * 5);
  const registry = `${1000 + (index % 7)}`;
  const webTag = `1.${index % 20}.${Math.floor(random() * 10)}`;
  const apiTag = `2.${index % 30}.0`;
  const volumeSize = 1 + Math.floor(random() * 50);
  const text = `---
apiVersion: edgesync/v1
kind: ContainerApp
metadata:
  name: ${name}
  drift: ${reportOnly ? 'report' : 'correct'}
spec:
  appId: ${id}
  name: storefront ${index}
  runtimeType: shared
  autoScaling: { min: 1, max: ${maxScale} }
  regionSettings:
    allowedRegionIds: [${allowed.join(', ')}, "@optimal"]
    requiredRegionIds: [${allowed[0]}]
    maxAllowedRegions: 3
  containerTemplates:
    - name: web
      imageRegistryId: "${registry}"
      imageNamespace: acme
      imageName: storefront-web
      imageTag: "${webTag}"
      imagePullPolicy: ifNotPresent
      environmentVariables:
        - { name: LOG_LEVEL, value: info }
        - { name: API_URL, value: "http://localhost:9000" }
      endpoints:
        - displayName: web-cdn-${index}
          cdn:
            isSslEnabled: true
            portMappings: [{ containerPort: 8080, protocols: [tcp] }]
      probes:
        readiness:
          periodSeconds: 10
          httpGet: { request: { path: /healthz, portNumber: 8080 } }
        liveness:
          initialDelaySeconds: 30
          tcpSocket: { request: { portNumber: 8080 } }
      volumeMounts: [{ name: cache, mountPath: /var/cache/web }]
    - name: api
      imageRegistryId: "${registry}"
      imageNamespace: acme
      imageName: storefront-api
      imageTag: "${apiTag}"
      entryPoint: { command: /app/api, argumentsArray: [--port, "9000"] }
      environmentVariables: [{ name: DATABASE_POOL, value: "20" }]
      endpoints:
        - displayName: api-anycast-${index}
          anycast: { type: iPv4, portMappings: [{ containerPort: 9000, exposedPort: 443, protocols: [tcp, udp] }] }
  volumes: [{ name: cache, size: ${volumeSize} }]
`;
  const app: AppSeed = {
    id,
    name: `storefront ${index}`,
    runtimeType: 'shared',
    autoScaling: { min: 1, max: maxScale },
    regionSettings: {
      // "@optimal" resolved the way the plan resolves it: in place, a duplicate dropped.
      allowedRegionIds: [...new Set([...allowed, OPTIMAL_REGION_ID])],
      requiredRegionIds: [allowed[0] as string],
      maxAllowedRegions: 3,
    },
    containerTemplates: [
      {
        name: 'web',
        imageRegistryId: registry,
        imageNamespace: 'acme',
        imageName: 'storefront-web',
        imageTag: webTag,
        imagePullPolicy: 'ifNotPresent',
        environmentVariables: [
          { name: 'LOG_LEVEL', value: 'info' },
          { name: 'API_URL', value: 'http://localhost:9000' },
        ],
        endpoints: [
          {
            displayName: `web-cdn-${index}`,
            cdn: { isSslEnabled: true, portMappings: [{ containerPort: 8080, protocols: ['tcp'] }] },
          },
        ],
        probes: {
          readiness: { periodSeconds: 10, httpGet: { request: { path: '/healthz', portNumber: 8080 } } },
          liveness: { initialDelaySeconds: 30, tcpSocket: { request: { portNumber: 8080 } } },
        },
        volumeMounts: [{ name: 'cache', mountPath: '/var/cache/web' }],
      },
      {
        name: 'api',
        imageRegistryId: registry,
        imageNamespace: 'acme',
        imageName: 'storefront-api',
        imageTag: apiTag,
        entryPoint: { command: '/app/api', argumentsArray: ['--port', '9000'] },
        environmentVariables: [{ name: 'DATABASE_POOL', value: '20' }],
        endpoints: [
          {
            displayName: `api-anycast-${index}`,
            anycast: {
              type: 'iPv4',
              portMappings: [{ containerPort: 9000, exposedPort: 443, protocols: ['tcp', 'udp'] }],
            },
          },
        ],
      },
    ],
    volumes: [{ name: 'cache', size: volumeSize }],
  };
  return { name, text, live: { kind: 'ContainerApp', app }, reportOnly };
}

export function dnsZone(random: () => number, id: number, index: number): GeneratedDocument {
  const name = `zone-${index}-example-com`;
  const dnssec = random() < 0.7;
  const text = `---
apiVersion: edgesync/v1
kind: DnsZone
metadata: { name: ${name} }
spec:
  id: ${id}
  dnssec: ${dnssec}
`;
  return {
    name,
    text,
    live: { kind: 'DnsZone', zone: { id, domain: `zone-${index}.example.com`, dnsSecEnabled: dnssec } },
  };
}
