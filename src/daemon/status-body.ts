/**
 * `GET /status`: the document written to the response in parts of RECORDS_PER_PART resources
 * as they are serialised, from a snapshot taken when the request came (records are replaced,
 * never changed, so the snapshot holds still while the client reads). No copy of the whole
 * document is ever made or kept: for 100,000 resources it is about 25 MB of JSON.
 *
 * Its tag comes from what changes it — the tracker's writes and the run records — so an
 * unchanged document answers 304 without being serialised (the status page polls every 2 s).
 */
import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { RunRecord } from '../engine/state.js';
import type { StatusTracker } from './status.js';
import { type ResourceRecord, statusOf } from './status-resources.js';

/** Resources per part of the body: ~25 KB of JSON each. */
const RECORDS_PER_PART = 100;

/** The `/status` document as the HTTP server serves it. */
export interface StatusBody {
  /** The same for the same document within this process; another process never gives it. */
  etag(): string;
  /** The document and a newline, serialised part by part as the client reads it. */
  stream(): Readable;
}

function* parts(head: object, records: readonly ResourceRecord[]): Generator<string> {
  // `resources` is the document's last key: the head's JSON without its closing brace.
  yield `${JSON.stringify(head).slice(0, -1)},"resources":[`;
  for (let start = 0; start < records.length; start += RECORDS_PER_PART) {
    const json = records
      .slice(start, start + RECORDS_PER_PART)
      .map((record) => JSON.stringify(statusOf(record)))
      .join(',');
    yield start === 0 ? json : `,${json}`;
  }
  yield ']}\n';
}

export function createStatusBody(tracker: StatusTracker, runs: () => readonly RunRecord[]): StatusBody {
  // A tag of this process: the counts below start again at every start.
  const boot = randomUUID();
  let runsSeen = runs();
  let runsVersion = 0;
  return {
    etag() {
      const current = runs();
      if (current !== runsSeen) {
        runsSeen = current;
        runsVersion += 1;
      }
      const version = `${boot}:${tracker.writes}:${runsVersion}`;
      return `"${createHash('sha256').update(version).digest('base64url').slice(0, 22)}"`;
    },
    stream() {
      const { head, records } = tracker.snapshot(runs());
      return Readable.from(parts(head, records), { objectMode: false });
    },
  };
}
