/**
 * The state document and the working copy every run uses: per resource the digest of the
 * desired state last applied (or seen in sync), read hints, the last 20 reconcile records, and
 * the inventory. It lets edgesync say *why* something differs (desired-changed vs out-of-band)
 * and decides what `--prune` may delete. Where it is kept is the state store's business
 * (`src/state/`, docs/state.md): this module owns the schema and never touches a file.
 */
import { stringifyChunked } from '@discoveryjs/json-ext';
import { z } from 'zod';
import { ReconcileError } from '../errors.js';
import type { Lease, StateBackend } from '../state/backend.js';
import {
  ephemeralInstallKey,
  type InstallKey,
  type KeyedDigest,
  openInstallKey,
} from '../state/install-key.js';
import { type Inventory, type InventoryEntry, InventorySchema } from './inventory.js';
import type { DriftCause } from './types.js';

export const MAX_RUN_RECORDS = 20;

const ResourceRecord = z.object({
  digest: z.string(),
  at: z.string(),
  revision: z.string(),
  remember: z.record(z.string(), z.unknown()).optional(),
});
export type ResourceRecord = z.infer<typeof ResourceRecord>;

/** At most this many changes are kept per run record; `changesOmitted` counts the rest. */
export const MAX_RUN_CHANGES = 50;

