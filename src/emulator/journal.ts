/**
 * The request journal: what the emulator received and answered, so tests can assert exactly
 * what a client sent ("the plan made no writes", "apply sent these three PATCHes").
 * It never holds request headers, so the AccessKey cannot leak through it.
 */
import type { OperationId } from './operations.js';

/** One request and its reply. */
export interface JournalEntry {
  /** 1, 2, 3… in arrival order of completion. */
  readonly seq: number;
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly operation: OperationId;
  /** HTTP status sent; 0 when the connection was dropped on purpose (fault injection). */
  readonly status: number;
  /** Parsed JSON; the raw text when it was not JSON; undefined when there was no body. */
  readonly requestBody: unknown;
  /** The reply body as sent (parsed form); undefined for an empty body or a drop. */
  readonly replyBody: unknown;
  readonly durationMs: number;
  /** Epoch milliseconds (fractional) when the request arrived: what a test compares with a log line's time. */
  readonly receivedAt: number;
}

/** Filter for `count` and `entries`: every given field must match. */
export interface JournalFilter {
  operation?: OperationId;
  method?: string;
  status?: number;
  pathPrefix?: string;
}

/** What the server hands over per request: texts as sent, parsed only when a test reads them. */
export interface JournalRecord {
  method: string;
  path: string;
  rawQuery: string;
  operation: OperationId;
  status: number;
  /** Request body text; undefined when there was none. */
  requestText: string | undefined;
  /** Reply body text as sent; undefined for an empty reply or a drop. */
  replyText: string | undefined;
  durationMs: number;
  /** Epoch milliseconds when the request arrived. */
  receivedAt: number;
}

interface Stored extends JournalRecord {
  seq: number;
  entry?: JournalEntry;
}

function parseBody(text: string | undefined): unknown {
  if (text === undefined || text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Builds the public entry once; bodies are parsed from the recorded text, so later state changes never alter it. */
function materialise(stored: Stored): JournalEntry {
  if (stored.entry === undefined) {
    const query: Record<string, string> = {};
    if (stored.rawQuery !== '') {
      for (const [k, v] of new URLSearchParams(stored.rawQuery)) query[k] = v;
    }
    stored.entry = {
      seq: stored.seq,
      method: stored.method,
      path: stored.path,
      query,
      operation: stored.operation,
      status: stored.status,
      requestBody: parseBody(stored.requestText),
      replyBody: parseBody(stored.replyText),
      durationMs: stored.durationMs,
      receivedAt: stored.receivedAt,
    };
  }
  return stored.entry;
}

function matches(
  entry: JournalEntry,
  filter: JournalFilter | ((entry: JournalEntry) => boolean) | undefined,
): boolean {
  if (filter === undefined) return true;
  if (typeof filter === 'function') return filter(entry);
  if (filter.operation !== undefined && entry.operation !== filter.operation) return false;
  if (filter.method !== undefined && entry.method !== filter.method.toUpperCase()) return false;
  if (filter.status !== undefined && entry.status !== filter.status) return false;
  if (filter.pathPrefix !== undefined && !entry.path.startsWith(filter.pathPrefix)) return false;
  return true;
}

/**
 * An append-only, bounded log. Past `maxEntries` (plus 1/16 slack) the oldest entries are
 * dropped (a long-running demo must not grow without bound); `seq` keeps counting. Recording
 * is cheap (strings already produced for the wire); parsing happens when entries are read.
 */
export class RequestJournal {
  readonly #entries: Stored[] = [];
  readonly #maxEntries: number;
  #seq = 0;
  /** False = record nothing (the throughput benchmark). */
  enabled: boolean;

  constructor(options: { enabled?: boolean; maxEntries?: number } = {}) {
    this.enabled = options.enabled ?? true;
    this.#maxEntries = options.maxEntries ?? 100_000;
  }

  /** Appends a record (no-op when disabled); assigns `seq`. */
  record(record: JournalRecord): void {
    if (!this.enabled) return;
    this.#seq += 1;
    const stored: Stored = record as Stored;
    stored.seq = this.#seq;
    this.#entries.push(stored);
    // Trim in batches: a splice per request on a full journal would cost O(n) every time.
    if (this.#entries.length > this.#maxEntries + Math.max(1, this.#maxEntries >> 4)) {
      this.#entries.splice(0, this.#entries.length - this.#maxEntries);
    }
  }

  /** Entries in order, optionally filtered (a new array; each entry is a snapshot of what was sent). */
  entries(filter?: JournalFilter | ((entry: JournalEntry) => boolean)): JournalEntry[] {
    const out: JournalEntry[] = [];
    for (const stored of this.#entries) {
      const entry = materialise(stored);
      if (matches(entry, filter)) out.push(entry);
    }
    return out;
  }

  /** Entries whose method is not GET: the writes. */
  writes(): JournalEntry[] {
    return this.entries((e) => e.method !== 'GET');
  }

  /** How many entries match. */
  count(filter?: JournalFilter | ((entry: JournalEntry) => boolean)): number {
    if (filter === undefined) return this.#entries.length;
    return this.entries(filter).length;
  }

  /** Forgets every entry (seq keeps counting, so entries stay distinguishable across clears). */
  clear(): void {
    this.#entries.length = 0;
  }
}
