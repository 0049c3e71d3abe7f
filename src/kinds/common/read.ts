/** Helpers for the read phase of kinds. */
import type { DesiredResource } from '../../config/types.js';
import { ReconcileError, toReconcileError } from '../../errors.js';
import type { LiveRead } from './kind.js';

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
