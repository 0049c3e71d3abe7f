/**
 * A YAML file as the loader caches it: the results of its documents (`FileResult`), the
 * `---` pieces it was split into (by the digest of their text), and what a changed file may
 * reuse of its previous parse — the pieces whose text did not change, moved to their new
 * lines, as long as the files they read (entriesFile) read the same.
 */

import { hash } from 'node:crypto';
import { join } from 'node:path';
import type { DocumentKeys } from './document-keys.js';
import { type LoaderLimits, readRelativeFile, statFile, statKey } from './files.js';
import type { ConfigIssue, DesiredResource, SourceLocation } from './types.js';

/**
 * What a load keeps of one document, valid or not: where it starts, its resource when it has
 * no error at all, and what the cross-document rules compare (document-keys.ts).
 */
export interface DocumentResult {
  /** Where the document starts (its first key). */
  readonly source: SourceLocation;
  /** Set only when the document has no error at all; its keys are derived from it. */
  readonly resource?: DesiredResource;
  /**
   * Set for a document with errors whose kind and metadata.name are valid (names must stay
   * unique even then): its keys as found, the target and the others when its spec is valid.
   */
  readonly keys?: DocumentKeys;
  /**
   * Set with `resource` or `keys`: the line and column of each key, in `keyPaths` order
   * (plain numbers, not a location object per key: the daemon keeps every document).
   */
  readonly places?: readonly number[];
}

/** A file another file read (an entriesFile): re-read on reload, the cached result is reused only if it reads the same. */
export interface FileDependency {
  /** The YAML file that named it and the path as written, to read it again the same way. */
  readonly fromFile: string;
  readonly relativePath: string;
  /** Path relative to the config root, when it has one. */
  readonly file: string | undefined;
  /** SHA-256 of the bytes read, or `error:<message>` when the read failed. */
  readonly fingerprint: string;
  /** statKey of the file read, when it was read: unchanged means no need to read it again. */
  readonly stat: string | undefined;
}

/** Everything one YAML file contributes to a load. */
export interface FileResult {
  readonly file: string;
  readonly documents: readonly DocumentResult[];
  /** Errors and warnings of this file alone (syntax, schema, entriesFile), unsorted. */
  readonly issues: readonly ConfigIssue[];
  readonly dependencies: readonly FileDependency[];
  /** How the file was split, so its next parse can reuse unchanged documents. */
  readonly chunks: ChunkTable;
}

/**
 * One `---`-delimited piece of a file and how many results of each list it produced. The
 * piece is known by the digest of its text: the cache keeps no file's text or bytes.
 */
export interface ChunkInfo {
  readonly digest: string;
  /** 0-based line where the chunk starts. */
  readonly line: number;
  readonly documents: number;
  readonly issues: number;
  readonly dependencies: number;
}

/** Bytes of a piece digest (SHA-256), one character each in its `binary` text form. */
const DIGEST_CHARS = 32;
/** Numbers per chunk in a ChunkTable: line, documents, issues, dependencies. */
const CHUNK_FIELDS = 4;

/**
 * A file's ChunkInfo list packed into one string of digests and one array of small numbers.
 * The daemon keeps one chunk per document for its whole life; as objects, each chunk cost an
 * object and a string of its own besides its 32 digest bytes and four numbers.
 */
export class ChunkTable implements Iterable<ChunkInfo> {
  private constructor(
    private readonly digests: string,
    private readonly numbers: readonly number[],
  ) {}

  static of(chunks: readonly ChunkInfo[]): ChunkTable {
    // Sized once: an array grown by push keeps spare room, and this one is kept.
    const numbers = new Array<number>(chunks.length * CHUNK_FIELDS);
    for (const [i, chunk] of chunks.entries()) {
      // The packed layout finds each digest by its place: one of another length would shift
      // every digest after it.
      if (chunk.digest.length !== DIGEST_CHARS)
        throw new Error(`a piece digest has ${chunk.digest.length} characters, not ${DIGEST_CHARS}`);
      const at = i * CHUNK_FIELDS;
      numbers[at] = chunk.line;
      numbers[at + 1] = chunk.documents;
      numbers[at + 2] = chunk.issues;
      numbers[at + 3] = chunk.dependencies;
    }
    return new ChunkTable(chunks.map((chunk) => chunk.digest).join(''), numbers);
  }

  *[Symbol.iterator](): Iterator<ChunkInfo> {
    for (let at = 0, i = 0; at < this.numbers.length; at += CHUNK_FIELDS, i += 1) {
      yield {
        digest: this.digests.slice(i * DIGEST_CHARS, (i + 1) * DIGEST_CHARS),
        line: this.numbers[at] as number,
        documents: this.numbers[at + 1] as number,
        issues: this.numbers[at + 2] as number,
        dependencies: this.numbers[at + 3] as number,
      };
    }
  }
}

