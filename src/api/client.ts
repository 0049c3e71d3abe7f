/**
 * `createApiClient`: the typed functions of `ApiClient`, each one an `ApiRequest` from
 * `operations.ts` sent through the one transport in `http.ts` and decoded by one function here.
 * Typed write methods and `execute` share the same path, so a plan's request and a direct
 * call cannot behave differently.
 */
import { Agent } from 'undici';
import { z } from 'zod';
import { sleep } from '../backoff.js';
import { ReconcileError } from '../errors.js';
import { silentLogger } from '../log.js';
import {
  ApiError,
  codeForStatus,
  describeErrorBody,
  describeErrorJson,
  failedGenericResponse,
  withheldFor,
} from './errors.js';
import { createHttpTransport, type HttpReply } from './http.js';
import {
  type ApiRequest,
  OPERATIONS,
  readRequests,
  type WriteOperationId,
  writeRequests,
} from './operations.js';
import { createPacer } from './pacer.js';
import type { ApiClient, ApiClientOptions, CallOptions, WriteReplies } from './types.js';
import { DnssecStatusWire, DnsZoneListWire, DnsZoneWire, PullZoneListWire } from './wire/dns.js';
import {
  AppListWire,
  AppOverviewWire,
  AppWire,
  CreatedAppWire,
  OptimalRegionWire,
  PatchAppReplyWire,
} from './wire/mc.js';
import {
  AccessListConfigurationEnvelopeWire,
  AccessListsWire,
  ApiGuardianMetricsWire,
  BotCategorizationWire,
  CreatedCustomWafRuleWire,
  CustomAccessListEnvelopeWire,
  CustomWafRuleListWire,
  CustomWafRuleWire,
  DeletedWire,
  ShieldZoneEnvelopeWire,
  ShieldZoneListWire,
  UpdatedCustomWafRuleWire,
  WafPlanSegmentationWire,
} from './wire/shield.js';

/** How to turn a validated reply into what the typed function returns. */
interface ReplySpec<T> {
  readonly schema: z.ZodType;
  /** The API answers with no body (MC's DELETE and deploy): an empty reply is the result `{}`. */
  readonly noBody?: boolean;
  /** Picks the result out of the parsed reply; undefined/null means "the reply lacks it". */
  readonly pick: (parsed: never) => T | null | undefined;
}

function reply<S extends z.ZodType, T>(
  schema: S,
  pick: (parsed: z.infer<S>) => T | null | undefined,
): ReplySpec<T> {
  return { schema, pick: pick as (parsed: never) => T | null | undefined };
}

function whole<T>(parsed: T): T {
  return parsed;
}

/** A reply with no body: `{}` (a body, if one comes, is not looked at). */
const NO_BODY: ReplySpec<Record<string, never>> = { schema: z.unknown(), pick: () => ({}), noBody: true };

/** The reply of each write operation; `execute` and the typed write methods both use it. */
const WRITE_REPLIES: { [Op in WriteOperationId]: ReplySpec<WriteReplies[Op]> } = {
  updateCustomWafRule: reply(UpdatedCustomWafRuleWire, whole),
  updateCustomAccessList: reply(CustomAccessListEnvelopeWire, (r) => r.data),
  updateAccessListConfiguration: reply(AccessListConfigurationEnvelopeWire, (r) =>
    r.data ? { isEnabled: r.data.isEnabled ?? null, action: r.data.action ?? null } : undefined,
  ),
  createCustomWafRule: reply(CreatedCustomWafRuleWire, whole),
  deleteCustomWafRule: reply(DeletedWire, whole),
  createCustomAccessList: reply(CustomAccessListEnvelopeWire, (r) => r.data),
  deleteCustomAccessList: reply(DeletedWire, whole),
  patchApp: reply(PatchAppReplyWire, whole),
  createApp: reply(CreatedAppWire, whole),
  deleteApp: NO_BODY,
  deployApp: NO_BODY,
  disableDnssec: reply(DnssecStatusWire, whole),
  enableDnssec: reply(DnssecStatusWire, whole),
};

