/**
 * Loads the desired state: the config directory's YAML, validated and canonical, or one
 * CONFIG_INVALID error that holds every problem found (nothing below the loader runs then).
 *
 * `createDesiredStateLoader` keeps a cache for the daemon: a file whose bytes (and whose
 * entriesFile reads) are unchanged is not parsed again, only the cross-document rules run
 * over everything. Each load also says which subjects were added, changed or removed since
 * the last load that succeeded, so a file-change trigger can reconcile just those.
 */
import { join } from 'node:path';
import { sha256Hex } from '../domain/checksum.js';
import { ReconcileError } from '../errors.js';
import { deepFreeze } from './canonical.js';
import { dependencyCheck, type FileResult } from './file-pieces.js';
import {
  DEFAULT_LIMITS,
  decodeUtf8,
  type LoaderLimits,
  listConfigFiles,
  notUtf8Message,
  readLimited,
  resolveConfigRoot,
  statFile,
  statKey,
} from './files.js';
import { compareIssues, fileIssue } from './issues.js';
import { parseConfigFile } from './parse-file.js';
import { crossDocumentIssues } from './rules.js';
import type { ConfigIssue, DesiredResource, DesiredState } from './types.js';

/** How a loader reads: the limits on every file. */
export interface LoaderOptions {
  readonly limits?: Partial<LoaderLimits>;
}

/** Subjects (`Kind/name`) that differ from the previous successful load, each list sorted. */
interface DesiredStateChanges {
  readonly added: readonly string[];
  readonly changed: readonly string[];
  readonly removed: readonly string[];
}

/** What a load did: YAML files seen, parsed afresh, reused from the cache. */
interface LoadStats {
  readonly files: number;
  readonly parsed: number;
  readonly reused: number;
}

/** A successful load. */
export interface LoadResult {
  readonly state: DesiredState;
  /** Against the previous successful load of this loader; everything is `added` the first time. */
  readonly changes: DesiredStateChanges;
  readonly stats: LoadStats;
}

/** A loader with a parse cache, for a process that loads the same directory again and again. */
export interface DesiredStateLoader {
  /**
   * Loads `configDir` (resolved with realpath once; everything is read from the real path).
   * Throws ReconcileError CONFIG_INVALID with `details.issues` (every ConfigIssue, sorted) when
   * anything is wrong; the cache still keeps what parsed, so fixing one file re-parses one file.
   */
  load(configDir: string): Promise<LoadResult>;
}

/**
 * A file as the cache keeps it: its version on disk, the digest of its bytes, its results.
 * Not its bytes: a rewrite with the same bytes is known by the digest, and an edited file
 * reuses its unchanged pieces by theirs (`ChunkInfo`).
 */
interface CacheEntry {
  readonly stat: string | undefined;
  readonly digest: string;
  readonly result: FileResult;
}

