/**
 * The API's retry rules as pure functions: which requests may be sent twice, and how long a
 * `Retry-After` asks to wait. `failures.ts` and `http.ts` apply them; the backoff itself is
 * edgesync's one backoff (`src/backoff.ts`).
 */
import type { ApiRequest, OperationId } from './operations.js';

/**
 * Whether sending a request twice leaves the API as sending it once.
 *
 * Every operation edgesync uses is idempotent (PATCHes that set fields, DNSSEC on/off, GETs,
 * deletes) except the creates of custom rules and lists, and one case of E4: a `containerTemplates` item without `id` asks the API to *create* a
 * container. If the first attempt was applied but its reply was lost, a blind retry sends the
 * same id-less item again: the container the first attempt made is not in the retry's list, so
 * the API deletes it and creates another (a new id and a restart), or keeps both. Such a request
 * is therefore never retried after an ambiguous failure; the caller gets API_AMBIGUOUS and
 * re-reads the app, whose containers then carry ids.
 *
 * Volumes and endpoints carry no id in requests at all (docs/api-notes.md, Container apps): the API matches them
 * by name, every E4 body edgesync sends holds the complete arrays, and re-sending the same
 * complete arrays converges on the same state. So they do not count as creates.
 *
 * Keyed by every operation, so a new operation cannot be added without deciding.
 */
const IDEMPOTENT: { [Op in OperationId]: boolean | ((body: unknown) => boolean) } = {
  updateCustomWafRule: true,
  updateCustomAccessList: true,
  updateAccessListConfiguration: true,
  // A create sent twice makes two objects with one key: never resent after an ambiguous
  // failure; the engine re-lists the zone and matches by key instead.
  createCustomWafRule: false,
  createCustomAccessList: false,
  // Deleting twice leaves the object as deleted once (a second answer of 404 is "already gone").
  deleteCustomWafRule: true,
  deleteCustomAccessList: true,
  patchApp: (body) => !createsContainers(body),
  // A second POST makes a second app of the same name: the engine re-lists by name instead.
  createApp: false,
  // Deleting an app twice leaves it deleted once (a 404 is "already gone").
  deleteApp: true,
  // Deploying a deployed app again changes nothing.
  deployApp: true,
  listApps: true,
  getAppOverview: true,
  disableDnssec: true,
  // POST, but TF uses it as a read of an enabled zone: it returns the existing key (docs/api-notes.md, DNS zones and DNSSEC).
  enableDnssec: true,
  getBotCategorization: true,
  getOptimalRegion: true,
  getWafPlanSegmentation: true,
  getApiGuardianMetrics: true,
  listCustomWafRules: true,
  getCustomWafRule: true,
  listAccessLists: true,
  getCustomAccessList: true,
  getShieldZone: true,
  listShieldZones: true,
  listPullZones: true,
  getApp: true,
  getDnsZone: true,
  listDnsZones: true,
};

/** Whether a request may be retried after a failure that leaves its effect unknown. */
export function isIdempotent(request: ApiRequest): boolean {
  const rule = IDEMPOTENT[request.operation];
  return typeof rule === 'boolean' ? rule : rule(request.body);
}

/** Whether an E4 body creates a container: some `containerTemplates` item has no `id`. */
export function createsContainers(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const templates = (body as { containerTemplates?: unknown }).containerTemplates;
  if (!Array.isArray(templates)) return false;
  return templates.some((item) => {
    const id = typeof item === 'object' && item !== null ? (item as { id?: unknown }).id : undefined;
    return typeof id !== 'string' || id === '';
  });
}

const HTTP_DATE_MONTH = /\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b/;

/**
 * Milliseconds a `Retry-After` header asks to wait: delta-seconds or an HTTP date (RFC 9110
 * §10.2.3). A date in the past means 0. Undefined when the header is absent or unreadable, so
 * the caller falls back to its backoff.
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  const header = Array.isArray(value) ? value[0] : value;
  if (header === undefined) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // V8's Date.parse reads "-1" or "1.5" as years; an HTTP date always names its month.
  if (!HTTP_DATE_MONTH.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}
