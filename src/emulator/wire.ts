/**
 * The shapes the emulator stores and serves, spelled as the real API spells them on the wire
 * (camelCase under /shield and /mc, PascalCase under /dnszone).
 *
 * The store keeps objects in exactly these shapes so that a GET reply is the stored object
 * serialised as it is: no per-request mapping, and a test that edits a live object sees the
 * edit in the next reply. These are written independently of `src/api/wire`, on purpose: the
 * client and the emulator must not share a wrong assumption.
 */

/** Shield `GenericRequestResponse`: the `error` member of every Shield envelope. */
interface GenericRequestResponse {
  statusCode: number;
  success: boolean;
  message: string | null;
  errorKey: string | null;
}

/** A `variableTypes` map: one of the seed's 27 keys to a string. */
export type VariableTypes = Record<string, string>;

/** Shield `WafChainedRuleConditionItem`. */
export interface ChainedRuleCondition {
  variableTypes: VariableTypes | null;
  operatorType: number;
  value: string | null;
  isNegated: boolean | null;
  isRegexVariable: boolean | null;
}

/** Shield `CreateCustomWafRuleModel`, the seed's RuleConfiguration. */
export interface RuleConfiguration {
  actionType: number;
  variableTypes: VariableTypes | null;
  operatorType: number;
  severityType: number;
  transformationTypes: number[] | null;
  value: string | null;
  isNegated: boolean | null;
  isRegexVariable: boolean | null;
  chainedRuleConditions: ChainedRuleCondition[] | null;
}

/** Shield `CustomWafRule` (E1 reply, custom-rule GET and listing items). */
export interface CustomWafRule {
  id: number;
  shieldZoneId: number;
  userId: string | null;
  ruleName: string | null;
  ruleDescription: string | null;
  ruleJson: string | null;
  ruleConfiguration: RuleConfiguration;
  errorResponse: GenericRequestResponse;
}

/** Shield `CustomAccessList`, the `data` of E2 and of the access-list GET (with content). */
export interface CustomAccessList {
  id: number;
  name: string | null;
  description: string | null;
  type: number;
  content: string | null;
  checksum: string | null;
  entryCount: number | null;
  lastModified: string | null;
}

/** Shield `AccessListDetails`, one row of the access-lists listing. */
export interface AccessListDetails {
  listId: number;
  configurationId: number;
  name: string | null;
  description: string | null;
  isEnabled: boolean;
  type: number;
  category: number;
  action: number;
  requiredPlan: number;
  entryCount: number;
  updateFrequency?: string | null;
  lastUpdated: string;
}

/** Shield `BotCategorizationDetails`. */
interface BotDetails {
  botId: number;
  userAgentMatch: string | null;
  category: number;
  action: number;
  isVerifiable: boolean;
}

/** Shield `BotCategorizationGroup`, one category of the E6 reply. */
export interface BotCategorizationGroup {
  category: number;
  categoryAction: number;
  bots: BotDetails[];
}

/** Shield `WafRuleModel`. */
interface WafRuleModel {
  ruleId: string;
  description: string;
}

/** Shield `WafRuleGroupModel`. */
interface WafRuleGroupModel {
  id: number;
  name: string;
  code: string;
  fileName: string;
  mainGroup: string;
  ruleset: string;
  description: string;
  rules: WafRuleModel[];
}

/** Shield `WafRuleMainGroupModel` (the seed's "rule-set object"). */
export interface WafRuleMainGroupModel {
  name: string;
  ruleset: string;
  ruleGroups: WafRuleGroupModel[];
}

/** Shield `WafRulesByPlanModel`, one plan of the E8 reply. */
export interface WafRulesByPlanModel {
  planValue: number;
  planName: string;
  rules: WafRuleMainGroupModel[];
}

/** Shield `ApiGuardianEndpointActivity`, one value of `overviewPastTwentyEightDays`. */
export interface ApiGuardianActivity {
  blockedRequests: number;
  loggedRequests: number;
  rateLimited: number;
  requestsInspected: number;
  failedRequestValidation: number;
  failedAuthenticationEnforcement: number;
}

/** Shield `ApiGuardianMetrics`, the `data` of E9. */
export interface ApiGuardianMetrics {
  totalBlockedRequests: number;
  totalLoggedRequests: number;
  totalRateLimited: number;
  totalRequestsInspected: number;
  totalFailedRequestValidation: number;
  totalFailedAuthenticationEnforcement: number;
  overviewPastTwentyEightDays: Record<string, ApiGuardianActivity> | null;
}

/** MC `Region` (E7). */
export interface Region {
  id: string;
  name: string;
  group: string;
  hasAnycastSupport: boolean;
  hasCapacity: boolean;
}

/** MC `ContainerEntryPoint`. */
interface EntryPoint {
  command: string | null;
  commandArray: string[] | null;
  arguments: string | null;
  argumentsArray: string[] | null;
  workingDirectory: string | null;
}

