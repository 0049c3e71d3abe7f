/**
 * What the daemon does not prune, kept in view (see docs/daemon.md, Unclaimed objects): a live
 * custom rule or list that no document claims any more and that a run did not delete — `--prune`
 * is off, or a reason kept it (renamed since edgesync wrote it, an unreadable state). Each one is
 * logged once when a run first finds it (`prune.skipped`, with why), listed in `/status`
 * (`unclaimed`) and counted by `edgesync_unclaimed_objects`, until a document claims it again,
 * it is deleted, or it is gone.
 *
 * A full run sees every unclaimed object and replaces the list. A file-change run sees only the
 * objects of the documents it covered (the removed ones among them): it adds what it found and
 * drops the entries of the subjects it covered that it no longer finds.
 *
 * With a `memory` (the state store's `unclaimed` record), the list is kept across restarts:
 * a restarted daemon does not log an object again that a previous one already reported for
 * the same reason, and keeps its `since`.
 */
import { z } from 'zod';
import type { PruneNote } from '../engine/types.js';
import type { Logger } from '../log.js';
import type { DaemonMetrics } from './metrics.js';
import { type RecordMemory, recordWriter } from './remembered-record.js';
import type { StatusTracker, UnclaimedObject } from './status.js';

/** Objects listed in `/status`: a prune of thousands stays a small document. */
const MAX_SHOWN = 100;

export interface UnclaimedTracker {
  /**
   * The not-pruned notes of a run's plan: `full`, or the subjects a file-change run covered
   * (its documents and the removed ones).
   */
  observe(notes: readonly PruneNote[], scope: 'full' | ReadonlySet<string>): void;
}

/** The record as saved: the objects already reported (names and ids only, never a value). */
const RememberedUnclaimed = z.array(
  z.object({
    kind: z.string(),
    shieldZoneId: z.number().optional(),
    id: z.union([z.number(), z.string()]),
    key: z.string(),
    subject: z.string().optional(),
    reason: z.string(),
    since: z.string(),
  }),
);

/** The objects a previous daemon reported; none when there is no record or it is unreadable. */
function remembered(memory: RecordMemory | undefined, logger: Logger): UnclaimedObject[] {
  if (memory?.initial === undefined) return [];
  try {
    return RememberedUnclaimed.parse(JSON.parse(memory.initial)).map((entry) => ({
      kind: entry.kind,
      ...(entry.shieldZoneId === undefined ? {} : { shieldZoneId: entry.shieldZoneId }),
      id: entry.id,
      key: entry.key,
      ...(entry.subject === undefined ? {} : { subject: entry.subject }),
      reason: entry.reason,
      since: entry.since,
    }));
  } catch {
    logger.warn(
      { event: 'unclaimed.state-unreadable', reason: 'not an unclaimed record' },
      'the unclaimed objects will be reported again',
    );
    return [];
  }
}

function keyOf(note: Pick<UnclaimedObject, 'kind' | 'shieldZoneId' | 'id'>): string {
  return `${note.kind}/${note.shieldZoneId ?? ''}/${note.id}`;
}

function byKindZoneId(a: UnclaimedObject, b: UnclaimedObject): number {
  const ka = `${a.kind}/${String(a.shieldZoneId ?? '').padStart(12, '0')}/${String(a.id).padStart(16, '0')}`;
  const kb = `${b.kind}/${String(b.shieldZoneId ?? '').padStart(12, '0')}/${String(b.id).padStart(16, '0')}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

export function createUnclaimedTracker(options: {
  readonly logger: Logger;
  readonly status: Pick<StatusTracker, 'setUnclaimed'>;
  readonly metrics: Pick<DaemonMetrics, 'setUnclaimed'>;
  readonly now?: () => Date;
  /** The state store's `unclaimed` record; none: the list lives in memory only. */
  readonly memory?: RecordMemory;
}): UnclaimedTracker {
  const known = new Map(remembered(options.memory, options.logger).map((entry) => [keyOf(entry), entry]));
  const now = options.now ?? (() => new Date());
  const writer =
    options.memory === undefined
      ? undefined
      : recordWriter(options.memory, options.logger, 'unclaimed.state-save-failed');

  // A state directory gets the record only once something was unclaimed.
  let recorded = options.memory?.initial !== undefined;

  function publish(): void {
    const all = [...known.values()].sort(byKindZoneId);
    options.status.setUnclaimed(all.slice(0, MAX_SHOWN));
    options.metrics.setUnclaimed(all.length);
    if (all.length === 0 && !recorded) return;
    recorded = true;
    writer?.save(all);
  }

  return {
    observe(notes, scope) {
      const found = new Map(notes.map((note) => [keyOf(note), note]));
      for (const [key, entry] of known) {
        if (found.has(key)) continue;
        const covered = scope === 'full' || (entry.subject !== undefined && scope.has(entry.subject));
        if (covered) known.delete(key);
      }
      for (const [key, note] of found) {
        const before = known.get(key);
        const entry: UnclaimedObject = {
          kind: note.kind,
          ...(note.shieldZoneId === undefined ? {} : { shieldZoneId: note.shieldZoneId }),
          id: note.id,
          key: note.key,
          ...(note.subject === undefined ? {} : { subject: note.subject }),
          reason: note.reason,
          since: before?.since ?? now().toISOString(),
        };
        known.set(key, entry);
        if (before !== undefined && before.reason === note.reason) continue;
        options.logger.info(
          {
            event: 'prune.skipped',
            kind: note.kind,
            ...(note.shieldZoneId === undefined ? {} : { shieldZoneId: note.shieldZoneId }),
            id: note.id,
            key: note.key,
            ...(note.subject === undefined ? {} : { subject: note.subject }),
            reason: note.reason,
          },
          'an object no document claims is not pruned',
        );
      }
      publish();
    },
  };
}
