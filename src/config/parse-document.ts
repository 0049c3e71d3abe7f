/**
 * One parsed YAML document → its result: validated against its kind's schema, canonical, with
 * the keys the cross-document rules compare, and every problem located in the file.
 *
 * A document is checked in steps, each of which may end it: its YAML (syntax errors and
 * warnings), its data (aliases expanded within the limit), its envelope and spec (zod, then
 * the kind's `resolve`), and last its canonical form and keys.
 */
import { type Document, isAlias, isMap, isScalar, type LineCounter, visit } from 'yaml';
import { KIND_SPECS, type KindName } from '../kinds/specs.js';
import { canonicalResource } from './canonical.js';
import { type DocumentKeys, keyPaths, keysOf, resourceKeys } from './document-keys.js';
import {
  KIND_ENVELOPES,
  type MetadataSpec,
  RESOURCE_NAME_PATTERN,
  UnknownKindEnvelope,
  unknownKindMessage,
} from './envelope.js';
import type { DocumentResult, FileDependency } from './file-pieces.js';
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
import { documentStart, documentStartOffset, locate } from './yaml-source.js';

/** Where a document was parsed: its file, and the lines before the text it was parsed from. */
export interface DocumentSite {
  /** The config directory's real path (entriesFile reads are confined to it). */
  readonly root: string;
  /** The file, relative to `root`. */
  readonly file: string;
  readonly limits: LoaderLimits;
  /** Lines of the file before the parsed text: positions of its LineCounter are shifted by it. */
  readonly lineOffset: number;
}

/** Where a document's problems and the files it read go. */
export interface DocumentSink {
  readonly issues: ConfigIssue[];
  readonly dependencies: FileDependency[];
}

const ENVELOPE_KEYS = new Set(['apiVersion', 'kind', 'metadata', 'spec']);

const PARSE_OPTIONS = { error: readableError, reportInput: true } as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Positions and issues of one document, in the file's lines. */
class DocumentPlace {
  constructor(
    private readonly doc: Document.Parsed,
    private readonly lineCounter: LineCounter,
    private readonly site: DocumentSite,
    private readonly sink: DocumentSink,
  ) {}

  /** Where `path` is written in the file. */
  at(path: DocPath, atKey = false): SourceLocation {
    const { line, col } = locate(this.doc, this.lineCounter, path, atKey);
    return { file: this.site.file, line: line + this.site.lineOffset, col };
  }

  /** Where the document starts (its first key). */
  start(): SourceLocation {
    const { line, col } = documentStart(this.doc, this.lineCounter);
    return { file: this.site.file, line: line + this.site.lineOffset, col };
  }

  report(path: DocPath, message: string, severity: IssueSeverity = 'error', atKey = false): void {
    const { file, line, col } = this.at(path, atKey);
    this.sink.issues.push({ file, line, col, path: formatPath(path), message, severity });
  }

  /** An issue at a text offset of the parsed text, for problems that have no document path. */
  reportAt(offset: number, message: string, severity: IssueSeverity): void {
    const { line, col } = this.lineCounter.linePos(offset);
    this.sink.issues.push({
      file: this.site.file,
      line: line + this.site.lineOffset,
      col,
      path: '',
      message,
      severity,
    });
  }
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
 * Reports the document's YAML warnings and errors; true when it has errors (its tree is then a
 * guess, and validating it would only add noise).
 */
function reportSyntax(doc: Document.Parsed, place: DocumentPlace): boolean {
  for (const warning of doc.warnings) place.reportAt(warning.pos[0], `YAML: ${warning.message}`, 'warning');
  if (doc.errors.length === 0) return false;
  const topKeys = topLevelKeysAt(doc);
  let missingSeparator = false;
  for (const error of doc.errors) {
    const key = error.code === 'DUPLICATE_KEY' ? topKeys.get(error.pos[0]) : undefined;
    if (key !== undefined && ENVELOPE_KEYS.has(key)) {
      // apiVersion, kind, metadata or spec twice: two documents without `---` between them.
      // Said once, at the first repeat; the other repeated keys are the same mistake.
      if (!missingSeparator) {
        place.reportAt(
          error.pos[0],
          `${JSON.stringify(key)} appears twice in one document: a second document probably starts here and needs a line \`---\` before it`,
          'error',
        );
      }
      missingSeparator = true;
      continue;
    }
    place.reportAt(error.pos[0], `invalid YAML: ${error.message}`, 'error');
  }
  return true;
}

/** The document as plain data, aliases expanded within the limit; undefined (reported) past it. */
function documentData(
  doc: Document.Parsed,
  limits: LoaderLimits,
  place: DocumentPlace,
): { data: unknown } | undefined {
  try {
    return { data: doc.toJS({ maxAliasCount: limits.maxAliasCount }) };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    let aliasOffset: number | undefined;
    visit(doc, {
      Alias(_key, node) {
        if (isAlias(node) && node.range) aliasOffset = node.range[0];
        return visit.BREAK;
      },
    });
    place.reportAt(
      aliasOffset ?? documentStartOffset(doc),
      message.startsWith('Excessive alias count') || message.startsWith('Alias resolution is disabled')
        ? `too many YAML alias expansions (limit ${limits.maxAliasCount}); refused as a guard against alias bombs`
        : `invalid YAML: ${message}`,
      'error',
    );
    return undefined;
  }
}

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

/** Canonical metadata: the defaults applied. */
function metadataOf(metadata: MetadataSpec): ResourceMetadata {
  return {
    name: metadata.name,
    suspend: metadata.suspend ?? false,
    drift: metadata.drift ?? 'correct',
  };
}