/** Creates a loader with an empty cache. */
export function createDesiredStateLoader(options: LoaderOptions = {}): DesiredStateLoader {
  const limits: LoaderLimits = { ...DEFAULT_LIMITS, ...options.limits };
  let cache = new Map<string, CacheEntry>();
  // File results of the last successful load: what `changes` is measured against.
  let previous: ReadonlyMap<string, FileResult> = new Map();

  async function load(configDir: string): Promise<LoadResult> {
    const configRoot = resolveConfigRoot(configDir);
    const root = configRoot.path;
    const listing = listConfigFiles(configRoot);
    const issues: ConfigIssue[] = [...listing.issues];
    const next = new Map<string, CacheEntry>();
    const results = new Map<string, FileResult>();
    const digests: string[] = [];
    let parsedCount = 0;
    let reused = 0;
    const keep = (file: string, entry: CacheEntry): void => {
      next.set(file, entry);
      results.set(file, entry.result);
      digests.push(`${entry.digest}  ${file}`);
      reused += 1;
    };

    // One check for the whole load: a file's dependencies are asked about here and again when
    // parseConfigFile reuses its unchanged documents.
    const dependencyUnchanged = dependencyCheck(root, limits);
    const depsUnchanged = (entry: CacheEntry): boolean =>
      entry.result.dependencies.every(dependencyUnchanged);
    for (const file of listing.files) {
      const abs = join(root, file);
      const cached = cache.get(file);
      const stats = statFile(abs);
      const stat = statKey(stats);
      // Same file version on disk: not even read again (the daemon reloads often).
      if (cached !== undefined && stat !== undefined && cached.stat === stat && depsUnchanged(cached)) {
        keep(file, cached);
        continue;
      }
      const read = readLimited(abs, limits.maxFileBytes, stats);
      if ('error' in read) {
        issues.push(fileIssue(file, read.error));
        continue;
      }
      const digest = sha256Hex(read.bytes);
      // Same bytes (a git-sync checkout rewrites every file): reused, keyed by content.
      if (cached?.digest === digest && depsUnchanged(cached)) {
        keep(file, { ...cached, stat });
        continue;
      }
      digests.push(`${digest}  ${file}`);
      const decoded = decodeUtf8(read.bytes);
      if (!('text' in decoded)) {
        issues.push({
          file,
          line: decoded.line,
          col: decoded.col,
          path: '',
          message: `file ${notUtf8Message(decoded.byte)}`,
          severity: 'error',
        });
        continue;
      }
      const previousParse = cached && { result: cached.result, dependencyUnchanged };
      const result = deepFreeze(
        parseConfigFile({ root, file, text: decoded.text, limits, previous: previousParse }),
      );
      next.set(file, { stat, digest, result });
      results.set(file, result);
      parsedCount += 1;
    }
    cache = next;

    const ordered = listing.files.flatMap((file) => results.get(file) ?? []);
    const resources: DesiredResource[] = [];
    let documents = 0;
    for (const result of ordered) {
      for (const issue of result.issues) issues.push(issue);
      for (const dep of result.dependencies)
        if (dep.file !== undefined) digests.push(`${dep.fingerprint}  ${dep.file}`);
      documents += result.documents.length;
      for (const doc of result.documents) if (doc.resource !== undefined) resources.push(doc.resource);
    }
    for (const issue of crossDocumentIssues(ordered)) issues.push(issue);
    if (listing.files.length === 0 && listing.issues.length === 0) {
      issues.push(
        fileIssue(
          '.',
          'no *.yaml or *.yml files in the config directory; an empty config is refused, never read as "nothing is desired"',
        ),
      );
    } else if (documents === 0 && !issues.some((issue) => issue.severity === 'error')) {
      issues.push(
        fileIssue(
          '.',
          'no documents in the YAML files of the config directory; an empty config is refused, never read as "nothing is desired"',
        ),
      );
    }

    issues.sort(compareIssues);
    const errors = issues.filter((issue) => issue.severity === 'error').length;
    if (errors > 0) {
      throw new ReconcileError(
        'CONFIG_INVALID',
        `${errors} problem${errors === 1 ? '' : 's'} in ${configDir}`,
        {
          details: { issues },
        },
      );
    }

    const state: DesiredState = deepFreeze({
      configDir: root,
      resources,
      digest: sha256Hex(`${[...new Set(digests)].sort().join('\n')}\n`),
      fileCount: listing.files.length,
      warnings: issues,
    });
    const changes = changesSince(previous, results);
    previous = results;
    return {
      state,
      changes,
      stats: { files: listing.files.length, parsed: parsedCount, reused },
    };
  }

  return { load };
}

/**
 * Subjects added, changed and removed between two successful loads, looking only at the
 * files whose results differ (a reused result is the same object): O(changed), not O(all).
 * Exact because subjects are unique within each successful load, so a subject cannot hide
 * in a file that did not change.
 */
function changesSince(
  before: ReadonlyMap<string, FileResult>,
  after: ReadonlyMap<string, FileResult>,
): DesiredStateChanges {
  const subjectsOf = (
    from: ReadonlyMap<string, FileResult>,
    other: ReadonlyMap<string, FileResult>,
  ): Map<string, string> => {
    const subjects = new Map<string, string>();
    for (const [file, result] of from) {
      if (other.get(file) === result) continue;
      for (const doc of result.documents)
        if (doc.resource) subjects.set(doc.resource.subject, doc.resource.digest);
    }
    return subjects;
  };
  const old = subjectsOf(before, after);
  const now = subjectsOf(after, before);
  const added: string[] = [];
  const changed: string[] = [];
  const removed: string[] = [];
  for (const [subject, digest] of now) {
    const was = old.get(subject);
    if (was === undefined) added.push(subject);
    else if (was !== digest) changed.push(subject);
  }
  for (const subject of old.keys()) if (!now.has(subject)) removed.push(subject);
  return { added: added.sort(), changed: changed.sort(), removed: removed.sort() };
}

/**
 * Loads a config directory once (the CLI's `validate`, `plan`, `apply`). Throws
 * ReconcileError CONFIG_INVALID with every issue when anything is wrong.
 */
export async function loadDesiredState(
  configDir: string,
  options: LoaderOptions = {},
): Promise<DesiredState> {
  const { state } = await createDesiredStateLoader(options).load(configDir);
  return state;
}
