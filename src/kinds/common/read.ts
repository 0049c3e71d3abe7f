/** Helpers for the read phase of kinds. */
import pLimit, { type LimitFunction } from 'p-limit';
import type { ApiClient } from '../../api/types.js';
import { describeSecretSource, type SecretReader } from '../../domain/secret-sources.js';
import { ReconcileError, toReconcileError } from '../../errors.js';
import type { DesiredResource } from '../types.js';
import type { ObjectIdentity, OwnedObject } from './identity.js';
import type { LiveRead, ReadContext } from './kind.js';

/** What a ReadContext is made of: the client, the run's signal and read limit, the hints. */
export interface ReadContextOptions {
  readonly api: ApiClient;
  readonly signal: AbortSignal;
  /** Reads in flight at once. */
  readonly concurrency: number;
  /**
   * The limit to share with other reads of the same run (the engine reads a run zone by
   * zone, each with its own memo, all within one limit); by default one of `concurrency`.
   */
  readonly limit?: LimitFunction;
  hint(subject: string): unknown;
  /** The inventory entry of a subject (custom rules and lists); none when absent. */
  owned?(subject: string): OwnedObject | undefined;
  /** Where container secrets come from; none when absent (every `valueFrom` is then an error). */
  readonly secrets?: SecretReader;
}

/** A reader with no sources: every `valueFrom` read is an error that says none is configured. */
const NO_SECRET_SOURCES: SecretReader = {
  read: async (source) => ({
    error: `${describeSecretSource(source)} cannot be read: no secret sources are configured`,
  }),
};

/** A ReadContext for one run (a reconcile or an export): one concurrency limit, one memo. */
export function createReadContext(options: ReadContextOptions): ReadContext {
  const limit = options.limit ?? pLimit(options.concurrency);
  const memo = new Map<string, Promise<unknown>>();
  return {
    api: options.api,
    signal: options.signal,
    limit: (task) => limit(task),
    once<T>(key: string, load: () => Promise<T>): Promise<T> {
      let pending = memo.get(key) as Promise<T> | undefined;
      if (pending === undefined) {
        pending = load();
        memo.set(key, pending);
      }
      return pending;
    },
    hint: options.hint,
    owned: (subject) => options.owned?.(subject),
    secrets: options.secrets ?? NO_SECRET_SOURCES,
  };
}

/** A read that failed for one resource: keep the API's error, name the resource. */
export function readFailure<Live>(resource: DesiredResource, err: unknown): LiveRead<Live> {
  const cause = toReconcileError(err);
  const error =
    cause.code === 'INTERNAL'
      ? cause
      : new ReconcileError(cause.code, cause.message, {
          subject: resource.subject,
          details: cause.details,
          cause,
        });
  return { lookup: { status: 'error', error } };
}

/** A read that found no live object for the resource. */
export function notFound<Live>(resource: DesiredResource, message: string): LiveRead<Live> {
  return {
    lookup: {
      status: 'error',
      error: new ReconcileError('API_NOT_FOUND', message, { subject: resource.subject }),
    },
  };
}

/** `Map.groupBy` (Node 21+) for Node 20: groups items by key, keeping their order. */
export function groupBy<T, K>(items: Iterable<T>, key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group === undefined) groups.set(k, [item]);
    else group.push(item);
  }
  return groups;
}

/** A read that found the live object. */
export function found<Live>(live: Live, hint?: unknown): LiveRead<Live> {
  return hint === undefined
    ? { lookup: { status: 'found', live } }
    : { lookup: { status: 'found', live }, hint };
}

/** A read of a custom rule or list: the live object (null: none, to be created) and how it was found. */
export function identified<Live>(live: Live, identity: ObjectIdentity, hint?: unknown): LiveRead<Live> {
  return { ...found(live, hint), identity };
}

/**
 * Reads resources that share a listing: `loadGroup` runs once per group key (a listing), then
 * `readOne` finds each resource in it. A failed listing fails every resource of its group; a
 * failed `readOne` fails only its resource. Never throws.
 */
export async function readByGroup<Spec, Live, Key, Group>(
  resources: readonly DesiredResource<Spec>[],
  groupOf: (resource: DesiredResource<Spec>) => Key,
  loadGroup: (key: Key) => Promise<Group>,
  readOne: (
    resource: DesiredResource<Spec>,
    group: Group,
    key: Key,
  ) => LiveRead<Live> | Promise<LiveRead<Live>>,
): Promise<Map<string, LiveRead<Live>>> {
  const out = new Map<string, LiveRead<Live>>();
  await Promise.all(
    [...groupBy(resources, groupOf)].map(async ([key, members]) => {
      let group: Group;
      try {
        group = await loadGroup(key);
      } catch (err) {
        for (const resource of members) out.set(resource.subject, readFailure(resource, err));
        return;
      }
      await Promise.all(
        members.map(async (resource) => {
          try {
            out.set(resource.subject, await readOne(resource, group, key));
          } catch (err) {
            out.set(resource.subject, readFailure(resource, err));
          }
        }),
      );
    }),
  );
  return out;
}

/** readByGroup for resources that hang off a Shield Zone: one listing per zone. */
export function readByZone<Spec extends { shieldZoneId: number }, Live, Zone>(
  resources: readonly DesiredResource<Spec>[],
  loadZone: (zoneId: number) => Promise<Zone>,
  readOne: (
    resource: DesiredResource<Spec>,
    zone: Zone,
    zoneId: number,
  ) => LiveRead<Live> | Promise<LiveRead<Live>>,
): Promise<Map<string, LiveRead<Live>>> {
  return readByGroup(resources, (r) => r.spec.shieldZoneId, loadZone, readOne);
}

/** One read per resource (`readOne` returns the live object); a throw fails only that resource. */
export async function readEach<Spec, Live>(
  resources: readonly DesiredResource<Spec>[],
  readOne: (resource: DesiredResource<Spec>) => Promise<Live>,
): Promise<Map<string, LiveRead<Live>>> {
  const entries = await Promise.all(
    resources.map(async (resource): Promise<[string, LiveRead<Live>]> => {
      try {
        return [resource.subject, found(await readOne(resource))];
      } catch (err) {
        return [resource.subject, readFailure(resource, err)];
      }
    }),
  );
  return new Map(entries);
}
