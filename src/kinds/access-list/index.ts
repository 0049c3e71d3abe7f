/**
 * `AccessList`: content and name through E2 at the list id, `enabled`/`action` through E3 at
 * the configuration id found in the zone's listing.
 *
 * Reads are batched: the zone listing (shared with ManagedAccessList) gives name, state and
 * `lastUpdated` for every list. The content itself needs one GET per list, so the checksum
 * seen on the last read is kept as a hint with that `lastUpdated`; while the listing still
 * shows the same `lastUpdated` and entry count, the hint settles the content without a GET.
 */
import { writeRequests } from '../../api/operations.js';
import type { AccessListDetailsWire, CustomAccessListWire } from '../../api/wire/shield.js';
import { sha256Hex } from '../../domain/checksum.js';
import { AccessListAction, AccessListType, enumName } from '../../domain/enums.js';
import { ReconcileError } from '../../errors.js';
import {
  type LiveConfiguration,
  liveConfiguration,
  planConfiguration,
  readZoneAccessLists,
} from '../common/access-lists.js';
import { type KeyedObjects, keyedObjects, resolveIdentity } from '../common/identity.js';
import type { KindLifecycle, KindPlan, LiveRead, ReadContext, ResourceKind } from '../common/kind.js';
import { shareGuard, shieldZoneName } from '../common/lifecycle.js';
import { listConfigurationKey } from '../common/live-keys.js';
import { found, identified, notFound, readByZone } from '../common/read.js';
import type { DesiredResource, FieldDiff } from '../types.js';
import { type AccessListCanonical, accessListSpec, canonicalContent, canonicalLines } from './spec.js';

/** Live content: known from a GET, or settled by the checksum hint without one. */
type LiveContent = { readonly checksum: string; readonly content?: string };

export interface LiveAccessList {
  listId: number;
  name: string;
  /** The list's AccessListType; absent when the listing does not say. */
  type?: number;
  configuration: LiveConfiguration;
  /** Absent when the desired spec does not manage content (no GET made). */
  content?: LiveContent;
}

/** Kept between reconciles: the content checksum as of the listing's `lastUpdated`. */
interface ContentHint {
  lastUpdated: string;
  entryCount: number | null;
  checksum: string;
  /** When the content was last read with a GET. */
  readAt: string;
}

/**
 * A hint older than this is not trusted: the content is read again. It bounds the damage if
 * the API ever changes content without moving `lastUpdated` (its resolution is not documented).
 */
const CONTENT_HINT_MAX_AGE_MS = 60 * 60 * 1000;

function isFreshHint(value: unknown, now: number): value is ContentHint {
  const h = value as ContentHint | undefined;
  if (typeof h?.lastUpdated !== 'string' || typeof h.checksum !== 'string' || typeof h.readAt !== 'string')
    return false;
  const age = now - Date.parse(h.readAt);
  return age >= 0 && age < CONTENT_HINT_MAX_AGE_MS;
}

/** The checksum of live content as the API computes it, when the reply omits it. */
function liveChecksum(wire: CustomAccessListWire): string {
  return wire.checksum?.toLowerCase() ?? sha256Hex(wire.content ?? '');
}

/** True when live content equals the desired canonical content. */
function contentMatches(desired: AccessListCanonical, live: LiveContent): boolean {
  if (desired.checksum === live.checksum) return true;
  // The API stores content as sent: a trailing newline or blank line written out of band
  // changes the checksum but not the entries, and must not make a diff after every apply.
  return live.content !== undefined && canonicalContent(live.content) === desired.content;
}

/** A new list: POST name, type and content; enabled/action follow once its configuration exists. */
function planCreate(spec: AccessListCanonical): KindPlan {
  const diffs: FieldDiff[] = [];
  const name = spec.name ?? '';
  diffs.push({ path: 'name', live: undefined, desired: name });
  if (spec.type !== undefined)
    diffs.push({ path: 'type', live: undefined, desired: enumName(AccessListType, spec.type) });
  const content = spec.content ?? '';
  diffs.push({ path: 'entries', live: undefined, desired: content === '' ? [] : content.split('\n') });
  if (spec.enabled !== undefined) diffs.push({ path: 'enabled', live: undefined, desired: spec.enabled });
  if (spec.action !== undefined)
    diffs.push({ path: 'action', live: undefined, desired: enumName(AccessListAction, spec.action) });
  if (spec.type === undefined) {
    return {
      diffs,
      requests: [],
      error: {
        code: 'PLAN_UNSAFE',
        message: `no live list is named ${JSON.stringify(name)} in Shield Zone ${spec.shieldZoneId}, and creating one needs spec.type (IP, CIDR, ASN, Country, Organization or JA4)`,
      },
    };
  }
  return {
    diffs,
    requests: [
      writeRequests.createCustomAccessList(spec.shieldZoneId, {
        name,
        type: spec.type,
        content,
        checksum: spec.checksum ?? sha256Hex(content),
      }),
    ],
    followUp: spec.enabled !== undefined || spec.action !== undefined,
  };
}