const READ_REPLIES = {
  getBotCategorization: reply(BotCategorizationWire, whole),
  getOptimalRegion: reply(OptimalRegionWire, whole),
  getWafPlanSegmentation: reply(WafPlanSegmentationWire, whole),
  getApiGuardianMetrics: reply(ApiGuardianMetricsWire, whole),
  listCustomWafRules: reply(CustomWafRuleListWire, whole),
  getCustomWafRule: reply(CustomWafRuleWire, whole),
  listAccessLists: reply(AccessListsWire, whole),
  getCustomAccessList: reply(CustomAccessListEnvelopeWire, (r) => r.data),
  getShieldZone: reply(ShieldZoneEnvelopeWire, (r) => r.data),
  listShieldZones: reply(ShieldZoneListWire, whole),
  listPullZones: reply(PullZoneListWire, whole),
  getApp: reply(AppWire, whole),
  listApps: reply(AppListWire, whole),
  getAppOverview: reply(AppOverviewWire, whole),
  getDnsZone: reply(DnsZoneWire, whole),
  listDnsZones: reply(DnsZoneListWire, whole),
} as const;

/** Page size of the app listing: the MC API's maximum (its default is 20). */
const APPS_PAGE_SIZE = 1000;

/** Page size of the DNS zone listing: the core API's maximum (and default). */
const DNS_ZONES_PAGE_SIZE = 1000;

/** Page size of the Shield Zone listing (the API's default is 10). */
const SHIELD_ZONES_PAGE_SIZE = 100;

/** Page size of the pull zone listing: the core API's default, 1000. */
const PULL_ZONES_PAGE_SIZE = 1000;

/** Page size of the custom-rule listing: the largest the PHP docs use; the API default is 10. */
const CUSTOM_RULES_PAGE_SIZE = 1000;
/**
 * A listing longer than this many pages (100,000 rules) means the server is not ending it;
 * a zone's rule count is capped far below that by its `customWafRulesLimit`.
 */
export const MAX_PAGES = 100;

const DEFAULTS = {
  timeoutMs: 30_000,
  // Six attempts: at a 20 % fault rate four left 1 request in 625 failed, so a 250-read
  // reconcile failed something one time in three (issue 6's fault suite); six leave 1 in
  // 15,625. The lower base keeps the longest wait before giving up near 3 s (was 1.4 s).
  maxAttempts: 6,
  baseDelayMs: 100,
  maxDelayMs: 10_000,
  maxRetryAfterMs: 60_000,
  connections: 16,
} as const;

/**
 * The pool size for `concurrency` requests in flight: twice as many connections, headroom
 * for sockets the server is closing at its keep-alive timeout. The CLI, the daemon and the
 * benchmark (whose bare-undici baseline claims "the same pool as the engine") all use it.
 */
export function connectionsFor(concurrency: number): number {
  return concurrency * 2;
}

