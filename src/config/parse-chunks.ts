/**
 * A file's `---` pieces (chunks) → its results, chunk by chunk: a chunk is parsed, reused
 * from the file's previous parse, or refused unparsed. Each chunk's share of the results is recorded (`ChunkInfo`), so that the next
 * parse of the file can reuse it.
 */
import {
  type Chunk,
  type ChunkInfo,
  ChunkTable,
  type DocumentResult,
  type FileDependency,
  type FileResult,
  type PreviousChunk,
  type PreviousParse,
  shiftDocument,
  shiftLocation,
} from './file-pieces.js';
import type { LoaderLimits } from './files.js';
import { type DocumentSite, parseDocument } from './parse-document.js';
import type { ConfigIssue } from './types.js';
import { parseYamlFile } from './yaml-source.js';

/** How many results of each list there were when a chunk began. */
interface Mark {
  readonly documents: number;
  readonly issues: number;
  readonly dependencies: number;
}

/** One file's results as its chunks add to them, in file order. */
export class FileResultBuilder {
  readonly documents: DocumentResult[] = [];
  readonly issues: ConfigIssue[] = [];
  readonly dependencies: FileDependency[] = [];
  private readonly chunks: ChunkInfo[] = [];

  constructor(
    readonly root: string,
    readonly file: string,
    readonly limits: LoaderLimits,
  ) {}

  mark(): Mark {
    return {
      documents: this.documents.length,
      issues: this.issues.length,
      dependencies: this.dependencies.length,
    };
  }

  /** `chunk` produced everything added since `mark`. */
  endChunk(chunk: Chunk, mark: Mark): void {
    this.chunks.push({
      digest: chunk.digest,
      line: chunk.line,
      documents: this.documents.length - mark.documents,
      issues: this.issues.length - mark.issues,
      dependencies: this.dependencies.length - mark.dependencies,
    });
  }

  /** An error at a text offset of `chunk` (a chunk, or the whole file as one), unparsed. */
  refuseAt(chunk: Pick<Chunk, 'text' | 'line'>, offset: number, message: string): void {
    let line = chunk.line + 1;
    let lineStart = 0;
    for (let at = chunk.text.indexOf('\n'); at !== -1 && at < offset; at = chunk.text.indexOf('\n', at + 1)) {
      line += 1;
      lineStart = at + 1;
    }
    this.issues.push({
      file: this.file,
      line,
      col: offset - lineStart + 1,
      path: '',
      message,
      severity: 'error',
    });
  }

  result(): FileResult {
    return {
      file: this.file,
      documents: this.documents,
      issues: this.issues,
      dependencies: this.dependencies,
      chunks: ChunkTable.of(this.chunks),
    };
  }
}

/** Refuses a chunk nested deeper than the cap, unparsed (`depth.ts`). */
export function refuseTooDeep(
  out: FileResultBuilder,
  chunk: Pick<Chunk, 'text' | 'line'>,
  offset: number,
): void {
  out.refuseAt(
    chunk,
    offset,
    `YAML nested deeper than ${out.limits.maxDepth} levels (collections inside collections); refused unparsed as a guard against documents built to exhaust memory`,
  );
}

/** Takes a chunk's results from the previous parse, moved to the chunk's line. */
export function reuseChunk(
  out: FileResultBuilder,
  chunk: Chunk,
  old: PreviousChunk,
  previous: PreviousParse,
): void {
  const mark = out.mark();
  const delta = chunk.line - old.info.line;
  const { result } = previous;
  for (const doc of result.documents.slice(old.documents, old.documents + old.info.documents)) {
    out.documents.push(shiftDocument(doc, delta));
  }
  for (const issue of result.issues.slice(old.issues, old.issues + old.info.issues)) {
    out.issues.push(delta === 0 ? issue : shiftLocation(issue, delta));
  }
  for (const dep of result.dependencies.slice(old.dependencies, old.dependencies + old.info.dependencies)) {
    out.dependencies.push(dep);
  }
  out.endChunk(chunk, mark);
}

/**
 * Parses one chunk and adds the results of its documents (usually one; more after a `...`).
 * Each piece is parsed alone, by a parser of its own: its tree is garbage before the next
 * piece is parsed, where parsing several pieces together kept bigger trees alive long enough
 * for the collector to copy them (a cold load of 10,000 resources took about 15 % more CPU
 * that way: docs/performance.md, Latest figures).
 */
export function parseChunk(out: FileResultBuilder, chunk: Chunk): void {
  const mark = out.mark();
  const { documents, lineCounter } = parseYamlFile(chunk.text);
  const site: DocumentSite = { root: out.root, file: out.file, limits: out.limits, lineOffset: chunk.line };
  for (const doc of documents) {
    const result = parseDocument(doc, lineCounter, site, out);
    if (result !== undefined) out.documents.push(result);
  }
  out.endChunk(chunk, mark);
}
