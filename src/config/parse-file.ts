/**
 * One YAML file → its documents, validated and canonical, with every problem located.
 *
 * This is the expensive, per-file part of a load, and it is self-contained: plain data in
 * (root, relative path, text, limits), plain data out, so its result can be cached by file
 * content.
 *
 * A file is split at its `---` lines (`file-pieces.ts`), so that when a file changes, the
 * documents whose text did not change are reused from its previous parse: editing one rule in
 * a file of fifty re-parses one rule. It keeps the daemon's re-validation after a one-rule edit
 * within its 50 ms target (10,000 resources: median 25–37 ms with the reuse, 57–109 ms without,
 * docs/performance.md, Latest figures), at the cost of a piece digest per document kept. The
 * pieces that do need parsing are parsed one at a time (`parse-chunks.ts`); each document is
 * checked by `parse-document.ts`.
 */
import { overBudgetAt, tooDeepAt } from './depth.js';
import {
  type FileResult,
  type PreviousChunk,
  type PreviousParse,
  previousChunks,
  splitDocuments,
} from './file-pieces.js';
import type { LoaderLimits } from './files.js';
import { FileResultBuilder, parseChunk, refuseTooDeep, reuseChunk } from './parse-chunks.js';

/** One file to parse: where it is, its text, and its previous parse when it had one. */
export interface ConfigFileInput {
  /** The config directory's real path (entriesFile reads are confined to it). */
  readonly root: string;
  /** The file, relative to `root`. */
  readonly file: string;
  readonly text: string;
  readonly limits: LoaderLimits;
  readonly previous?: PreviousParse | undefined;
}

/**
 * Refuses a file over the node or document budget whole, before any document is split off or
 * parsed (see docs/configuration.md), naming whichever guard it trips first; false when it fits.
 */
function refusedWhole(out: FileResultBuilder, text: string, limits: LoaderLimits): boolean {
  const over = overBudgetAt(text, { maxNodes: limits.maxNodes, maxDocuments: limits.maxDocuments });
  if (over === undefined) return false;
  const whole = { text, line: 0 };
  const tooDeep = tooDeepAt(text.slice(0, over.offset + 1), limits.maxDepth);
  if (tooDeep !== undefined) refuseTooDeep(out, whole, tooDeep);
  else
    out.refuseAt(
      whole,
      over.offset,
      over.what === 'nodes'
        ? `more than ${limits.maxNodes} YAML nodes in one file; refused unparsed as a guard against files built to exhaust memory (split the file, or move long lists to an entriesFile)`
        : `more than ${limits.maxDocuments} YAML documents in one file; refused unparsed as a guard against files built to exhaust memory (split the file)`,
    );
  return true;
}

/** Whether the files a previous chunk read (entriesFile) still read the same. */
function readsTheSame(old: PreviousChunk, previous: PreviousParse): boolean {
  return previous.result.dependencies
    .slice(old.dependencies, old.dependencies + old.info.dependencies)
    .every(previous.dependencyUnchanged);
}

/** Parses, validates and canonicalises every document of one file. */
export function parseConfigFile(input: ConfigFileInput): FileResult {
  const { text, limits, previous } = input;
  const out = new FileResultBuilder(input.root, input.file, limits);
  if (refusedWhole(out, text, limits)) return out.result();
  const reusable = previous === undefined ? undefined : previousChunks(previous);
  for (const chunk of splitDocuments(text)) {
    const old = previous && reusable?.get(chunk.digest);
    if (old !== undefined && previous !== undefined && readsTheSame(old, previous)) {
      reuseChunk(out, chunk, old, previous);
      continue;
    }
    const tooDeep = tooDeepAt(chunk.text, limits.maxDepth);
    if (tooDeep !== undefined) {
      const mark = out.mark();
      refuseTooDeep(out, chunk, tooDeep);
      out.endChunk(chunk, mark);
      continue;
    }
    parseChunk(out, chunk);
  }
  return out.result();
}