/** The kind's `resolve` context: entriesFile reads confined to the root, issues counted. */
function resolveContext(
  site: DocumentSite,
  place: DocumentPlace,
  sink: DocumentSink,
  counted: { errors: number },
) {
  const context: Parameters<(typeof KIND_SPECS)[KindName]['resolve']>[1] = {
    readRelativeFile(relativePath, at) {
      const read = readRelativeFile(site.root, site.file, relativePath, site.limits.maxFileBytes);
      sink.dependencies.push({
        fromFile: site.file,
        relativePath,
        file: read.file,
        fingerprint: 'error' in read ? `error:${read.error}` : read.digest,
        stat: 'error' in read ? undefined : read.stat,
      });
      if ('error' in read) {
        counted.errors += 1;
        place.report(['spec', ...at], read.error);
        return undefined;
      }
      return read.text;
    },
    issue(at, message) {
      counted.errors += 1;
      place.report(['spec', ...at], message);
    },
    warn(at, message) {
      place.report(['spec', ...at], message, 'warning');
    },
  };
  return context;
}

/** The line and column of each of `keys` in the document, in `keyPaths` order. */
function placesOf(keys: DocumentKeys, place: DocumentPlace): number[] {
  const paths = keyPaths(keys);
  // Sized once: an array grown by push keeps spare room, for the daemon's whole life here.
  const places = new Array<number>(2 * paths.length).fill(0);
  for (const [index, path] of paths.entries()) {
    if (path === undefined) continue;
    const { line, col } = place.at(path);
    places[2 * index] = line;
    places[2 * index + 1] = col;
  }
  return places;
}

/** The document's kind, when it names one edgesync knows. */
function kindOf(data: Record<string, unknown>): KindName | undefined {
  const kind = data.kind;
  return typeof kind === 'string' && Object.hasOwn(KIND_SPECS, kind) ? (kind as KindName) : undefined;
}

/**
 * Validates one parsed document of `site`'s file. Its issues and the files it read go to
 * `sink`; undefined when the document declares nothing (empty, comments only).
 */
export function parseDocument(
  doc: Document.Parsed,
  lineCounter: LineCounter,
  site: DocumentSite,
  sink: DocumentSink,
): DocumentResult | undefined {
  const place = new DocumentPlace(doc, lineCounter, site, sink);
  const source = place.start();
  if (reportSyntax(doc, place)) return { source };
  // A document with nothing in it (a trailing `---`, comments only) declares nothing.
  if (doc.contents === null) return undefined;
  const read = documentData(doc, site.limits, place);
  if (read === undefined) return { source };
  const { data } = read;
  // `---` followed by nothing (or `~`): an empty document declares nothing.
  if (data === null) return undefined;
  if (!isRecord(data)) {
    place.report(
      [],
      `a document must be a mapping with apiVersion, kind, metadata and spec, got ${Array.isArray(data) ? 'list' : typeof data}`,
    );
    return { source };
  }

  const kind = kindOf(data);
  const parsed = (kind === undefined ? UnknownKindEnvelope : KIND_ENVELOPES[kind]).safeParse(
    data,
    PARSE_OPTIONS,
  );
  const raw: RawIssue[] = parsed.success ? [] : toRawIssues(parsed.error.issues);
  if (kind === undefined) raw.push({ path: ['kind'], message: unknownKindMessage(data.kind), atKey: false });
  const counted = { errors: raw.length };
  for (const issue of raw) place.report(issue.path, namedRequirement(issue, kind), 'error', issue.atKey);

  const name = isRecord(data.metadata) ? data.metadata.name : undefined;
  const subject =
    kind !== undefined && typeof name === 'string' && RESOURCE_NAME_PATTERN.test(name)
      ? `${kind}/${name}`
      : undefined;
  /** A document with errors keeps the keys it has: its name, and the others when its spec is valid. */
  const withErrors = (keys: DocumentKeys | undefined): DocumentResult =>
    keys === undefined ? { source } : { source, keys, places: placesOf(keys, place) };
  if (kind === undefined) return withErrors(subject === undefined ? undefined : { subject });
  const module = KIND_SPECS[kind];
  const context = resolveContext(site, place, sink, counted);
  if (!parsed.success) {
    // Every problem at once: without the spec fields that failed, the rest of the spec may
    // still parse, and then its own checks (an access list's entries) are reported too.
    const rest = withoutFailedSpecFields(data, raw);
    const partial = rest === undefined ? undefined : KIND_ENVELOPES[kind].safeParse(rest, PARSE_OPTIONS);
    if (partial?.success === true) module.resolve((partial.data as { spec: unknown }).spec, context);
    return withErrors(subject === undefined ? undefined : { subject });
  }

  const envelope = parsed.data as { metadata: MetadataSpec; spec: unknown };
  const spec = module.resolve(envelope.spec, context);
  if (counted.errors > 0) {
    return withErrors(subject === undefined ? undefined : keysOf(kind, subject, spec));
  }
  const valid = canonicalResource(kind, metadataOf(envelope.metadata), spec as Record<string, unknown>);
  // The resource is built from the metadata and spec parsed back from their canonical JSON, and
  // its keys are derived from that spec, so that nothing kept holds the file's text
  // (canonicalResource says why).
  const resource: DesiredResource = {
    kind,
    name: valid.metadata.name,
    subject: `${kind}/${valid.metadata.name}`,
    metadata: valid.metadata,
    spec: valid.spec,
    source,
    digest: valid.digest,
  };
  return { source, resource, places: placesOf(resourceKeys(resource), place) };
}