/** One change a run made or tried: what it did to which resource, and why it failed. */
const RunChange = z.object({
  subject: z.string(),
  action: z.string(),
  outcome: z.string(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});
export type RunChange = z.infer<typeof RunChange>;

const RunRecord = z.object({
  revision: z.string(),
  trigger: z.string(),
  startedAt: z.string(),
  durationMs: z.number(),
  result: z.enum(['success', 'failed', 'invalid', 'deferred']),
  counts: z.record(z.string(), z.number()),
  error: z.string().optional(),
  /** The changes that wrote, were skipped or failed (not the unchanged ones); older records have none. */
  changes: z.array(RunChange).optional(),
  changesOmitted: z.number().optional(),
  /** A partial run (`--only`): the subjects it was limited to. */
  only: z.array(z.string()).optional(),
});
export type RunRecord = z.infer<typeof RunRecord>;

/**
 * What edgesync knows of a resource's rollouts (docs/reconcile.md, Rollout health): how the last
 * one it watched went, the last spec that reached `active` (to roll back to: secrets only as
 * references or keyed digests, `KindRollout.keep`), and a revision rolled back from, which is
 * not applied again until its document changes.
 */
const RolloutRecord = z.object({
  /** `progressing` while watched (or left so by a process that stopped), then the watch's result. */
  status: z.enum(['progressing', 'succeeded', 'failed', 'aborted', 'inactive']),
  /** The API's word for the object when last read (`active`, `failing`, …). */
  health: z.string(),
  at: z.string(),
  revision: z.string(),
  /** The digest of the desired state whose rollout this is. */
  digest: z.string(),
  objectId: z.union([z.string(), z.number()]),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  lastGood: z
    .object({ revision: z.string(), digest: z.string(), at: z.string(), spec: z.unknown() })
    .optional(),
  /** The desired state rolled back from: planned `rolled-back` (not written) while it stays the same. */
  held: z.object({ digest: z.string(), revision: z.string(), at: z.string(), to: z.string() }).optional(),
});
export type RolloutRecord = z.infer<typeof RolloutRecord>;

/** The state file's format version; 2 added the inventory (docs/design.md, Identity). */
export const STATE_VERSION = 2;

const StateFileV1 = z.object({
  version: z.literal(1),
  resources: z.record(z.string(), ResourceRecord),
  hints: z.record(z.string(), z.unknown()),
  runs: z.array(RunRecord),
});

const StateFileSchema = StateFileV1.extend({
  version: z.literal(STATE_VERSION),
  inventory: InventorySchema,
  /** Container apps' rollouts; absent in files from before it (an older build drops it on save). */
  rollouts: z.record(z.string(), RolloutRecord).optional(),
});
type StateFile = z.infer<typeof StateFileSchema>;

/**
 * The state document as a process holds it: the records that grow with the repository (one
 * per resource) in Maps, which V8 keeps in about half the memory of an object used as a
 * dictionary of that size, and which a process keeps for its whole life.
 */
interface HeldState extends Omit<StateFile, 'resources' | 'inventory'> {
  resources: Map<string, ResourceRecord>;
  inventory: Map<string, InventoryEntry>;
}

function held(file: StateFile): HeldState {
  return {
    ...file,
    resources: new Map(Object.entries(file.resources)),
    inventory: new Map(Object.entries(file.inventory)),
  };
}

/** A stored document's text as a held state (throws on a document no version reads). */
function parseDocument(text: string): HeldState {
  return held(AnyStateFile.parse(JSON.parse(text)));
}

/**
 * Reads any known version and upgrades it. A version-1 file has no inventory: edgesync had
 * created nothing, and its id-pinned documents join the inventory on the next apply.
 */
const AnyStateFile = z
  .discriminatedUnion('version', [StateFileV1, StateFileSchema])
  .transform(
    (file): StateFile => (file.version === 1 ? { ...file, version: STATE_VERSION, inventory: {} } : file),
  );

function emptyState(): HeldState {
  return { version: STATE_VERSION, resources: new Map(), hints: {}, runs: [], inventory: new Map() };
}

/** What the state store says about a subject's drift. */
export function driftCause(record: ResourceRecord | undefined, desiredDigest: string): DriftCause {
  if (record === undefined) return 'unknown';
  return record.digest === desiredDigest ? 'out-of-band' : 'desired-changed';
}

export interface StateStore {
  /** Where the state lives (a directory, or a database URL without its password); none in memory. */
  readonly location: string | undefined;
  /** A warning from opening (e.g. an unreadable file that was set aside). */
  readonly warning: string | undefined;
  resource(subject: string): ResourceRecord | undefined;
  /** Every resource record, by subject (`export` looks up what an app's last apply remembered). */
  resources(): ReadonlyMap<string, ResourceRecord>;
  hint(subject: string): unknown;
  setHint(subject: string, hint: unknown): void;
  /** Records that `subject` is in sync with `digest` (applied or found unchanged). */
  markInSync(
    subject: string,
    digest: string,
    revision: string,
    remember?: Readonly<Record<string, unknown>>,
  ): void;
  addRun(run: RunRecord): void;
  runs(): readonly RunRecord[];
  /** The custom rules and lists edgesync created or adopted, by subject (inventory.ts). */
  inventory(): Inventory;
  /** Records (or, with undefined, forgets) what `subject` owns. */
  setInventory(subject: string, entry: InventoryEntry | undefined): void;
  /** What the last watched rollout of `subject` did, and what to roll back to. */
  rollout(subject: string): RolloutRecord | undefined;
  rollouts(): Readonly<Record<string, RolloutRecord>>;
  setRollout(subject: string, record: RolloutRecord | undefined): void;
  /**
   * Writes atomically; a no-op for an in-memory or read-only store. Under a lease, the store
   * refuses the write (LEADER_LOST) once that lease is no longer the current one.
   */
  save(): Promise<void>;
  /**
   * Reads the stored document again when it changed since this copy was read or saved (the
   * daemon, before each run: what it prunes comes from the store, not from memory). Run
   * records only this process keeps (deferred ones) stay.
   */
  reload(): Promise<void>;
  /** HMAC under the state directory's install key: the only digest of a secret the state may hold. */
  readonly keyedDigest: KeyedDigest;
}

class StoredState implements StateStore {
  readonly location: string | undefined;
  readonly warning: string | undefined;
  readonly keyedDigest: KeyedDigest;
  private readonly key: InstallKey;
  private state: HeldState;
  /** The stored version this copy was read or saved as. */
  private version: string | undefined;

  /** `backend` undefined: nothing is ever written (in-memory or read-only store). */
  constructor(
    private readonly backend: StateBackend | undefined,
    private readonly lease: Lease | undefined,
    loaded: { state: HeldState; version: string | undefined },
    key: InstallKey,
    warning?: string,
    /** Where `reload` reads from: the backend, also for a read-only store. */
    private readonly source: StateBackend | undefined = backend,
  ) {
    this.location = (source ?? backend)?.location;
    this.state = loaded.state;
    this.version = loaded.version;
    this.key = key;
    this.keyedDigest = key.digest;
    this.warning = [warning, key.warning].filter((w) => w !== undefined).join('; ') || undefined;
  }

  resource(subject: string): ResourceRecord | undefined {
    return this.state.resources.get(subject);
  }

  resources(): ReadonlyMap<string, ResourceRecord> {
    return this.state.resources;
  }

  hint(subject: string): unknown {
    return this.state.hints[subject];
  }

  setHint(subject: string, hint: unknown): void {
    if (hint === undefined) delete this.state.hints[subject];
    else this.state.hints[subject] = hint;
  }

  markInSync(
    subject: string,
    digest: string,
    revision: string,
    remember?: Readonly<Record<string, unknown>>,
  ): void {
    const previous = this.state.resources.get(subject);
    const keep = remember ?? (previous?.digest === digest ? previous.remember : undefined);
    this.state.resources.set(subject, {
      digest,
      at: isoNow(),
      revision,
      ...(keep === undefined ? {} : { remember: { ...keep } }),
    });
  }

  addRun(run: RunRecord): void {
    this.state.runs = [...this.state.runs, run].slice(-MAX_RUN_RECORDS);
  }

  runs(): readonly RunRecord[] {
    return this.state.runs;
  }

  inventory(): Inventory {
    return this.state.inventory;
  }

  setInventory(subject: string, entry: InventoryEntry | undefined): void {
    if (entry === undefined) this.state.inventory.delete(subject);
    else this.state.inventory.set(subject, { ...entry });
  }

  rollout(subject: string): RolloutRecord | undefined {
    return this.state.rollouts?.[subject];
  }

  rollouts(): Readonly<Record<string, RolloutRecord>> {
    return this.state.rollouts ?? {};
  }

  setRollout(subject: string, record: RolloutRecord | undefined): void {
    const rollouts = this.state.rollouts ?? {};
    if (record === undefined) delete rollouts[subject];
    else rollouts[subject] = record;
    this.state.rollouts = rollouts;
  }

  /** The save in flight: the daemon's rollout watch saves beside its runs, one write at a time. */
  private saving: Promise<void> = Promise.resolve();

  save(): Promise<void> {
    const next = this.saving.then(() => this.write());
    this.saving = next.catch(() => undefined);
    return next;
  }

  private async write(): Promise<void> {
    if (this.backend === undefined) return;
    // The key first: a record digested with a key that was never written would be lost labels.
    await this.key.persist();
    // Deferred runs are shown while this process lives but never written: a build from before
    // that record existed rejects the file, and would set the inventory aside with it.
    const runs = this.state.runs.filter((run) => run.result !== 'deferred');
    this.version = await this.backend.writeDocument(documentText({ ...this.state, runs }), this.lease);
  }

  async reload(): Promise<void> {
    if (this.source === undefined) return;
    const read = await this.source.readDocument(this.version);
    if (read === undefined) return;
    const stored = read.text === undefined ? emptyState() : parseDocument(read.text);
    const deferred = this.state.runs.filter((run) => run.result === 'deferred');
    this.state = { ...stored, runs: mergeRuns(stored.runs, deferred) };
    this.version = read.version;
  }
}

/**
 * The text `JSON.stringify(file)` and a newline would give, in chunks: the store writes them
 * as they come, so a save never holds the whole text (about 30 MB for 100,000 resources, and
 * as much again as bytes). The records that grow with the repository are copied when the save
 * starts (records are replaced, never changed in place), so a change made while the chunks are
 * written is not half in it.
 */
function documentText(file: HeldState): Iterable<string> {
  const snapshot: StateFile = {
    ...file,
    resources: Object.fromEntries(file.resources),
    hints: { ...file.hints },
    inventory: Object.fromEntries(file.inventory),
    ...(file.rollouts === undefined ? {} : { rollouts: { ...file.rollouts } }),
  };
  return (function* chunks() {
    yield* stringifyChunked(snapshot);
    yield '\n';
  })();
}

/**
 * Now as an ISO string, one string per millisecond: a run marks thousands of records in sync
 * within the same few milliseconds, and the store keeps every record's stamp for its whole life.
 */
function isoNow(): string {
  const ms = Date.now();
  if (lastStamp.ms !== ms) lastStamp = { ms, iso: new Date(ms).toISOString() };
  return lastStamp.iso;
}
let lastStamp = { ms: Number.NaN, iso: '' };

/** Stored runs plus this process's deferred ones, in time order, the last MAX_RUN_RECORDS. */
function mergeRuns(stored: readonly RunRecord[], deferred: readonly RunRecord[]): RunRecord[] {
  const all = [...stored, ...deferred].sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  return all.slice(-MAX_RUN_RECORDS);
}

/** How a state store is opened. */
export interface OpenStateOptions {
  /** `plan`: nothing is created, moved or saved, and no lease is needed. */
  readonly readOnly?: boolean;
  /** The writer's lease the saves carry (apply, forget, the daemon's leader). */
  readonly lease?: Lease;
}

/**
 * Opens the state kept by `backend`. An unreadable or corrupt document is set aside with a
 * warning: it costs the drift labels, and pruning is limited while the warning stands. With
 * `readOnly` (`plan`) nothing is created, moved or saved: it reads one consistent snapshot.
 */
export async function openStateStore(
  backend: StateBackend,
  options: OpenStateOptions = {},
): Promise<StateStore> {
  const readOnly = options.readOnly === true;
  const writable = readOnly ? undefined : backend;
  const lease = options.lease;
  if (!readOnly) await backend.prepare();
  let key: InstallKey;
  try {
    key = await openInstallKey(backend.installKey, { readOnly, ...(lease === undefined ? {} : { lease }) });
  } catch (err) {
    // A store's own error (the database's) already names the store and says why; its code is
    // no reason to print in its place.
    if (err instanceof ReconcileError) throw err;
    throw new ReconcileError(
      'STATE_IO',
      `cannot open the install key in ${backend.location}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      { cause: err },
    );
  }
  let read: Awaited<ReturnType<StateBackend['readDocument']>>;
  try {
    read = await backend.readDocument();
  } catch (err) {
    if (!readOnly) throw err;
    const reason = (err as Error).message;
    return new StoredState(
      undefined,
      undefined,
      { state: emptyState(), version: undefined },
      key,
      `${reason}: drift causes are unknown`,
    );
  }
  const version = read?.version;
  if (read?.text === undefined)
    return new StoredState(writable, lease, { state: emptyState(), version }, key, undefined, backend);
  try {
    return new StoredState(
      writable,
      lease,
      { state: parseDocument(read.text), version },
      key,
      undefined,
      backend,
    );
  } catch {
    if (readOnly) {
      return new StoredState(
        undefined,
        undefined,
        { state: emptyState(), version },
        key,
        `the state document in ${backend.location} is unreadable: drift causes are unknown`,
      );
    }
    const aside = await backend.setAsideDocument();
    return new StoredState(
      backend,
      lease,
      { state: emptyState(), version: undefined },
      key,
      `the state document in ${backend.location} was unreadable and was moved to ${aside}`,
    );
  }
}

/** A state store that keeps nothing (`plan` without a state, tests). */
export function memoryStateStore(): StateStore {
  return new StoredState(
    undefined,
    undefined,
    { state: emptyState(), version: undefined },
    ephemeralInstallKey(),
  );
}
