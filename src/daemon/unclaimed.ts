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
 */
import type { PruneNote } from '../engine/types.js';
import type { Logger } from '../log.js';
import type { DaemonMetrics } from './metrics.js';
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

function keyOf(note: Pick<PruneNote, 'kind' | 'shieldZoneId' | 'id'>): string {
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
}): UnclaimedTracker {
  const known = new Map<string, UnclaimedObject>();
  const now = options.now ?? (() => new Date());

  function publish(): void {
    const all = [...known.values()].sort(byKindZoneId);
    options.status.setUnclaimed(all.slice(0, MAX_SHOWN));
    options.metrics.setUnclaimed(all.length);
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