/**
 * Builds the client. Options are validated once (bad ones throw USAGE). Without a
 * `dispatcher`, the client owns one pooled undici Agent and `close()` closes it; a passed-in
 * dispatcher is the caller's to close. The global dispatcher is never touched.
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const base = parseBaseUrl(options.baseUrl);
  if (options.accessKey.trim() === '') throw new ReconcileError('USAGE', 'the API access key is empty');
  const retry = options.retry ?? {};
  const timeoutMs = positive('timeoutMs', options.timeoutMs ?? DEFAULTS.timeoutMs);
  const maxAttempts = positive('retry.maxAttempts', retry.maxAttempts ?? DEFAULTS.maxAttempts);
  const connections = positive('connections', options.connections ?? DEFAULTS.connections);
  const ownDispatcher = options.dispatcher === undefined;
  const dispatcher = options.dispatcher ?? new Agent({ connections });

  const replyContext: ReplyContext = {
    secret: options.accessKey,
    unauthorizedNote: options.unauthorizedNote,
  };
  const pacer = createPacer(
    options.rateLimitPerSecond === undefined
      ? undefined
      : positive('rateLimitPerSecond', options.rateLimitPerSecond),
    { now: () => performance.now(), sleep },
  );
  const http = createHttpTransport({
    origin: base.origin,
    pathPrefix: base.pathPrefix,
    accessKey: options.accessKey,
    timeoutMs,
    maxAttempts: Math.max(1, Math.floor(maxAttempts)),
    baseDelayMs: nonNegative('retry.baseDelayMs', retry.baseDelayMs ?? DEFAULTS.baseDelayMs),
    maxDelayMs: nonNegative('retry.maxDelayMs', retry.maxDelayMs ?? DEFAULTS.maxDelayMs),
    maxRetryAfterMs: nonNegative('retry.maxRetryAfterMs', retry.maxRetryAfterMs ?? DEFAULTS.maxRetryAfterMs),
    pacer,
    dispatcher,
    logger: options.logger ?? silentLogger(),
    onRequest: options.onRequest,
    random: options.random ?? Math.random,
  });

  // `call` and `execute` are not async functions: each would add a promise and a turn to every
  // request of an apply; errors still arrive as rejections, never as throws.
  function call<T>(request: ApiRequest, spec: ReplySpec<T>, callOptions?: CallOptions): Promise<T> {
    return http
      .send(request, callOptions?.signal, callOptions?.beforeSend)
      .then((httpReply) => decodeReply(request, httpReply, spec, replyContext));
  }

  function execute<Op extends WriteOperationId>(
    request: ApiRequest<Op>,
    callOptions?: CallOptions,
  ): Promise<WriteReplies[Op]> {
    const spec = WRITE_REPLIES[request.operation] as ReplySpec<WriteReplies[Op]> | undefined;
    // `execute` is public: a caller's request can be cast from anything; check what types cannot.
    if (spec === undefined || OPERATIONS[request.operation].method !== request.method) {
      return Promise.reject(
        new ReconcileError('INTERNAL', `not a write request: ${request.method} ${String(request.operation)}`),
      );
    }
    return call(request, spec, callOptions);
  }

  /**
   * Follows a listing from page 1 to its end. `pageOf` reads one reply's items and the page
   * after it (undefined at the end); the checks here stop a server that never ends a listing.
   */
  async function collectPages<L, T>(
    requestFor: (page: number) => ApiRequest,
    spec: ReplySpec<L>,
    pageOf: (listing: L, page: number) => { items: readonly T[]; next: number | undefined },
    callOptions?: CallOptions,
  ): Promise<T[]> {
    const all: T[] = [];
    let page = 1;
    for (let fetched = 1; ; fetched += 1) {
      const request = requestFor(page);
      const httpReply = await http.send(request, callOptions?.signal);
      const { items, next } = pageOf(decodeReply(request, httpReply, spec, replyContext), page);
      all.push(...items);
      if (next === undefined) return all;
      const broken = (problem: string) => pagingError(request, httpReply, problem);
      if (next <= page) throw broken(`page ${page} names page ${next} as the next one`);
      if (items.length === 0) throw broken(`page ${page} is empty but the listing says more pages follow`);
      if (fetched >= MAX_PAGES) throw broken(`the listing goes on past ${MAX_PAGES} pages`);
      page = next;
    }
  }

  const listCustomWafRules = (shieldZoneId: number, callOptions?: CallOptions) =>
    collectPages(
      (page) => readRequests.listCustomWafRules(shieldZoneId, page, CUSTOM_RULES_PAGE_SIZE),
      READ_REPLIES.listCustomWafRules,
      (listing, page) => ({ items: listing.data ?? [], next: nextPage(page, listing.page) }),
      callOptions,
    );

  const listDnsZones = (callOptions?: CallOptions) =>
    collectPages(
      (page) => readRequests.listDnsZones(page, DNS_ZONES_PAGE_SIZE),
      READ_REPLIES.listDnsZones,
      (listing, page) => ({
        items: listing.Items ?? [],
        next: listing.HasMoreItems === true ? page + 1 : undefined,
      }),
      callOptions,
    );

  const listShieldZones = (callOptions?: CallOptions) =>
    collectPages(
      (page) => readRequests.listShieldZones(page, SHIELD_ZONES_PAGE_SIZE),
      READ_REPLIES.listShieldZones,
      (listing, page) => ({ items: listing.data ?? [], next: nextPage(page, listing.page) }),
      callOptions,
    );

  const listPullZones = (callOptions?: CallOptions) =>
    collectPages(
      (page) => readRequests.listPullZones(page, PULL_ZONES_PAGE_SIZE),
      READ_REPLIES.listPullZones,
      (listing, page) => ({
        items: listing.Items ?? [],
        next: listing.HasMoreItems === true ? page + 1 : undefined,
      }),
      callOptions,
    );

  /** `GET /mc/apps` cursor by cursor; a cursor seen twice is a server that never ends the listing. */
  async function listApps(callOptions?: CallOptions): Promise<z.infer<typeof AppListWire>['items'] & {}> {
    const all: NonNullable<z.infer<typeof AppListWire>['items']> = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let fetched = 1; ; fetched += 1) {
      const request = readRequests.listApps(APPS_PAGE_SIZE, cursor);
      const httpReply = await http.send(request, callOptions?.signal);
      const listing = decodeReply(request, httpReply, READ_REPLIES.listApps, replyContext);
      all.push(...(listing.items ?? []));
      const next = listing.cursor ?? undefined;
      if (next === undefined || next === '') return all;
      const broken = (problem: string) => pagingError(request, httpReply, problem);
      if (seen.has(next)) throw broken(`the cursor ${JSON.stringify(next)} came back twice`);
      if (fetched >= MAX_PAGES) throw broken(`the listing goes on past ${MAX_PAGES} pages`);
      seen.add(next);
      cursor = next;
    }
  }

  return {
    updateCustomWafRule: (id, body, o) => execute(writeRequests.updateCustomWafRule(id, body), o),
    updateCustomAccessList: (zone, listId, body, o) =>
      execute(writeRequests.updateCustomAccessList(zone, listId, body), o),
    updateAccessListConfiguration: (zone, configurationId, body, o) =>
      execute(writeRequests.updateAccessListConfiguration(zone, configurationId, body), o),
    patchApp: (appId, body, o) => execute(writeRequests.patchApp(appId, body), o),
    disableDnssec: (zoneId, o) => execute(writeRequests.disableDnssec(zoneId), o),
    enableDnssec: (zoneId, o) => execute(writeRequests.enableDnssec(zoneId), o),
    getBotCategorization: (zone, o) =>
      call(readRequests.getBotCategorization(zone), READ_REPLIES.getBotCategorization, o),
    getOptimalRegion: (o) => call(readRequests.getOptimalRegion(), READ_REPLIES.getOptimalRegion, o),
    getWafPlanSegmentation: (o) =>
      call(readRequests.getWafPlanSegmentation(), READ_REPLIES.getWafPlanSegmentation, o),
    getApiGuardianMetrics: (zone, o) =>
      call(readRequests.getApiGuardianMetrics(zone), READ_REPLIES.getApiGuardianMetrics, o),
    listCustomWafRules,
    getCustomWafRule: (id, o) => call(readRequests.getCustomWafRule(id), READ_REPLIES.getCustomWafRule, o),
    listAccessLists: (zone, o) => call(readRequests.listAccessLists(zone), READ_REPLIES.listAccessLists, o),
    getCustomAccessList: (zone, listId, o) =>
      call(readRequests.getCustomAccessList(zone, listId), READ_REPLIES.getCustomAccessList, o),
    getShieldZone: (zone, o) => call(readRequests.getShieldZone(zone), READ_REPLIES.getShieldZone, o),
    listShieldZones,
    listPullZones,
    getApp: (appId, o) => call(readRequests.getApp(appId), READ_REPLIES.getApp, o),
    listApps,
    getAppOverview: (appId, o) => call(readRequests.getAppOverview(appId), READ_REPLIES.getAppOverview, o),
    getDnsZone: (zoneId, o) => call(readRequests.getDnsZone(zoneId), READ_REPLIES.getDnsZone, o),
    listDnsZones,
    execute,
    pacing: () => pacer.reading(),
    close: async () => {
      if (ownDispatcher) await dispatcher.close();
    },
  };
}

