/**
 * What a state store keeps, whatever holds it (docs/state.md, The state store). Everything edgesync
 * remembers goes through a `StateBackend`: the state document (inventory, digests and hints,
 * run records, and whatever records other parts add to it), named records kept apart from it
 * (the notifications' memory), the install key, and the writer's lease. The document is opaque
 * here: `src/engine/state.ts` owns its schema, so a field added there is kept by every store.
 */

/** Who holds a lease: what a refused writer is told, and what `/status` shows of a leader. */
export interface LeaseHolder {
  readonly pid: number;
  readonly host: string;
  /** ISO time the holder took the lease. */
  readonly since: string;
  /** `apply`, `run`, `forget`, `state migrate`… */
  readonly command: string;
  /** Unique per acquisition: a lease taken over and taken again is never mistaken for ours. */
  readonly nonce: string;
}

/** A lease this process holds: the right to write the state (and, for `run`, to lead). */
export interface Lease {
  readonly holder: LeaseHolder;
  /**
   * Grows with each acquisition of the store's lease. Every state write carries it, and the
   * store refuses a write whose term is not the current one (a deposed leader's late save).
   */
  readonly term: number;
  /** True while the lease is certainly ours: renewed in time and not taken over. */
  held(): boolean;
  /** Throws LEADER_LOST when `held()` is false: called before each API write. */
  assertHeld(): void;
  /** `listener` is called once, when the lease is found lost (a failed renewal, a dropped session). */
  onLost(listener: (reason: string) => void): void;
  /** Gives the lease up (idempotent); never removes a lease another holder has taken since. */
  release(): Promise<void>;
}

/** How to wait for a lease another holder has. */
export interface AcquireOptions {
  /** `--lock-timeout`: 0 refuses at once, naming the holder. */
  readonly timeoutMs: number;
  /** Told when the lease of a holder that is gone (or no longer renews) was taken over. */
  readonly onTakeover?: (previous: LeaseHolder | undefined, why: string) => void;
  /** Aborts a wait. */
  readonly signal?: AbortSignal;
}

/** A version of the document as read: `text` absent when the store holds none yet. */
export interface DocumentRead {
  readonly text: string | undefined;
  /** Opaque; equal versions mean an equal document (lets a reload skip an unchanged one). */
  readonly version: string;
}

/** A document's text, whole or as pieces that concatenate to it, in order. */
export type DocumentText = string | Iterable<string>;

/** Reads and writes the install key's text (see install-key.ts). */
export interface KeyStorage {
  /** Where it lives, for messages (never the key). */
  readonly location: string;
  /** The stored text, or undefined when there is none. Read-only opens never tighten or write. */
  read(options: { readOnly: boolean }): Promise<string | undefined>;
  /** Under a lease, refused (LEADER_LOST) like a document write once that lease is not current. */
  write(text: string, lease: Lease | undefined): Promise<void>;
}

/** A run request passed from one daemon to the leader of the same store (a standby's webhook). */
export type RelayedTrigger = Readonly<Record<string, string | number | boolean | null>>;

/** How daemons sharing a store pass run requests to whoever leads (docs/state.md, Leadership). */
export interface TriggerRelay {
  /** Sends `trigger` to the current leader, if any; a small record (no request body). */
  send(trigger: RelayedTrigger): Promise<void>;
  /** While `lease` is held, calls `onTrigger` for each trigger relayed to this store. */
  listen(lease: Lease, onTrigger: (trigger: RelayedTrigger) => void): Promise<void>;
}

export interface StateBackend {
  readonly kind: 'file' | 'postgres';
  /** Where the state lives, for messages and logs: a directory, or a URL without its password. */
  readonly location: string;
  /**
   * Reads a consistent snapshot of the document without any lock (`plan` beside a running
   * daemon): the file store renames whole files into place, the database reads one row.
   * With `unlessVersion`, returns undefined when the stored version is that one.
   */
  readDocument(unlessVersion?: string): Promise<DocumentRead | undefined>;
  /**
   * Replaces the document atomically. With a lease, the store refuses the write (LEADER_LOST)
   * when that lease is no longer the current one. Returns the new version. The document may
   * come as its text in pieces (`DocumentText`): the state of 100,000 resources is about 30 MB
   * of JSON, which a store that can write it piece by piece never holds whole.
   */
  writeDocument(text: DocumentText, lease: Lease | undefined): Promise<string>;
  /** Keeps an unreadable document aside (or drops it); returns where, for the warning. */
  setAsideDocument(): Promise<string>;
  /** A named record kept apart from the document (`notify`: the notifications' memory). */
  readRecord(name: string): Promise<string | undefined>;
  writeRecord(name: string, text: string, lease: Lease | undefined): Promise<void>;
  readonly installKey: KeyStorage;
  /** Passes a standby's run requests to the leader; absent where the store cannot (the file store). */
  readonly relay?: TriggerRelay;
  /** Takes the writer's lease, waiting up to `timeoutMs`; throws STATE_LOCKED naming the holder. */
  acquire(command: string, options: AcquireOptions): Promise<Lease>;
  /** The current holder of the lease, if any (for `/status` of a standby and for messages). */
  holder(): Promise<{ holder: LeaseHolder; term: number } | undefined>;
  /** Creates the store's home if needed (a directory; the tables). Read-only opens skip it. */
  prepare(): Promise<void>;
  close(): Promise<void>;
}
