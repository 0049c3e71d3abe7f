/**
 * The state directory: per resource the digest of the desired state last applied (or seen in
 * sync), read hints, and the last 20 reconcile records. It lets edgesync say *why* something
 * differs (desired-changed vs out-of-band). Losing it loses nothing but that label and the
 * hints. Every save writes a temporary file, fsyncs it and renames it over the old one, so a
 * kill -9 at any moment leaves either the old or the new file, never a torn one.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ReconcileError } from '../errors.js';
import {
  ephemeralInstallKey,
  type InstallKey,
  type KeyedDigest,
  openInstallKey,
} from '../secrets/install-key.js';
import { type Inventory, type InventoryEntry, InventorySchema } from './inventory.js';
import type { DriftCause } from './types.js';

export const STATE_FILE = 'state.json';
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
});
export type RunRecord = z.infer<typeof RunRecord>;

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
});
type StateFile = z.infer<typeof StateFileSchema>;

/**
 * Reads any known version and upgrades it. A version-1 file has no inventory: edgesync had
 * created nothing, and its id-pinned documents join the inventory on the next apply.
 */
const AnyStateFile = z
  .discriminatedUnion('version', [StateFileV1, StateFileSchema])
  .transform(
    (file): StateFile => (file.version === 1 ? { ...file, version: STATE_VERSION, inventory: {} } : file),
  );

let lastStampMs = Number.NaN;
let lastStamp = '';

/**
 * The current time as ISO text, built once per millisecond: a reconcile records 10,000
 * resources as in sync within a few milliseconds, and `toISOString` was a tenth of that work.
 */
function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastStampMs) {
    lastStampMs = ms;
    lastStamp = new Date(ms).toISOString();
  }
  return lastStamp;
}

function emptyState(): StateFile {
  return { version: STATE_VERSION, resources: {}, hints: {}, runs: [], inventory: {} };
}

/** What the state store says about a subject's drift. */
export function driftCause(record: ResourceRecord | undefined, desiredDigest: string): DriftCause {
  if (record === undefined) return 'unknown';
  return record.digest === desiredDigest ? 'out-of-band' : 'desired-changed';
}

export interface StateStore {
  readonly dir: string | undefined;
  /** A warning from opening (e.g. an unreadable file that was set aside). */
  readonly warning: string | undefined;
  resource(subject: string): ResourceRecord | undefined;
  /** Every resource record, by subject (`export` looks up what an app's last apply remembered). */
  resources(): Readonly<Record<string, ResourceRecord>>;
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
  inventory(): Readonly<Inventory>;
  /** Records (or, with undefined, forgets) what `subject` owns. */
  setInventory(subject: string, entry: InventoryEntry | undefined): void;
  /** Writes atomically; a no-op for an in-memory store. */
  save(): Promise<void>;
  /** HMAC under the state directory's install key: the only digest of a secret the state may hold. */
  readonly keyedDigest: KeyedDigest;
}

class FileBackedState implements StateStore {
  readonly dir: string | undefined;
  readonly warning: string | undefined;
  readonly keyedDigest: KeyedDigest;
  private readonly key: InstallKey;
  private state: StateFile;

  /** `dir` undefined: nothing is ever written (in-memory or read-only store). */
  constructor(dir: string | undefined, state: StateFile, key: InstallKey, warning?: string) {
    this.dir = dir;
    this.state = state;
    this.key = key;
    this.keyedDigest = key.digest;
    this.warning = [warning, key.warning].filter((w) => w !== undefined).join('; ') || undefined;
  }

  resource(subject: string): ResourceRecord | undefined {
    return this.state.resources[subject];
  }

  resources(): Readonly<Record<string, ResourceRecord>> {
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
    const previous = this.state.resources[subject];
    const keep = remember ?? (previous?.digest === digest ? previous.remember : undefined);
    this.state.resources[subject] = {
      digest,
      at: isoNow(),
      revision,
      ...(keep === undefined ? {} : { remember: { ...keep } }),
    };
  }

  addRun(run: RunRecord): void {
    this.state.runs = [...this.state.runs, run].slice(-MAX_RUN_RECORDS);
  }

  runs(): readonly RunRecord[] {
    return this.state.runs;
  }

  inventory(): Readonly<Inventory> {
    return this.state.inventory;
  }

  setInventory(subject: string, entry: InventoryEntry | undefined): void {
    if (entry === undefined) delete this.state.inventory[subject];
    else this.state.inventory[subject] = { ...entry };
  }

  async save(): Promise<void> {
    if (this.dir === undefined) return;
    // The key first: a record digested with a key that was never written would be lost labels.
    await this.key.persist();
    // Deferred runs are shown while this process lives but never written: a build from before
    // that record existed rejects the file, and would set the inventory aside with it.
    const runs = this.state.runs.filter((run) => run.result !== 'deferred');
    await writeFileAtomic(join(this.dir, STATE_FILE), `${JSON.stringify({ ...this.state, runs })}\n`);
  }
}

/**
 * Writes `content` to `path` through a temporary file, fsync and rename. Any failure (a full
 * disk, a directory in the way, a read-only mount) is STATE_IO, and the temporary file is
 * removed: a failing save retried every run must not fill the state directory.
 */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  const temporary = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    const handle = await open(temporary, 'w', 0o600);
    try {
      await handle.writeFile(content, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (err) {
    await unlink(temporary).catch(() => undefined);
    throw new ReconcileError(
      'STATE_IO',
      `cannot save ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      { cause: err },
    );
  }
}

/**
 * Opens the state in `dir` (created if missing). An unreadable or corrupt file is set aside as
 * `state.json.corrupt-<time>` with a warning: it only costs the drift labels. With `readOnly`
 * (`plan`) nothing is created, moved or saved.
 */
export async function openStateStore(dir: string, options: { readOnly?: boolean } = {}): Promise<StateStore> {
  const readOnly = options.readOnly === true;
  const writableDir = readOnly ? undefined : dir;
  if (!readOnly) {
    try {
      await mkdir(dir, { recursive: true });
    } catch (err) {
      throw new ReconcileError(
        'STATE_IO',
        `cannot create the state directory ${dir}: ${(err as Error).message}`,
        {
          cause: err,
        },
      );
    }
  }
  let key: InstallKey;
  try {
    key = await openInstallKey(dir, { readOnly });
  } catch (err) {
    throw new ReconcileError('STATE_IO', `cannot open the install key in ${dir}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const file = join(dir, STATE_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      return new FileBackedState(writableDir, emptyState(), key);
    if (readOnly)
      return new FileBackedState(
        undefined,
        emptyState(),
        key,
        `cannot read ${file}: drift causes are unknown`,
      );
    throw new ReconcileError('STATE_IO', `cannot read ${file}: ${(err as Error).message}`, { cause: err });
  }
  try {
    return new FileBackedState(writableDir, AnyStateFile.parse(JSON.parse(text)), key);
  } catch {
    if (readOnly) {
      return new FileBackedState(
        undefined,
        emptyState(),
        key,
        `state file ${file} is unreadable: drift causes are unknown`,
      );
    }
    const aside = `${file}.corrupt-${Date.now()}`;
    await rename(file, aside).catch(() => undefined);
    return new FileBackedState(
      dir,
      emptyState(),
      key,
      `state file ${file} was unreadable and was moved to ${aside}`,
    );
  }
}

/** A state store that keeps nothing on disk (`plan` without a state dir, tests). */
export function memoryStateStore(): StateStore {
  return new FileBackedState(undefined, emptyState(), ephemeralInstallKey());
}
