/**
 * One YAML file → its documents, validated and canonical, with every problem located.
 *
 * This is the expensive, per-file part of a load, and it is self-contained: plain data in
 * (root, relative path, text, limits), plain data out, so its result can be cached by file
 * content.
 *
 * A file is split at its `---` lines (`file-pieces.ts`), so that when a file changes, the
 * documents whose text did not change are reused from its previous parse: editing one rule in
 * a file of fifty re-parses one rule. The pieces that do need parsing are parsed together, a
 * run of consecutive ones at a time.
 */

import { type Document, isAlias, isMap, isScalar, type LineCounter, visit } from 'yaml';
import { KIND_SPECS, type KindName } from '../kinds/specs.js';
import { canonicalResource } from './canonical.js';
import { overBudgetAt, tooDeepAt } from './depth.js';
import {
  KIND_ENVELOPES,
  type MetadataSpec,
  RESOURCE_NAME_PATTERN,
  UnknownKindEnvelope,
  unknownKindMessage,
} from './envelope.js';
import {
  type Chunk,
  type ChunkInfo,
  type DocumentResult,
  type FileDependency,
  type FileResult,
  type PreviousParse,
  previousChunks,
  shiftDocument,
  shiftLocation,
  splitDocuments,
} from './file-pieces.js';
import { type LoaderLimits, readRelativeFile } from './files.js';
import { type DocPath, formatPath } from './issues.js';
import { type RawIssue, readableError, toRawIssues } from './messages.js';
import type {
  ConfigIssue,
  DesiredResource,
  IssueSeverity,
  ResourceMetadata,
  SourceLocation,
} from './types.js';
import { documentStart, documentStartOffset, locate, parseYamlFile } from './yaml-source.js';

const ENVELOPE_KEYS = new Set(['apiVersion', 'kind', 'metadata', 'spec']);

/**
 * A bare "is required" says neither what nor where: name the field and the kind
 * (`ruleName is required in a WafCustomRule`); the issue's path still follows.
 */
function namedRequirement(issue: RawIssue, kind: KindName | undefined): string {
  if (issue.message !== 'is required') return issue.message;
  const field = [...issue.path].reverse().find((segment) => typeof segment === 'string');
  if (field === undefined) return issue.message;
  if (kind === undefined || issue.path.length === 1) return `${field} is required in every document`;
  return `${field} is required in ${/^[AEIOU]/.test(kind) ? 'an' : 'a'} ${kind}`;
}

/**
 * The document with the spec fields that had issues taken out, or undefined when an issue lies
 * outside the spec (a document whose envelope is wrong is not checked further).
 */
function withoutFailedSpecFields(
  data: Record<string, unknown>,
  issues: readonly RawIssue[],
): Record<string, unknown> | undefined {
  if (!isRecord(data.spec)) return undefined;
  const failed = new Set<string>();
  for (const issue of issues) {
    const [top, field] = issue.path;
    if (top !== 'spec' || typeof field !== 'string') return undefined;
    failed.add(field);
  }
  const spec = Object.fromEntries(Object.entries(data.spec).filter(([key]) => !failed.has(key)));
  return { ...data, spec };
}

/** The document's top-level keys by the offset they start at. */
function topLevelKeysAt(doc: Document.Parsed): Map<number, string> {
  const keys = new Map<number, string>();
  if (!isMap(doc.contents)) return keys;
  for (const pair of doc.contents.items) {
    if (isScalar(pair.key) && typeof pair.key.value === 'string' && pair.key.range) {
      keys.set(pair.key.range[0], pair.key.value);
    }
  }
  return keys;
}

/**
 * A run of chunks is parsed in one go up to about this many characters: one parser per file
 * rather than one per document is most of what a cold load saves here, and the cap bounds
 * how many parsed documents are alive at once in a file of thousands.
 */
const MAX_RUN_CHARS = 256 * 1024;

const PARSE_OPTIONS = { error: readableError, reportInput: true } as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses, validates and canonicalises every document of one file. `root` is the config
 * directory's real path (entriesFile reads are confined to it); `file` is relative to it.
 */
