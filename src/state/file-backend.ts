/**
 * The `file` store: one state directory (docs/state.md, The file store). `state.json` holds
 * the document, `notify.json` the notifications' memory, `install.key` the install key, and
 * `edgesync.lock` the writer's lease (file-lease.ts). Every save writes a temporary file,
 * fsyncs it and renames it over the old one, so a kill -9 at any moment leaves either the old
 * or the new file, never a torn one, and a reader without the lock always reads a whole file.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ReconcileError } from '../errors.js';
import type {
  AcquireOptions,
  DocumentRead,
  DocumentText,
  KeyStorage,
  Lease,
  StateBackend,
} from './backend.js';
import {
  acquireFileLease,
  DEFAULT_LEASE_MS,
  fileLeaseHolder,
  fileLeaseIsCurrent,
  fileLeaseTiming,
} from './file-lease.js';
import { leaseLost } from './lease.js';

export const STATE_FILE = 'state.json';
export const INSTALL_KEY_FILE = 'install.key';
/** Named records and their files; a name not listed here is refused (no path from a caller). */
const RECORD_FILES: Readonly<Record<string, string>> = {
  notify: 'notify.json',
  unclaimed: 'unclaimed.json',
};

/**
 * Writes `content` to `path` through a temporary file, fsync and rename. Any failure (a full
 * disk, a directory in the way, a read-only mount) is STATE_IO, and the temporary file is
 * removed: a failing save retried every run must not fill the state directory. Content in
 * pieces is written piece by piece, so neither it nor its bytes are ever held whole.
 */
export async function writeFileAtomic(path: string, content: DocumentText, mode = 0o600): Promise<void> {
  const temporary = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    const handle = await open(temporary, 'wx', mode);
    try {
      await writeFile(handle, content, 'utf8');
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

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ReconcileError(
      'STATE_IO',
      `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      { cause: err },
    );
  }
}

function recordFile(name: string): string {
  const file = RECORD_FILES[name];
  if (file === undefined) throw new ReconcileError('INTERNAL', `no state record named ${name}`);
  return file;
}

/** The file store over directory `dir`; `leaseMs` is `--lease-seconds` in milliseconds. */
export function fileBackend(dir: string, options: { leaseMs?: number } = {}): StateBackend {
  const timing = fileLeaseTiming(options.leaseMs ?? DEFAULT_LEASE_MS);
  const documentPath = join(dir, STATE_FILE);
  const keyPath = join(dir, INSTALL_KEY_FILE);
  /** The store refuses a save under a lease that is no longer the lock's: see file-lease.ts. */
  const assertCurrent = (lease: Lease | undefined): void => {
    if (lease !== undefined && !fileLeaseIsCurrent(dir, lease)) {
      throw leaseLost(`the lock of ${dir} is no longer this process's (term ${lease.term})`);
    }
  };
  const installKey: KeyStorage = {
    location: keyPath,
    async read({ readOnly }) {
      let text: string | undefined;
      try {
        text = await readFile(keyPath, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT' || readOnly) return undefined;
        throw err;
      }
      if (!readOnly && ((await stat(keyPath)).mode & 0o077) !== 0) await chmod(keyPath, 0o600);
      return text;
    },
    async write(text, lease) {
      assertCurrent(lease);
      await writeFileAtomic(keyPath, text, 0o600);
    },
  };
  return {
    kind: 'file',
    location: dir,
    async readDocument(unlessVersion) {
      let version: string;
      try {
        const stats = await stat(documentPath);
        version = `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
          throw new ReconcileError(
            'STATE_IO',
            `cannot read ${documentPath}: ${(err as NodeJS.ErrnoException).code}`,
            {
              cause: err,
            },
          );
        }
        version = 'none';
      }
      if (unlessVersion !== undefined && unlessVersion === version) return undefined;
      const text = version === 'none' ? undefined : await readIfExists(documentPath);
      return { text, version } satisfies DocumentRead;
    },
    async writeDocument(text, lease) {
      assertCurrent(lease);
      await writeFileAtomic(documentPath, text);
      const stats = await stat(documentPath);
      return `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
    },
    async setAsideDocument() {
      const aside = `${documentPath}.corrupt-${Date.now()}`;
      await rename(documentPath, aside).catch(() => undefined);
      return aside;
    },
    readRecord: (name) => readIfExists(join(dir, recordFile(name))),
    async writeRecord(name, text, lease) {
      assertCurrent(lease);
      await writeFileAtomic(join(dir, recordFile(name)), text);
    },
    installKey,
    acquire: (command, acquireOptions: AcquireOptions) =>
      acquireFileLease(dir, command, acquireOptions, timing),
    holder: async () => fileLeaseHolder(dir),
    async prepare() {
      try {
        await mkdir(dir, { recursive: true });
      } catch (err) {
        throw new ReconcileError(
          'STATE_IO',
          `cannot create the state directory ${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
          { cause: err },
        );
      }
    },
    close: async () => undefined,
  };
}
