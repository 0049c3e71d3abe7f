/**
 * The file side of loading: finding the YAML files of a config directory and reading them,
 * or the files they name, under the limits that protect against hostile or broken input
 * (size cap, symlinks leaving the directory, bytes that are not UTF-8).
 *
 * Everything is read from the directory's real path, resolved once per load: a git-sync
 * sidecar publishes revisions by swapping a symlink, and one load must not mix two of them.
 */
import { type BigIntStats, type Dirent, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { sha256Hex } from '../domain/checksum.js';
import { ReconcileError } from '../errors.js';
import { confinedPath, hiddenTargetProblem, isInside } from './confine.js';
import { fileIssue } from './issues.js';
import type { ConfigIssue } from './types.js';

/** Limits applied to every file read. */
export interface LoaderLimits {
  /** Largest file read, in bytes (YAML and entriesFile alike). */
  readonly maxFileBytes: number;
  /** Most alias expansions per anchor in a document (yaml's maxAliasCount); beyond it the document is refused. */
  readonly maxAliasCount: number;
  /** Most collections nested in one another in a document; a deeper one is refused before it is parsed. */
  readonly maxDepth: number;
  /** Nodes (scalars, collections, aliases) per file: refused unparsed above it (depth.ts). */
  readonly maxNodes: number;
  /** YAML documents per file: refused unparsed above it. */
  readonly maxDocuments: number;
}

/** 4 MiB per file, yaml's own default of 100 aliases, and 64 levels (far beyond any real document). */
export const DEFAULT_LIMITS: LoaderLimits = {
  maxFileBytes: 4 * 1024 * 1024,
  maxAliasCount: 100,
  maxDepth: 64,
  // A 50,000-entry access list is about 50,000 nodes; a flow list of 250,000 items in 500 KB,
  // or a million empty documents, took the parser past a container's heap.
  maxNodes: 200_000,
  maxDocuments: 20_000,
};

const YAML_FILE = /\.ya?ml$/;

function errnoCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : undefined;
}

/** Failures of the machine, not of the files: a later read may well succeed. */
const TRANSIENT_IO = new Set(['EMFILE', 'ENFILE', 'EIO', 'EAGAIN', 'ENOMEM', 'EBUSY']);

/**
 * Throws CONFIG_IO (retried) for a transient I/O failure: reporting too many open files as
 * an invalid config would stall the daemon on files that are fine.
 */
function throwIfTransient(err: unknown, path: string): void {
  const code = errnoCode(err);
  if (code !== undefined && TRANSIENT_IO.has(code)) {
    throw new ReconcileError('CONFIG_IO', `cannot read ${path}: ${code}`, { cause: err });
  }
}

/** The config directory's real path and its top-level entries, read once for both purposes. */
export interface ConfigRoot {
  readonly path: string;
  readonly entries: readonly Dirent[];
}

/**
 * The real path of the config directory. A missing or unreadable directory, or a path that
 * is not a directory, is CONFIG_INVALID: it must never read as "nothing is desired". Its
 * entries are kept: listing them is what proves it readable, and the walk starts from them.
 */