/** The previous parse of the same file, whose unchanged documents may be reused. */
export interface PreviousParse {
  readonly result: FileResult;
  /** The load's check of `result.dependencies`, shared with the loader so each is read once. */
  readonly dependencyUnchanged: DependencyCheck;
}

export interface Chunk {
  readonly text: string;
  readonly offset: number;
  readonly line: number;
  /** SHA-256 of `text`: what a later parse of the file finds the chunk's results by (`pieceDigest`). */
  readonly digest: string;
}

/**
 * A piece's digest: SHA-256 as 32 one-byte characters (`binary`, that is latin1), its most
 * compact text form (the daemon keeps one per document for its whole life, in a ChunkTable,
 * and it is only ever compared with another, never shown).
 */
function pieceDigest(text: string): string {
  return hash('sha256', text, 'binary');
}

const DOCUMENT_START = /^---(?=[ \t\r\n]|$)/gm;

/**
 * Splits a file at its `---` lines. A document marker at the start of a line ends any YAML
 * construct, so each piece parses alone exactly as it does within the file. Directives
 * (`%YAML`, `%TAG`) apply across the marker that follows them: such a file stays whole.
 */
export function splitDocuments(text: string): Chunk[] {
  if (/^%/m.test(text)) return [{ text, offset: 0, line: 0, digest: pieceDigest(text) }];
  const starts = [0];
  for (const match of text.matchAll(DOCUMENT_START)) if (match.index > 0) starts.push(match.index);
  const chunks: Chunk[] = [];
  let line = 0;
  for (const [i, offset] of starts.entries()) {
    const end = starts[i + 1] ?? text.length;
    const piece = text.slice(offset, end);
    chunks.push({ text: piece, offset, line, digest: pieceDigest(piece) });
    for (let at = text.indexOf('\n', offset); at !== -1 && at < end; at = text.indexOf('\n', at + 1))
      line += 1;
  }
  return chunks;
}

export function shiftLocation<T extends { readonly line: number }>(location: T, delta: number): T {
  return { ...location, line: location.line + delta };
}

/** A reused document's results, moved by `delta` lines. */
export function shiftDocument(doc: DocumentResult, delta: number): DocumentResult {
  if (delta === 0) return doc;
  const source = shiftLocation(doc.source, delta);
  return {
    source,
    ...(doc.resource && { resource: { ...doc.resource, source } }),
    ...(doc.keys && { keys: doc.keys }),
    ...(doc.places && {
      // Even entries are lines; an absent key's 0 stays 0.
      places: doc.places.map((n, i) => (i % 2 === 0 && n !== 0 ? n + delta : n)),
    }),
  };
}

/** A chunk of the previous parse, and where its results start in each list of that parse. */
export interface PreviousChunk {
  readonly info: ChunkInfo;
  readonly documents: number;
  readonly issues: number;
  readonly dependencies: number;
}

/** The previous parse's chunks by their digest, each with the slices of results it produced. */
export function previousChunks(previous: PreviousParse): Map<string, PreviousChunk> {
  const byDigest = new Map<string, PreviousChunk>();
  let documents = 0;
  let issues = 0;
  let dependencies = 0;
  for (const info of previous.result.chunks) {
    if (!byDigest.has(info.digest)) byDigest.set(info.digest, { info, documents, issues, dependencies });
    documents += info.documents;
    issues += info.issues;
    dependencies += info.dependencies;
  }
  return byDigest;
}

/** Whether an entriesFile read would still give what a dependency recorded. */
export type DependencyCheck = (dep: FileDependency) => boolean;

/**
 * A DependencyCheck for one load: the same file version (statKey), or else the same
 * fingerprint when read again. Each dependency object is checked once, however often the
 * loader and parseConfigFile ask: a changed entriesFile would otherwise be read up to three
 * times before the parse that reads it for real.
 */
export function dependencyCheck(root: string, limits: LoaderLimits): DependencyCheck {
  const checked = new Map<FileDependency, boolean>();
  return (dep) => {
    let unchanged = checked.get(dep);
    if (unchanged === undefined) {
      unchanged = readsTheSame(root, dep, limits);
      checked.set(dep, unchanged);
    }
    return unchanged;
  };
}

function readsTheSame(root: string, dep: FileDependency, limits: LoaderLimits): boolean {
  if (
    dep.stat !== undefined &&
    dep.file !== undefined &&
    statKey(statFile(join(root, dep.file))) === dep.stat
  )
    return true;
  const read = readRelativeFile(root, dep.fromFile, dep.relativePath, limits.maxFileBytes);
  return ('error' in read ? `error:${read.error}` : read.digest) === dep.fingerprint;
}