export function parseConfigFile(
  root: string,
  file: string,
  text: string,
  limits: LoaderLimits,
  previous?: PreviousParse,
): FileResult {
  const issues: ConfigIssue[] = [];
  const documents: DocumentResult[] = [];
  const dependencies: FileDependency[] = [];
  const chunks: ChunkInfo[] = [];
  const over = overBudgetAt(text, { maxNodes: limits.maxNodes, maxDocuments: limits.maxDocuments });
  if (over !== undefined) {
    // Refused whole, before any document is split off or parsed (see docs/configuration.md),
    // naming whichever guard the file trips first.
    const tooDeep = tooDeepAt(text.slice(0, over.offset + 1), limits.maxDepth);
    if (tooDeep !== undefined) {
      refuseTooDeep({ text, line: 0 }, tooDeep);
      return { file, documents, issues, dependencies, chunks };
    }
    refuseAt(
      { text, line: 0 },
      over.offset,
      over.what === 'nodes'
        ? `more than ${limits.maxNodes} YAML nodes in one file; refused unparsed as a guard against files built to exhaust memory (split the file, or move long lists to an entriesFile)`
        : `more than ${limits.maxDocuments} YAML documents in one file; refused unparsed as a guard against files built to exhaust memory (split the file)`,
    );
    return { file, documents, issues, dependencies, chunks };
  }
  const reusable = previous === undefined ? undefined : previousChunks(previous);
  /** Lines before the run being parsed: positions from its own LineCounter are shifted by it. */
  let lineOffset = 0;
  /** Consecutive chunks to parse, parsed together: one parser per run, not one per document. */
  let run: Chunk[] = [];
  let runChars = 0;

  for (const chunk of splitDocuments(text)) {
    const old = reusable?.get(chunk.text);
    const oldDependencies =
      old && previous?.result.dependencies.slice(old.dependencies, old.dependencies + old.info.dependencies);
    if (old !== undefined && previous !== undefined && oldDependencies?.every(previous.dependencyUnchanged)) {
      parseRun();
      const before = counts();
      const delta = chunk.line - old.info.line;
      for (const doc of previous.result.documents.slice(old.documents, old.documents + old.info.documents)) {
        documents.push(shiftDocument(doc, delta));
      }
      for (const issue of previous.result.issues.slice(old.issues, old.issues + old.info.issues)) {
        issues.push(delta === 0 ? issue : shiftLocation(issue, delta));
      }
      dependencies.push(...oldDependencies);
      chunks.push(chunkInfo(chunk, before));
    } else {
      const tooDeep = tooDeepAt(chunk.text, limits.maxDepth);
      if (tooDeep === undefined) {
        run.push(chunk);
        runChars += chunk.text.length;
        if (runChars >= MAX_RUN_CHARS) parseRun();
      } else {
        parseRun();
        const before = counts();
        refuseTooDeep(chunk, tooDeep);
        chunks.push(chunkInfo(chunk, before));
      }
    }
  }
  parseRun();
  return { file, documents, issues, dependencies, chunks };

  function counts(): { documents: number; issues: number; dependencies: number } {
    return { documents: documents.length, issues: issues.length, dependencies: dependencies.length };
  }

  function chunkInfo(chunk: Chunk, before: ReturnType<typeof counts>): ChunkInfo {
    return {
      offset: chunk.offset,
      length: chunk.text.length,
      line: chunk.line,
      documents: documents.length - before.documents,
      issues: issues.length - before.issues,
      dependencies: dependencies.length - before.dependencies,
    };
  }

  /**
   * Parses the pending run in one go and gives each chunk the results of the documents that
   * start in it (a document starts at its chunk's `---`, so it never straddles two).
   */
  function parseRun(): void {
    const [first] = run;
    const last = run.at(-1);
    if (first === undefined || last === undefined) return;
    const chunksOfRun = run;
    run = [];
    runChars = 0;
    lineOffset = first.line;
    const { documents: docs, lineCounter } = parseYamlFile(
      text.slice(first.offset, last.offset + last.text.length),
    );
    let current = 0;
    let before = counts();
    for (const doc of docs) {
      const startsAt = first.offset + doc.range[0];
      for (let next = chunksOfRun[current + 1]; next !== undefined && startsAt >= next.offset; ) {
        chunks.push(chunkInfo(chunksOfRun[current] as Chunk, before));
        before = counts();
        current += 1;
        next = chunksOfRun[current + 1];
      }
      const result = parseDocument(doc, lineCounter);
      if (result !== undefined) documents.push(result);
    }
    for (; current < chunksOfRun.length; current += 1) {
      chunks.push(chunkInfo(chunksOfRun[current] as Chunk, before));
      before = counts();
    }
  }

  /** Refuses a chunk nested deeper than the cap, unparsed (`depth.ts`). */
  function refuseTooDeep(chunk: Pick<Chunk, 'text' | 'line'>, offset: number): void {
    refuseAt(
      chunk,
      offset,
      `YAML nested deeper than ${limits.maxDepth} levels (collections inside collections); refused unparsed as a guard against documents built to exhaust memory`,
    );
  }

  function refuseAt(chunk: Pick<Chunk, 'text' | 'line'>, offset: number, message: string): void {
    let line = chunk.line + 1;
    let lineStart = 0;
    for (let at = chunk.text.indexOf('\n'); at !== -1 && at < offset; at = chunk.text.indexOf('\n', at + 1)) {
      line += 1;
      lineStart = at + 1;
    }
    issues.push({
      file,
      line,
      col: offset - lineStart + 1,
      path: '',
      message,
      severity: 'error',
    });
  }

  /** A position of the current run's LineCounter, as a position in the file. */
  function inFile(position: { line: number; col: number }): { line: number; col: number } {
    return { line: position.line + lineOffset, col: position.col };
  }

  function parseDocument(doc: Document.Parsed, lc: LineCounter): DocumentResult | undefined {
    const start = inFile(documentStart(doc, lc));
    const source: SourceLocation = { file, line: start.line, col: start.col };
    const report = (
      path: DocPath,
      message: string,
      severity: IssueSeverity = 'error',
      atKey = false,
    ): void => {
      const at = inFile(locate(doc, lc, path, atKey));
      issues.push({ file, line: at.line, col: at.col, path: formatPath(path), message, severity });
    };
    /** An issue at a text offset of the chunk, for problems that have no document path. */
    const reportAt = (offset: number, message: string, severity: IssueSeverity): void => {
      const at = inFile(lc.linePos(offset));
      issues.push({ file, line: at.line, col: at.col, path: '', message, severity });
    };

    for (const warning of doc.warnings) reportAt(warning.pos[0], `YAML: ${warning.message}`, 'warning');
    if (doc.errors.length > 0) {
      // The tree of a document with syntax errors is a guess; validating it would only add noise.
      const topKeys = topLevelKeysAt(doc);
      let missingSeparator = false;
      for (const error of doc.errors) {
        const key = error.code === 'DUPLICATE_KEY' ? topKeys.get(error.pos[0]) : undefined;
        if (key !== undefined && ENVELOPE_KEYS.has(key)) {
          // apiVersion, kind, metadata or spec twice: two documents without `---` between them.
          // Said once, at the first repeat; the other repeated keys are the same mistake.
          if (!missingSeparator) {
            reportAt(
              error.pos[0],
              `${JSON.stringify(key)} appears twice in one document: a second document probably starts here and needs a line \`---\` before it`,
              'error',
            );
          }
          missingSeparator = true;
          continue;
        }
        reportAt(error.pos[0], `invalid YAML: ${error.message}`, 'error');
      }
      return { source };
    }
    // A document with nothing in it (a trailing `---`, comments only) declares nothing.
    if (doc.contents === null) return undefined;

    let data: unknown;
    try {
      data = doc.toJS({ maxAliasCount: limits.maxAliasCount });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      let aliasOffset: number | undefined;
      visit(doc, {
        Alias(_key, node) {
          if (isAlias(node) && node.range) aliasOffset = node.range[0];
          return visit.BREAK;
        },
      });
      reportAt(
        aliasOffset ?? documentStartOffset(doc),
        message.startsWith('Excessive alias count') || message.startsWith('Alias resolution is disabled')
          ? `too many YAML alias expansions (limit ${limits.maxAliasCount}); refused as a guard against alias bombs`
          : `invalid YAML: ${message}`,
        'error',
      );
      return { source };
    }
    // `---` followed by nothing (or `~`): an empty document declares nothing.
    if (data === null) return undefined;
    if (!isRecord(data)) {
      report(
        [],
        `a document must be a mapping with apiVersion, kind, metadata and spec, got ${Array.isArray(data) ? 'list' : typeof data}`,
      );
      return { source };
    }

    const kindValue = data.kind;
    const kind =
      typeof kindValue === 'string' && Object.hasOwn(KIND_SPECS, kindValue)
        ? (kindValue as KindName)
        : undefined;
    const parsed = (kind === undefined ? UnknownKindEnvelope : KIND_ENVELOPES[kind]).safeParse(
      data,
      PARSE_OPTIONS,
    );
    const raw: RawIssue[] = parsed.success ? [] : toRawIssues(parsed.error.issues);
    if (kind === undefined)
      raw.push({ path: ['kind'], message: unknownKindMessage(kindValue), atKey: false });
    let errors = raw.length;
    for (const issue of raw) report(issue.path, namedRequirement(issue, kind), 'error', issue.atKey);

    const metadata = isRecord(data.metadata) ? data.metadata : undefined;
    const name = metadata?.name;
    const identity =
      kind !== undefined && typeof name === 'string' && RESOURCE_NAME_PATTERN.test(name)
        ? { subject: `${kind}/${name}`, at: { file, ...inFile(locate(doc, lc, ['metadata', 'name'])) } }
        : undefined;
    if (kind === undefined) return { source, ...(identity && { identity }) };
    const module = KIND_SPECS[kind];
    const resolveContext: Parameters<typeof module.resolve>[1] = {
      readRelativeFile(relativePath, at) {
        const read = readRelativeFile(root, file, relativePath, limits.maxFileBytes);
        dependencies.push({
          fromFile: file,
          relativePath,
          file: read.file,
          fingerprint: 'error' in read ? `error:${read.error}` : read.digest,
          stat: 'error' in read ? undefined : read.stat,
        });
        if ('error' in read) {
          errors += 1;
          report(['spec', ...at], read.error);
          return undefined;
        }
        return read.text;
      },
      issue(at, message) {
        errors += 1;
        report(['spec', ...at], message);
      },
      warn(at, message) {
        report(['spec', ...at], message, 'warning');
      },
    };
    if (!parsed.success) {
      // Every problem at once: without the spec fields that failed, the rest of the spec may
      // still parse, and then its own checks (an access list's entries) are reported too.
      const rest = withoutFailedSpecFields(data, raw);
      const partial = rest === undefined ? undefined : KIND_ENVELOPES[kind].safeParse(rest, PARSE_OPTIONS);
      if (partial?.success === true) {
        module.resolve((partial.data as { spec: unknown }).spec, resolveContext);
      }
      return { source, ...(identity && { identity }) };
    }

    const envelope = parsed.data as { metadata: MetadataSpec; spec: unknown };
    const spec = module.resolve(envelope.spec, resolveContext);
    const valid =
      errors > 0
        ? undefined
        : canonicalResource(kind, metadataOf(envelope.metadata), spec as Record<string, unknown>);
    // The keys below read the spec parsed back from its canonical JSON when there is one, so
    // that they do not keep the file's text alive either (canonicalResource says why).
    const keyed = valid?.spec ?? spec;
    /** Where `path` is written: its position in the file and the path as messages print it. */
    const placed = (path: DocPath): { at: SourceLocation; path: string } => ({
      at: { file, ...inFile(locate(doc, lc, path)) },
      path: formatPath(path),
    });
    const pinned = module.target(keyed);
    const target =
      pinned === undefined
        ? undefined
        : { key: `${kind} ${pinned}`, ...placed(['spec', ...module.targetPath(keyed)]) };
    const natural = module.naturalKey?.(keyed);
    const naturalKey =
      natural === undefined
        ? undefined
        : { key: `${kind} ${natural.key}`, label: natural.label, ...placed(['spec', ...natural.path]) };
    const aliases = module.aliases?.(keyed).map((alias) => ({
      key: alias.key,
      ...placed(['spec', ...alias.path]),
    }));
    if (valid === undefined) {
      return {
        source,
        ...(identity && { identity }),
        ...(target && { target }),
        ...(naturalKey && { naturalKey }),
        ...(aliases?.length && { aliases }),
      };
    }
    const subject = `${kind}/${valid.metadata.name}`;
    const resource: DesiredResource = {
      kind,
      name: valid.metadata.name,
      subject,
      metadata: valid.metadata,
      spec: valid.spec,
      source,
      digest: valid.digest,
    };
    const named = {
      ...(identity && { identity: { subject, at: identity.at } }),
      ...(target && { target }),
      ...(naturalKey && { naturalKey }),
      ...(aliases?.length && { aliases }),
    };
    return { source, ...named, resource };
  }
}

/** Canonical metadata: the defaults applied. */
function metadataOf(metadata: MetadataSpec): ResourceMetadata {
  return {
    name: metadata.name,
    suspend: metadata.suspend ?? false,
    drift: metadata.drift ?? 'correct',
  };
}