export function resolveConfigRoot(configDir: string): ConfigRoot {
  try {
    const path = realpathSync(configDir);
    if (!statSync(path).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    return { path, entries: readdirSync(path, { withFileTypes: true }) };
  } catch (err) {
    throwIfTransient(err, configDir);
    const code = errnoCode(err);
    const reason =
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'ENOTDIR'
          ? 'is not a directory'
          : code === 'EACCES' || code === 'EPERM'
            ? 'cannot be read (permission denied)'
            : `cannot be read (${code ?? String(err)})`;
    const issue = fileIssue('.', `the config directory ${reason}`);
    throw new ReconcileError('CONFIG_INVALID', `config directory ${configDir} ${reason}`, {
      details: { issues: [issue] },
      cause: err,
    });
  }
}

/** The YAML files found under a config root, and the problems met on the way. */
export interface ConfigFileList {
  /** Paths relative to the root with `/` separators, sorted. */
  readonly files: readonly string[];
  readonly issues: readonly ConfigIssue[];
}

/**
 * Walks `root` recursively for `*.yaml` / `*.yml`, skipping every file and folder whose name
 * starts with `.` (`.git`, `.emulator`, editor swap files). Symlinks are followed while they
 * stay inside the root and out of its dot-folders; one that leaves them is reported and not read. A folder reached twice
 * through symlinks is walked once.
 */
export function listConfigFiles(configRoot: ConfigRoot): ConfigFileList {
  const root = configRoot.path;
  const files: string[] = [];
  const issues: ConfigIssue[] = [];
  const visited = new Set<string>([root]);

  function walk(absDir: string, relDir: string, listed?: readonly Dirent[]): void {
    let entries: Dirent[];
    try {
      entries = listed === undefined ? readdirSync(absDir, { withFileTypes: true }) : [...listed];
    } catch (err) {
      throwIfTransient(err, absDir);
      issues.push(
        fileIssue(relDir === '' ? '.' : relDir, `folder cannot be read (${errnoCode(err) ?? err})`),
      );
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const abs = join(absDir, entry.name);
      const rel = relDir === '' ? entry.name : `${relDir}/${entry.name}`;
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      let realDir = abs;
      if (entry.isSymbolicLink()) {
        let real: string;
        try {
          real = realpathSync(abs);
        } catch {
          if (YAML_FILE.test(entry.name)) issues.push(fileIssue(rel, 'is a symlink to nothing (dangling)'));
          continue;
        }
        const stat = statSync(real);
        if (!isInside(root, real)) {
          // Only what the walk would read is refused loudly; other files are never read here
          // (an entriesFile that leaves is reported where it is named).
          if (stat.isDirectory() || YAML_FILE.test(entry.name)) {
            issues.push(fileIssue(rel, 'is a symlink that leaves the config directory; refused'));
          }
          continue;
        }
        // A link inside the root may still lead into a dot-folder the walk skips by name.
        const hidden = hiddenTargetProblem(root, real);
        if (hidden !== undefined) {
          if (stat.isDirectory() || YAML_FILE.test(entry.name)) issues.push(fileIssue(rel, hidden));
          continue;
        }
        isDir = stat.isDirectory();
        isFile = stat.isFile();
        realDir = real;
      }
      if (isDir) {
        if (visited.has(realDir)) continue;
        visited.add(realDir);
        walk(abs, rel);
      } else if (isFile && YAML_FILE.test(entry.name)) {
        files.push(rel);
      }
    }
  }

  walk(root, '', configRoot.entries);
  files.sort();
  return { files, issues };
}

/** How long after its last change a file's stat is not trusted to reveal the next change. */
const RACY_WINDOW_MS = 2000;

/** One stat of a file, with the bigint times statKey needs; undefined when it cannot be stat'ed. */
export function statFile(absPath: string): BigIntStats | undefined {
  try {
    return statSync(absPath, { bigint: true });
  } catch {
    return undefined;
  }
}

/**
 * Identity of a file's current version as the file system sees it (device, inode, size,
 * modification and change times in ns). The loader reads a file again only when this
 * changed; whether it must be parsed again is then decided by its bytes. Undefined when
 * the file could not be stat'ed (`statFile` gave nothing) or changed too recently for its
 * stat to be trusted.
 */
export function statKey(stats: BigIntStats | undefined): string | undefined {
  if (stats === undefined) return undefined;
  // File times advance in coarse ticks: a file written twice within one tick, with the same
  // size, keeps its key. So a file changed in the last two seconds gets no key yet and is
  // compared by its bytes (git's "racily clean" rule).
  if (Date.now() - Number(stats.mtimeMs) < RACY_WINDOW_MS) return undefined;
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
}

/** Bytes of a file, or why they could not be had. */
export type ReadOutcome = { readonly bytes: Buffer } | { readonly error: string };

/**
 * Reads a file of the config directory, refusing anything over `maxFileBytes` before reading
 * it. `stats`, when the caller has them, saves a second stat of the same file.
 */
export function readLimited(absPath: string, maxFileBytes: number, stats?: BigIntStats): ReadOutcome {
  try {
    const size = stats === undefined ? statSync(absPath).size : Number(stats.size);
    if (size > maxFileBytes) return { error: tooLarge(size, maxFileBytes) };
    const bytes = readFileSync(absPath);
    // The file may have grown between stat and read.
    if (bytes.length > maxFileBytes) return { error: tooLarge(bytes.length, maxFileBytes) };
    return { bytes };
  } catch (err) {
    throwIfTransient(err, absPath);
    return { error: `cannot be read (${errnoCode(err) ?? String(err)})` };
  }
}

function tooLarge(size: number, max: number): string {
  return `is ${size} bytes, over the limit of ${max} bytes per file`;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Text of UTF-8 bytes (a BOM is dropped), or the 1-based line and column of the first bad byte. */
export type DecodeOutcome =
  | { readonly text: string }
  | { readonly line: number; readonly col: number; readonly byte: number };

/** Decodes strictly: a file that is not UTF-8 is reported, never read with replacement characters. */
export function decodeUtf8(bytes: Uint8Array): DecodeOutcome {
  try {
    return { text: utf8.decode(bytes) };
  } catch {
    const offset = firstInvalidUtf8(bytes);
    const lineStart = bytes.lastIndexOf(0x0a, offset - 1) + 1;
    let line = 1;
    for (let i = 0; i < lineStart; i += 1) if (bytes[i] === 0x0a) line += 1;
    const col = utf8.decode(bytes.subarray(lineStart, offset)).length + 1;
    return { line, col, byte: bytes[offset] ?? 0 };
  }
}

/** Offset of the first byte that breaks UTF-8 (only called once decoding has failed). */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] as number;
    const need =
      b < 0x80
        ? 0
        : b >= 0xc2 && b <= 0xdf
          ? 1
          : b >= 0xe0 && b <= 0xef
            ? 2
            : b >= 0xf0 && b <= 0xf4
              ? 3
              : -1;
    if (need < 0) return i;
    if (need > 0) {
      try {
        utf8.decode(bytes.subarray(i, i + need + 1));
      } catch {
        return i;
      }
    }
    i += need + 1;
  }
  return bytes.length;
}