/** MC `ContainerProbe`; the nested objects are kept as sent (already validated). */
export interface Probe {
  initialDelaySeconds: number | null;
  periodSeconds: number | null;
  timeoutSeconds: number | null;
  failureThreshold: number | null;
  successThreshold: number | null;
  httpGet?: { request?: { path?: string; portNumber?: number }; response?: { expectedStatusCode?: string } };
  tcpSocket?: { request?: { portNumber?: number } };
  grpc?: { request?: { portNumber?: number; serviceName?: string | null } };
}

/** MC `ContainerProbes`. */
export interface Probes {
  startup?: Probe;
  readiness?: Probe;
  liveness?: Probe;
}

/** MC `EndpointPortMapping` (GET shape: every field present). */
export interface EndpointPortMapping {
  containerPort: number;
  exposedPort: number;
  protocols: string[];
}

/** MC `EndpointStickySession`. */
interface EndpointStickySession {
  enabled: boolean;
  sessionHeaders: string[];
  cookieName: string;
}

/** MC `ContainerEndpoint` (GET shape). `pullZoneId` is a string here, an integer in requests. */
export interface ContainerEndpoint {
  id: string;
  displayName: string;
  publicHost: string;
  type: 'cdn' | 'anycast' | 'publicIp';
  isSslEnabled: boolean;
  pullZoneId: string;
  portMappings: EndpointPortMapping[];
  stickySessions?: EndpointStickySession;
  internalIpAddresses: { address: string; region: string }[] | null;
  publicIpAddresses: { address: string; region: string }[] | null;
}

/** MC `ContainerTemplate` (GET shape). */
export interface ContainerTemplate {
  id: string;
  name: string;
  packageId: string;
  image: string;
  imageName: string;
  imageNamespace: string;
  imageTag: string;
  imageRegistryId: string;
  imageDigest: string;
  imagePullPolicy: string;
  entryPoint: EntryPoint;
  probes: Probes;
  environmentVariables: { name: string; value?: string }[];
  endpoints: ContainerEndpoint[];
  volumeMounts: { name: string; mountPath: string }[];
}

/** MC `RegionSettings` (GET shape: no nodeSelectors, with provisioningType). */
export interface RegionSettings {
  allowedRegionIds: string[];
  requiredRegionIds: string[];
  maxAllowedRegions: number | null;
  provisioningType: 'static' | 'dynamic';
}

/** MC `ContainerInstance`. */
interface ContainerInstance {
  id: string;
  templateId: string;
  podId: string;
  nodeIpAddress: string;
}

/** MC `Application` (GET shape). */
export interface Application {
  id: string;
  name: string;
  displayEndpoint?: { id: string; address: string; type: 'cdn' | 'anycast' | 'publicIp' };
  status: 'unknown' | 'active' | 'progressing' | 'inactive' | 'failing' | 'suspended';
  runtimeType: string;
  regionSettings: RegionSettings;
  containerTemplates: ContainerTemplate[];
  containerInstances: ContainerInstance[];
  volumes: { name: string; size: number }[];
  autoScaling: { min: number; max: number };
  networkSettings?: { ingressBandwidthLimit: number; egressBandwidthLimit: number };
}

/** Core `DnsZoneModel` (PascalCase). Records are not emulated and always come back empty. */
export interface DnsZoneModel {
  Id: number;
  Domain: string;
  Records: unknown[];
  DateModified: string;
  DateCreated: string;
  NameserversDetected: boolean;
  CustomNameserversEnabled: boolean;
  Nameserver1: string;
  Nameserver2: string;
  SoaEmail: string;
  NameserversNextCheck: string;
  LoggingEnabled: boolean;
  LoggingIPAnonymizationEnabled: boolean;
  LogAnonymizationType: number;
  DnsSecEnabled: boolean;
  CertificateKeyType: number;
}

/** Core `HostnameModel`: one hostname of a pull zone. */
interface HostnameModel {
  Id: number;
  Value: string;
  ForceSSL: boolean;
  IsSystemHostname: boolean;
  IsManagedHostname: boolean;
  HasCertificate: boolean;
}

/** Core `PullZoneModel`, the few of its 168 fields the emulator keeps (none is required). */
export interface PullZoneModel {
  Id: number;
  Name: string;
  OriginUrl: string;
  Enabled: boolean;
  Suspended: boolean;
  Hostnames: HostnameModel[];
}

/** Core `DnsSecDsRecordModel`, the seed's DNSSEC status object (E5 and the enable POST). */
export interface DnsSecDsRecordModel {
  Enabled: boolean;
  DsRecord: string | null;
  Digest: string | null;
  DigestType: string | null;
  Algorithm: number;
  PublicKey: string | null;
  KeyTag: number;
  Flags: number;
  DsConfigured: boolean;
}