function planAccessList(
  desired: DesiredResource<AccessListCanonical>,
  live: LiveAccessList | null,
): KindPlan {
  const spec = desired.spec;
  if (live === null) return planCreate(spec);
  if (spec.type !== undefined && live.type !== undefined && spec.type !== live.type) {
    const name = (type: number) => enumName(AccessListType, type);
    return {
      diffs: [{ path: 'type', live: name(live.type), desired: name(spec.type) }],
      requests: [],
      error: {
        code: 'PLAN_UNSAFE',
        message: `type cannot be changed from ${name(live.type)} to ${name(spec.type)}: the API keeps a list's type (delete the list, or give this document a new name, to create a list of the new type)`,
      },
    };
  }
  const diffs: FieldDiff[] = [];
  const e2: { name?: string; content?: string; checksum?: string } = {};
  if (spec.name !== undefined && spec.name !== live.name) {
    diffs.push({ path: 'name', live: live.name, desired: spec.name });
    e2.name = spec.name;
  }
  if (spec.content !== undefined && spec.checksum !== undefined && live.content !== undefined) {
    if (!contentMatches(spec, live.content)) {
      diffs.push({
        path: 'entries',
        live:
          live.content.content === undefined
            ? `sha256:${live.content.checksum}`
            : canonicalLines(live.content.content),
        desired: spec.content === '' ? [] : spec.content.split('\n'),
      });
      e2.content = spec.content;
      e2.checksum = spec.checksum;
    }
  }
  const configuration = planConfiguration(spec, live.configuration, diffs);
  // E2 before E3, as the diffs are listed.
  const requests = [];
  if (Object.keys(e2).length > 0)
    requests.push(writeRequests.updateCustomAccessList(spec.shieldZoneId, live.listId, e2));
  if (configuration !== undefined) requests.push(configuration);
  return { diffs, requests };
}

/** A zone's custom lists, by id and as identity resolves them. */
interface ZoneLists {
  readonly byId: ReadonlyMap<number, AccessListDetailsWire>;
  readonly keyed: KeyedObjects<number>;
}

async function readOne(
  resource: DesiredResource<AccessListCanonical>,
  zoneId: number,
  ctx: ReadContext,
  zone: ZoneLists,
): Promise<LiveRead<LiveAccessList | null>> {
  const spec = resource.spec;
  const resolution = resolveIdentity({
    kind: 'AccessList',
    shieldZoneId: zoneId,
    specId: spec.id,
    key: spec.name,
    owned: ctx.owned(resource.subject),
    live: zone.keyed,
    noun: 'custom access list',
    scopeName: shieldZoneName(zoneId),
  });
  if (resolution.via === 'missing') return notFound(resource, resolution.message);
  if (resolution.via === 'create') {
    return identified(null, {
      kind: 'AccessList',
      shieldZoneId: zoneId,
      via: 'create',
      key: spec.name ?? '',
    });
  }
  const listId = resolution.id;
  const details = zone.byId.get(listId) as AccessListDetailsWire;
  if (spec.configurationId !== undefined && spec.configurationId !== details.configurationId) {
    return notFound(
      resource,
      `configurationId ${spec.configurationId} is not the configuration of list ${listId} (the zone lists ${details.configurationId})`,
    );
  }
  const identity = {
    kind: 'AccessList' as const,
    shieldZoneId: zoneId,
    via: resolution.via,
    id: listId,
    key: spec.name ?? details.name ?? '',
  };
  const result = await readContent(resource, zoneId, ctx, details);
  return result.lookup.status === 'found' ? { ...result, identity } : result;
}

