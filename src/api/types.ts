/**
 * The API client's contract: one typed function per operation, plus `execute` for the plain
 * `ApiRequest` values that plans hold. Implemented in `client.ts` over one undici dispatcher.
 */
import type { Dispatcher } from 'undici';
import type { Logger } from '../log.js';
import type { ApiRequest, OperationId, WriteOperationId } from './operations.js';
import type { PaceReading } from './pacer.js';
import type { DnssecStatusWire, DnsZoneWire, PullZoneWire } from './wire/dns.js';
import type {
  AppListItemWire,
  AppOverviewWire,
  AppWire,
  OptimalRegionWire,
  PatchAppRequest,
} from './wire/mc.js';
import type {
  AccessListsWire,
  ApiGuardianMetricsWire,
  BotCategorizationWire,
  CreatedCustomWafRuleWire,
  CustomAccessListWire,
  CustomWafRuleWire,
  DeletedWire,
  ShieldZoneListItemWire,
  ShieldZoneWire,
  UpdateAccessListConfigurationRequest,
  UpdateCustomAccessListRequest,
  UpdateCustomWafRuleRequest,
  UpdatedCustomWafRuleWire,
  WafPlanSegmentationWire,
} from './wire/shield.js';

/** How the client retries 429, 5xx and connection failures (edgesync's one backoff, `src/backoff.ts`). */
export interface RetryOptions {
  /** Attempts in all, including the first. Default 6. */
  maxAttempts?: number;
  /** Base of the exponential backoff (equal jitter: retry n waits half to all of base · 2ⁿ⁻¹). Default 100 ms. */
  baseDelayMs?: number;
  /** Cap of one backoff delay. Default 10 s. */
  maxDelayMs?: number;
  /** Cap of a Retry-After delay; longer waits fail with API_RATE_LIMITED. Default 60 s. */
  maxRetryAfterMs?: number;
}

/** One finished HTTP exchange, for metrics. `status` is 0 when no reply arrived. */
export interface RequestEvent {
  operation: OperationId;
  route: string;
  method: string;
  status: number;
  attempt: number;
  durationMs: number;
  /** The reply's `Retry-After` in milliseconds, when it had one (the daemon waits at least that). */
  retryAfterMs?: number;
}

/** Settings of `createApiClient`; validated once, bad values throw USAGE. */
export interface ApiClientOptions {
  baseUrl: string;
  accessKey: string;
  /** Deadline of each attempt, from dispatch to the reply's last byte (connect included). Default 30 s. */
  timeoutMs?: number;
  retry?: RetryOptions;
  /**
   * The user's cap on requests per second across the client (`--max-rps`), spaced evenly. The
   * client also learns a pace from the API's 429s on its own (`pacer.ts`); the lower one applies.
   */
  rateLimitPerSecond?: number;
  /** Connections per origin of the pooled dispatcher. Default 16. */
  connections?: number;
  /** Tests pass their own dispatcher (short keep-alive); the client never sets a global one. */
  dispatcher?: Dispatcher;
  logger?: Logger;
  onRequest?: (event: RequestEvent) => void;
  /** Injectable randomness for jitter (tests). */
  random?: () => number;
  /**
   * Appended to the message of every 401 (as its note): what the user can check, in the
   * caller's words (the CLI names where its key comes from). Never the key itself.
   */
  unauthorizedNote?: string;
}

/** Per-call options: `signal` aborts the request and any retry wait. */
export interface CallOptions {
  signal?: AbortSignal;
  /**
   * Called before each attempt is sent, retries included; what it throws ends the call unsent.
   * The engine's fencing (docs/state.md, Fencing): a writer whose lease is lost sends nothing
   * more, also after the process was frozen past its lease with a retry's timer due.
   */
  beforeSend?: () => void;
}

/** E3's reply `data`; `action` is null when the API leaves it out (the seed's shape). */
interface AccessListConfigurationReply {
  isEnabled: boolean | null;
  action: number | null;
}

/** The validated reply of each write operation. */
export interface WriteReplies {
  updateCustomWafRule: UpdatedCustomWafRuleWire;
  updateCustomAccessList: CustomAccessListWire;
  updateAccessListConfiguration: AccessListConfigurationReply;
  createCustomWafRule: CreatedCustomWafRuleWire;
  deleteCustomWafRule: DeletedWire;
  createCustomAccessList: CustomAccessListWire;
  deleteCustomAccessList: DeletedWire;
  patchApp: { id: string };
  createApp: { id: string };
  /** 200 with no body. */
  deleteApp: Record<string, never>;
  /** 200 with no body. */
  deployApp: Record<string, never>;
  disableDnssec: DnssecStatusWire;
  enableDnssec: DnssecStatusWire;
}