/** What decoding a reply needs besides the reply: the key to redact, the 401 note. */
interface ReplyContext {
  readonly secret: string;
  readonly unauthorizedNote: string | undefined;
}

/**
 * Turns a final HTTP reply into the operation's result or an ApiError:
 * non-2xx → the status's code; not JSON → API_BAD_RESPONSE; on Shield, a 202 or a
 * GenericRequestResponse with `success: false` → API_REJECTED (the API's way of refusing
 * plan-limited or invalid changes with a success status, docs/api-notes.md, Errors); a body that
 * fails its wire schema or lacks its `data` → API_BAD_RESPONSE.
 */
function decodeReply<T>(
  request: ApiRequest,
  httpReply: HttpReply,
  spec: ReplySpec<T>,
  context: ReplyContext,
): T {
  const { status, attempts } = httpReply;
  const secret = context.secret;
  const at = { operation: request.operation, method: request.method, path: request.path, status, attempts };
  if (status < 200 || status >= 300) {
    const note = status === 401 ? context.unauthorizedNote : undefined;
    throw new ApiError({
      ...at,
      code: codeForStatus(status),
      ...withheldFor(request, describeErrorBody(status, httpReply.text, secret)),
      ...(note === undefined ? {} : { note }),
    });
  }
  if (spec.noBody === true) return spec.pick({} as never) as T;
  let json: unknown;
  try {
    json = JSON.parse(httpReply.text);
  } catch (cause) {
    const shape = httpReply.text.trim() === '' ? 'empty' : 'unparseable';
    throw new ApiError({ ...at, code: 'API_BAD_RESPONSE', shape, problem: 'the reply is not JSON', cause });
  }
  // Every Shield reply is checked, reads included: a read that "succeeds" with success:false
  // would otherwise look like an empty zone, and the plan would create what already exists.
  if (OPERATIONS[request.operation].area === 'shield' && (status === 202 || failedGenericResponse(json))) {
    throw new ApiError({
      ...at,
      code: codeForStatus(status),
      ...withheldFor(request, describeErrorJson(status, json, secret)),
    });
  }
  const parsed = spec.schema.safeParse(json);
  if (!parsed.success) {
    throw new ApiError({
      ...at,
      code: 'API_BAD_RESPONSE',
      shape: 'schema-mismatch',
      problem: `the reply does not match its schema: ${summariseIssues(parsed.error)}`,
    });
  }
  const result = spec.pick(parsed.data as never);
  if (result === undefined || result === null) {
    throw new ApiError({
      ...at,
      code: 'API_BAD_RESPONSE',
      shape: 'schema-mismatch',
      problem: 'the reply has no data',
    });
  }
  return result;
}

