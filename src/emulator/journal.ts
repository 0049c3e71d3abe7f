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
}

/** Filter for `count` and `entries`: every given field must match. */
export interface JournalFilter {
  operation?: OperationId;
  method?: string;
  status?: number;
  pathPrefix?: string;
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
 * An append-only, bounded log. When `maxEntries` is reached the oldest entries are dropped
 * (a long-running demo must not grow without bound); `seq` keeps counting.
 */
export class RequestJournal {
  readonly #entries: JournalEntry[] = [];
  readonly #maxEntries: number;
  #seq = 0;
  /** False = record nothing (the throughput benchmark). */
  enabled: boolean;

  constructor(options: { enabled?: boolean; maxEntries?: number } = {}) {
    this.enabled = options.enabled ?? true;
    this.#maxEntries = options.maxEntries ?? 100_000;
  }

  /** Appends an entry (no-op when disabled); assigns `seq`. */
  record(entry: Omit<JournalEntry, 'seq'>): void {
    if (!this.enabled) return;
    this.#seq += 1;
    this.#entries.push({ seq: this.#seq, ...entry });
    if (this.#entries.length > this.#maxEntries)
      this.#entries.splice(0, this.#entries.length - this.#maxEntries);
  }

  /** Entries in order, optionally filtered (a copy). */
  entries(filter?: JournalFilter | ((entry: JournalEntry) => boolean)): JournalEntry[] {
    return this.#entries.filter((e) => matches(e, filter));
  }

  /** Entries whose method is not GET: the writes. */
  writes(): JournalEntry[] {
    return this.#entries.filter((e) => e.method !== 'GET');
  }

  /** How many entries match. */
  count(filter?: JournalFilter | ((entry: JournalEntry) => boolean)): number {
    let n = 0;
    for (const e of this.#entries) if (matches(e, filter)) n += 1;
    return n;
  }

  /** Forgets every entry (seq keeps counting, so entries stay distinguishable across clears). */
  clear(): void {
    this.#entries.length = 0;
  }
}