/** The found list with its content when the document manages content (a GET unless the hint settles it). */
async function readContent(
  resource: DesiredResource<AccessListCanonical>,
  zoneId: number,
  ctx: ReadContext,
  details: AccessListDetailsWire,
): Promise<LiveRead<LiveAccessList>> {
  const spec = resource.spec;
  const live: LiveAccessList = {
    listId: details.listId,
    name: details.name ?? '',
    ...(details.type === null || details.type === undefined ? {} : { type: details.type }),
    configuration: liveConfiguration(details),
  };
  if (spec.content === undefined) return found(live);

  const hint = ctx.hint(resource.subject);
  const lastUpdated = details.lastUpdated ?? undefined;
  if (
    isFreshHint(hint, Date.now()) &&
    lastUpdated !== undefined &&
    hint.lastUpdated === lastUpdated &&
    hint.entryCount === (details.entryCount ?? null) &&
    hint.checksum === spec.checksum
  ) {
    // Unchanged since the last read, and that read matched: no GET needed.
    return found({ ...live, content: { checksum: hint.checksum } }, hint);
  }
  const wire = await ctx.limit(() =>
    ctx.api.getCustomAccessList(zoneId, details.listId, { signal: ctx.signal }),
  );
  const content: LiveContent = { checksum: liveChecksum(wire), content: wire.content ?? '' };
  const newHint: ContentHint | undefined =
    lastUpdated === undefined
      ? undefined
      : {
          lastUpdated,
          entryCount: details.entryCount ?? null,
          // Store the desired checksum when the content matches canonically, so a live
          // trailing newline does not defeat the hint on every later read.
          checksum:
            spec.checksum !== undefined && contentMatches(spec, content) ? spec.checksum : content.checksum,
          readAt: new Date().toISOString(),
        };
  return found({ ...live, content }, newHint);
}

function readAccessLists(
  resources: readonly DesiredResource<AccessListCanonical>[],
  ctx: ReadContext,
): Promise<Map<string, LiveRead<LiveAccessList | null>>> {
  return readByZone(
    resources,
    async (zoneId): Promise<ZoneLists> => {
      const customLists = (await readZoneAccessLists(zoneId, ctx)).customLists ?? [];
      return {
        byId: new Map(customLists.map((l) => [l.listId, l])),
        keyed: keyedObjects(customLists.map((l) => ({ id: l.listId, key: l.name ?? '' }))),
      };
    },
    (resource, zone, zoneId) => readOne(resource, zoneId, ctx, zone),
  );
}

const NOUNS = 'custom access lists';

/** Lists are created by name in their Shield Zone, within the listing's customListLimit. */
const lifecycle: KindLifecycle<AccessListCanonical> = {
  kind: 'AccessList',
  nouns: NOUNS,
  keyPath: 'name',
  locate: (spec) => ({ shieldZoneId: spec.shieldZoneId, id: spec.id, key: spec.name }),
  scopeName: shieldZoneName,
  async list(zoneId, ctx) {
    const listing = await readZoneAccessLists(zoneId as number, ctx);
    const limit = listing.customListLimit ?? undefined;
    return {
      items: (listing.customLists ?? []).map((l) => ({ id: l.listId, key: l.name ?? '' })),
      ...(limit === undefined ? {} : { limit }),
    };
  },
  limitProblem({ shieldZoneId, creating, listing }) {
    if (listing === undefined || 'error' in listing || listing.limit === undefined) return undefined;
    if (listing.items.length + creating <= listing.limit) return undefined;
    return `Shield Zone ${shieldZoneId} allows ${listing.limit} ${NOUNS} (customListLimit) and has ${listing.items.length}: creating ${creating} more would pass it`;
  },
  createOperation: 'createCustomAccessList',
  deleteRequest: (zoneId, id) => writeRequests.deleteCustomAccessList(zoneId as number, id as number),
  deletionGuard: shareGuard(NOUNS, shieldZoneName),
};

export const accessListKind: ResourceKind<AccessListCanonical, LiveAccessList | null> = {
  kind: 'AccessList',
  lifecycle,
  spec: accessListSpec as ResourceKind<AccessListCanonical>['spec'],
  readLive: readAccessLists,
  // A list still to be created reaches no live object yet.
  liveTarget: (live, desired) =>
    live === null
      ? undefined
      : listConfigurationKey(desired.spec.shieldZoneId, live.configuration.configurationId),
  // The content by its checksum: a read settled by the hint carries no text, a GET does.
  liveDigestView: (live) =>
    live === null || live.content === undefined ? live : { ...live, content: live.content.checksum },
  plan: planAccessList,
  checkReply(request, reply) {
    if (request.operation === 'createCustomAccessList') return { id: (reply as CustomAccessListWire).id };
    if (request.operation !== 'updateCustomAccessList') return undefined;
    const sent = (request.body as { checksum?: string } | undefined)?.checksum;
    const wire = reply as CustomAccessListWire;
    const returned = wire.checksum?.toLowerCase();
    // The API's checksum is the integrity check: a different one means the content it stored
    // is not the content we sent, so the change has failed.
    if (sent !== undefined && returned !== sent) {
      throw new ReconcileError(
        'CHECKSUM_MISMATCH',
        `the API returned checksum ${returned ?? '(none)'} for list ${wire.id}, expected ${sent}`,
      );
    }
    return { id: wire.id, checksum: returned, entryCount: wire.entryCount ?? null };
  },
};