/**
 * The management API as typed functions. Every method throws `ApiError` (a ReconcileError)
 * on failure; see `src/api/errors.ts` for the codes and the message format.
 */
export interface ApiClient {
  /** E1 */
  updateCustomWafRule(
    id: number,
    body: UpdateCustomWafRuleRequest,
    options?: CallOptions,
  ): Promise<UpdatedCustomWafRuleWire>;
  /** E2 */
  updateCustomAccessList(
    shieldZoneId: number,
    listId: number,
    body: UpdateCustomAccessListRequest,
    options?: CallOptions,
  ): Promise<CustomAccessListWire>;
  /** E3 (path id = configuration id) */
  updateAccessListConfiguration(
    shieldZoneId: number,
    configurationId: number,
    body: UpdateAccessListConfigurationRequest,
    options?: CallOptions,
  ): Promise<AccessListConfigurationReply>;
  /** E4 */
  patchApp(appId: string, body: PatchAppRequest, options?: CallOptions): Promise<{ id: string }>;
  /** E5 */
  disableDnssec(zoneId: number, options?: CallOptions): Promise<DnssecStatusWire>;
  /** E6 */
  getBotCategorization(shieldZoneId: number, options?: CallOptions): Promise<BotCategorizationWire>;
  /** E7 */
  getOptimalRegion(options?: CallOptions): Promise<OptimalRegionWire>;
  /** E8 */
  getWafPlanSegmentation(options?: CallOptions): Promise<WafPlanSegmentationWire>;
  /** E9 */
  getApiGuardianMetrics(shieldZoneId: number, options?: CallOptions): Promise<ApiGuardianMetricsWire>;
  /** Every custom rule of a zone, all pages. */
  listCustomWafRules(shieldZoneId: number, options?: CallOptions): Promise<CustomWafRuleWire[]>;
  /** One custom rule (not enveloped). */
  getCustomWafRule(id: number, options?: CallOptions): Promise<CustomWafRuleWire>;
  /** Custom and managed lists of a zone with their configuration ids (not paged). */
  listAccessLists(shieldZoneId: number, options?: CallOptions): Promise<AccessListsWire>;
  /** One custom list with its content (the listing has none). */
  getCustomAccessList(
    shieldZoneId: number,
    listId: number,
    options?: CallOptions,
  ): Promise<CustomAccessListWire>;
  /** A Shield Zone's plan and limits (`planType`, `customWafRulesLimit`). */
  getShieldZone(shieldZoneId: number, options?: CallOptions): Promise<ShieldZoneWire>;
  /** Every Shield Zone of the account, page by page (`inspect zones`). */
  listShieldZones(options?: CallOptions): Promise<ShieldZoneListItemWire[]>;
  /** Every pull zone of the account, page by page: the names and hostnames beside the Shield Zones. */
  listPullZones(options?: CallOptions): Promise<PullZoneWire[]>;
  /** One MC app with its container templates. */
  getApp(appId: string, options?: CallOptions): Promise<AppWire>;
  /** Every app of the account (`GET /mc/apps`, followed cursor by cursor). */
  listApps(options?: CallOptions): Promise<AppListItemWire[]>;
  /** The app's rollout state: status, and per region the pods' containers with their reasons. */
  getAppOverview(appId: string, options?: CallOptions): Promise<AppOverviewWire>;
  /** One DNS zone; `DnsSecEnabled` is the only DNSSEC field it has. */
  getDnsZone(zoneId: number, options?: CallOptions): Promise<DnsZoneWire>;
  /** Every DNS zone of the account, all pages of 1,000 (one request per 1,000 zones). */
  listDnsZones(options?: CallOptions): Promise<DnsZoneWire[]>;
  /** POST /dnszone/{id}/dnssec; idempotent, returns the existing key on a signed zone. */
  enableDnssec(zoneId: number, options?: CallOptions): Promise<DnssecStatusWire>;
  /** Sends a plan's write request and returns its operation's validated reply. */
  execute<Op extends WriteOperationId>(
    request: ApiRequest<Op>,
    options?: CallOptions,
  ): Promise<WriteReplies[Op]>;
  /** The pace the client keeps now and the 429s it has met (for metrics). */
  pacing(): PaceReading;
  /** Closes the pooled connections (only those the client created). */
  close(): Promise<void>;
}
