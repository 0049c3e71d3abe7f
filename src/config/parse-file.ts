/**
 * One YAML file → its documents, validated and canonical, with every problem located.
 *
 * This is the expensive, per-file part of a load, and it is self-contained: plain data in
 * (root, relative path, text, limits), plain data out. So the same function runs in the
 * loader's thread or in a worker, and its result can be cached by file content.
 */

import { join } from 'node:path';
import { type Document, isAlias, type LineCounter, visit } from 'yaml';
import { KIND_SPECS, type KindName } from '../kinds/specs.js';
import { resourceDigest } from './canonical.js';
import {
  KIND_ENVELOPES,
  type MetadataSpec,
  RESOURCE_NAME_PATTERN,
  UnknownKindEnvelope,
  unknownKindMessage,
} from './envelope.js';
import { type LoaderLimits, readRelativeFile, statKey } from './files.js';
import { type DocPath, formatPath } from './issues.js';
import { type RawIssue, readableError, toRawIssues } from './messages.js';
import type {
  ConfigIssue,
  DesiredResource,
  IssueSeverity,
  ResourceMetadata,
  SourceLocation,
} from './types.js';
import { documentStart, locate, parseYamlFile } from './yaml-source.js';

/** What the cross-document rules need to know of one document, valid or not. */
export interface DocumentResult {
  /** Where the document starts (its first key). */
  readonly source: SourceLocation;
  /** Set when kind and metadata.name are valid, even if the spec is not: names must stay unique. */
  readonly identity?: { readonly subject: string; readonly at: SourceLocation };
  /** Set when the spec is valid: the live object it targets (`Kind target`), and where that is written. */
  readonly target?: { readonly key: string; readonly at: SourceLocation; readonly path: string };
  /** Set only when the document has no error at all. */
  readonly resource?: DesiredResource;
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
}

/**
 * Whether an entriesFile read would still give what `dep` recorded: the same file version
 * (statKey), or else the same fingerprint when read again.
 */
export function dependencyUnchanged(root: string, dep: FileDependency, limits: LoaderLimits): boolean {
  if (dep.stat !== undefined && dep.file !== undefined && statKey(join(root, dep.file)) === dep.stat)
    return true;
  const read = readRelativeFile(root, dep.fromFile, dep.relativePath, limits.maxFileBytes);
  return ('error' in read ? `error:${read.error}` : read.digest) === dep.fingerprint;
}

const PARSE_OPTIONS = { error: readableError, reportInput: true } as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses, validates and canonicalises every document of one file. `root` is the config
 * directory's real path (entriesFile reads are confined to it); `file` is relative to it.
 */
export function parseConfigFile(root: string, file: string, text: string, limits: LoaderLimits): FileResult {
  const issues: ConfigIssue[] = [];
  const documents: DocumentResult[] = [];
  const dependencies: FileDependency[] = [];
  const { documents: docs, lineCounter } = parseYamlFile(text);

  for (const doc of docs) {
    const result = parseDocument(doc, lineCounter);
    if (result !== undefined) documents.push(result);
  }
  return { file, documents, issues, dependencies };

  function parseDocument(doc: Document.Parsed, lc: LineCounter): DocumentResult | undefined {
    const start = documentStart(doc, lc);
    const source: SourceLocation = { file, line: start.line, col: start.col };
    const report = (
      path: DocPath,
      message: string,
      severity: IssueSeverity = 'error',
      atKey = false,
    ): void => {
      const at = locate(doc, lc, path, atKey);
      issues.push({ file, line: at.line, col: at.col, path: formatPath(path), message, severity });
    };

    for (const warning of doc.warnings) {
      const at = lc.linePos(warning.pos[0]);
      issues.push({
        file,
        line: at.line,
        col: at.col,
        path: '',
        message: `YAML: ${warning.message}`,
        severity: 'warning',
      });
    }
    if (doc.errors.length > 0) {
      // The tree of a document with syntax errors is a guess; validating it would only add noise.
      for (const error of doc.errors) {
        const at = lc.linePos(error.pos[0]);
        issues.push({
          file,
          line: at.line,
          col: at.col,
          path: '',
          message: `invalid YAML: ${error.message}`,
          severity: 'error',
        });
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
      const at = aliasOffset === undefined ? start : lc.linePos(aliasOffset);
      issues.push({
        file,
        line: at.line,
        col: at.col,
        path: '',
        message:
          message.startsWith('Excessive alias count') || message.startsWith('Alias resolution is disabled')
            ? `too many YAML alias expansions (limit ${limits.maxAliasCount}); refused as a guard against alias bombs`
            : `invalid YAML: ${message}`,
        severity: 'error',
      });
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
    for (const issue of raw) report(issue.path, issue.message, 'error', issue.atKey);

    const metadata = isRecord(data.metadata) ? data.metadata : undefined;
    const name = metadata?.name;
    const identity =
      kind !== undefined && typeof name === 'string' && RESOURCE_NAME_PATTERN.test(name)
        ? { subject: `${kind}/${name}`, at: { file, ...locate(doc, lc, ['metadata', 'name']) } }
        : undefined;
    if (!parsed.success || kind === undefined) return { source, ...(identity && { identity }) };

    const envelope = parsed.data as { metadata: MetadataSpec; spec: unknown };
    const module = KIND_SPECS[kind];
    const spec = module.resolve(envelope.spec, {
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
    });
    const targetPath = ['spec', ...module.targetPath(spec)];
    const target = {
      key: `${kind} ${module.target(spec)}`,
      at: { file, ...locate(doc, lc, targetPath) },
      path: formatPath(targetPath),
    };
    if (errors > 0) return { source, ...(identity && { identity }), target };

    const meta: ResourceMetadata = {
      name: envelope.metadata.name,
      suspend: envelope.metadata.suspend ?? false,
      drift: envelope.metadata.drift ?? 'correct',
    };
    const resource: DesiredResource = {
      kind,
      name: meta.name,
      subject: `${kind}/${meta.name}`,
      metadata: meta,
      spec,
      source,
      digest: resourceDigest(kind, meta, spec),
    };
    return { source, ...(identity && { identity }), target, resource };
  }
}