/** A listing whose paging cannot be followed safely. */
function pagingError(request: ApiRequest, httpReply: HttpReply, problem: string): ApiError {
  return new ApiError({
    code: 'API_BAD_RESPONSE',
    operation: request.operation,
    method: request.method,
    path: request.path,
    status: httpReply.status,
    shape: 'schema-mismatch',
    problem,
    attempts: httpReply.attempts,
  });
}

/**
 * The page after `current`, or undefined at the end. Prefers the reply's `nextPage`; falls
 * back to `currentPage < totalPages` since `nextPage` is optional in the API's schema.
 */
function nextPage(
  current: number,
  page:
    | { nextPage?: number | null; totalPages?: number | null; currentPage?: number | null }
    | null
    | undefined,
): number | undefined {
  if (!page) return undefined;
  if (typeof page.nextPage === 'number' && page.nextPage > 0) return page.nextPage;
  const at = page.currentPage ?? current;
  if (typeof page.totalPages === 'number' && at < page.totalPages) return at + 1;
  return undefined;
}

/** At most three zod issues as `path: message`; zod messages name types, never values. */
function summariseIssues(error: z.ZodError): string {
  const issues = error.issues.slice(0, 3).map((issue) => {
    const path = issue.path.map((p, i) =>
      typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`,
    );
    return `${path.join('') || '(root)'}: ${issue.message}`;
  });
  const more = error.issues.length > 3 ? ` (+${error.issues.length - 3} more)` : '';
  return issues.join('; ') + more;
}

function parseBaseUrl(baseUrl: string): { origin: string; pathPrefix: string } {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ReconcileError('USAGE', `the API base URL is not a URL: ${JSON.stringify(baseUrl)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ReconcileError('USAGE', `the API base URL must be http or https, not ${url.protocol}`);
  }
  // Credentials or a query in the base URL would end up in logs and messages; refuse them.
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    throw new ReconcileError('USAGE', 'the API base URL must not carry credentials, a query or a fragment');
  }
  return { origin: url.origin, pathPrefix: url.pathname.replace(/\/+$/, '') };
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new ReconcileError('USAGE', `${name} must be a positive number`);
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new ReconcileError('USAGE', `${name} must be zero or more`);
  return value;
}
