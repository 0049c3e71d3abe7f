/**
 * The bytes of `GET /status`, kept in pieces so that a change re-serialises only the records
 * it replaced (see `createStatusBody`).
 */
import type { RunRecord } from '../engine/state.js';
import type { StatusTracker } from './status.js';
import type { ResourceStatus } from './status-document.js';

/** Resources per piece of the `/status` body: ~25 KB of JSON each. */
const RESOURCES_PER_PIECE = 100;

/** The JSON of some resources of the list, with the comma before them unless they are first. */
function piece(members: readonly ResourceStatus[], first: boolean): Buffer {
  const json = members.map((member) => JSON.stringify(member)).join(',');
  return Buffer.from(first ? json : `,${json}`);
}

/**
 * The bytes of `GET /status`, in pieces, serialised again only when the status or the run
 * records changed, and then only the pieces whose resources changed: the head (everything
 * but `resources`), and each run of `RESOURCES_PER_PIECE` resources whose records are all the
 * same objects as last time is reused. Concatenated, the pieces are
 * `JSON.stringify(tracker.document(runs))` and a newline.
 *
 * Why: with 10,000 resources the document is ~2.5 MB. Serialised whole for every request, a
 * client polling every 20 ms took the daemon from 183 to 227 MB of RSS in 8 s. Serialised
 * whole once per change, the same client still cost a Node 24 daemon ~20 MB over 12
 * triggered runs (194 → 212–215 MB): a run writes the status many times, and every copy
 * was a large string that only a full collection frees. A run that changes one resource now
 * costs one 25 KB piece and the head.
 */
export function createStatusBody(
  tracker: StatusTracker,
  runs: () => readonly RunRecord[],
): () => readonly Buffer[] {
  let cached: { writes: number; runs: readonly RunRecord[]; pieces: readonly Buffer[] } | undefined;
  let groups: ReadonlyArray<{ members: readonly ResourceStatus[]; bytes: Buffer }> = [];
  const tail = Buffer.from(']}\n');
  return () => {
    const current = runs();
    if (cached?.writes === tracker.writes && cached.runs === current) return cached.pieces;
    const { head, resources } = tracker.snapshot(current);
    // `resources` is the document's last key: the head's JSON without its closing brace.
    const pieces: Buffer[] = [Buffer.from(`${JSON.stringify(head).slice(0, -1)},"resources":[`)];
    const next: Array<{ members: readonly ResourceStatus[]; bytes: Buffer }> = [];
    for (let start = 0; start < resources.length; start += RESOURCES_PER_PIECE) {
      const members = resources.slice(start, start + RESOURCES_PER_PIECE);
      // Same position, so the same leading comma or none.
      const previous = groups[next.length];
      const same =
        previous !== undefined &&
        previous.members.length === members.length &&
        members.every((member, i) => member === previous.members[i]);
      const bytes = same ? previous.bytes : piece(members, start === 0);
      next.push({ members, bytes });
      pieces.push(bytes);
    }
    pieces.push(tail);
    groups = next;
    cached = { writes: tracker.writes, runs: current, pieces };
    return pieces;
  };
}