/** Message for bytes that are not UTF-8, naming the first bad byte. */
export function notUtf8Message(byte: number): string {
  return `is not valid UTF-8 (byte 0x${byte.toString(16).padStart(2, '0')}); save it as UTF-8`;
}

/** A file named by a document (an entriesFile), read under the same rules as the YAML itself. */
export type RelativeRead =
  | {
      readonly file: string;
      readonly text: string;
      readonly digest: string;
      readonly stat: string | undefined;
    }
  | { readonly file: string | undefined; readonly error: string };

/**
 * Reads `relativePath`, named in the YAML file `fromFile` (both relative to `root`), confined
 * to the root (`confinedPath`: never outside it, never through a dot-name): such a path, a
 * missing file, a file over the size cap or one that is not UTF-8 is an error. `file` is the path relative to the
 * root when there is one, so the loader can watch it for changes.
 */
export function readRelativeFile(
  root: string,
  fromFile: string,
  relativePath: string,
  maxFileBytes: number,
): RelativeRead {
  const confined = confinedPath(root, resolve(root, dirname(fromFile)), relativePath, 'this YAML file');
  if ('error' in confined) return confined;
  const { file, real } = confined;
  const stats = statSync(real, { bigint: true });
  if (!stats.isFile()) return { file, error: `${file} is not a file` };
  const stat = statKey(stats);
  const read = readLimited(real, maxFileBytes, stats);
  if ('error' in read) return { file, error: `${file} ${read.error}` };
  const decoded = decodeUtf8(read.bytes);
  if (!('text' in decoded)) {
    return {
      file,
      error: `${file} ${notUtf8Message(decoded.byte)} at line ${decoded.line}, column ${decoded.col}`,
    };
  }
  return { file, text: decoded.text, digest: sha256Hex(read.bytes), stat };
}
