/**
 * Rules across documents:
 * - `kind` + `metadata.name` is unique across the directory;
 * - no two documents of one kind target the same live object (same `target()`): both would
 *   write it and the last write would win at random;
 * - no two documents of one kind without an id share a natural key in a Shield Zone (docs/design.md,
 *   Identity: a rule's ruleName, a list's name): both would find or create one live object;
 * - no two documents, of any kinds, share another name of one live object (`aliases()`: an
 *   access list's configurationId, which a custom and a managed list document may both give).
 * What needs the live listing (a managed list by name and another by its listId) is found at
 * plan time (engine/conflicts.ts).
 * Each conflict is reported at the later document (by file, line, column) and names the first.
 *
 * The daemon re-runs these after every change among 10,000 resources, so they are kept as
 * an index updated file by file (O(changed files)), not rebuilt from every document.
 */

import type { FileResult } from './file-pieces.js';
import { issueLocation } from './issues.js';
import type { ConfigIssue, SourceLocation } from './types.js';

/** Indexes of names and targets over a set of file results, kept in step by `sync`. */
export interface RuleIndex {
  /** Makes the index describe exactly `results` (file → result); unchanged results cost nothing. */
  sync(results: ReadonlyMap<string, FileResult>): void;
  /** Every duplicate name, target, natural key and alias of the indexed results. */
  issues(): ConfigIssue[];
}

interface Occurrence {
  readonly subject: string;
  readonly at: SourceLocation;
  /** Set for targets: the formatted path of the target in the document. */
  readonly path: string;
  /** Set for natural keys: how the key is named in the message. */
  readonly label?: string;
}

function byPosition(a: Occurrence, b: Occurrence): number {
  if (a.at.file !== b.at.file) return a.at.file < b.at.file ? -1 : 1;
  return a.at.line - b.at.line || a.at.col - b.at.col;
}

/** One index (names, targets, natural keys, aliases): key → every document that has it, in position order. */
function createKeyIndex() {
  const occurrences = new Map<string, Occurrence[]>();
  const conflicted = new Set<string>();
  return {
    add(key: string, occurrence: Occurrence): void {
      const list = occurrences.get(key);
      if (list === undefined) {
        occurrences.set(key, [occurrence]);
        return;
      }
      list.push(occurrence);
      list.sort(byPosition);
      conflicted.add(key);
    },
    removeFile(key: string, file: string): void {
      const list = occurrences.get(key)?.filter((o) => o.at.file !== file) ?? [];
      if (list.length === 0) occurrences.delete(key);
      else occurrences.set(key, list);
      if (list.length < 2) conflicted.delete(key);
    },
    /** For each conflicted key: the first occurrence and the later ones. */
    *conflicts(): Generator<[string, Occurrence, Occurrence[]]> {
      for (const key of conflicted) {
        const [first, ...later] = occurrences.get(key) as Occurrence[];
        yield [key, first as Occurrence, later];
      }
    },
  };
}

type KeyIndex = ReturnType<typeof createKeyIndex>;

/** Creates an empty index. */
export function createRuleIndex(): RuleIndex {
  const indexed = new Map<string, FileResult>();
  const names = createKeyIndex();
  const targets = createKeyIndex();
  const naturalKeys = createKeyIndex();
  const aliases = createKeyIndex();

  function addFile(result: FileResult): void {
    for (const doc of result.documents) {
      if (doc.identity === undefined) continue;
      const { subject, at } = doc.identity;
      names.add(subject, { subject, at, path: 'metadata.name' });
      if (doc.target !== undefined)
        targets.add(doc.target.key, { subject, at: doc.target.at, path: doc.target.path });
      if (doc.naturalKey !== undefined) {
        const { key, at: keyAt, path, label } = doc.naturalKey;
        naturalKeys.add(key, { subject, at: keyAt, path, label });
      }
      for (const alias of doc.aliases ?? [])
        aliases.add(alias.key, { subject, at: alias.at, path: alias.path });
    }
  }

  function removeFile(result: FileResult): void {
    for (const doc of result.documents) {
      if (doc.identity === undefined) continue;
      names.removeFile(doc.identity.subject, result.file);
      if (doc.target !== undefined) targets.removeFile(doc.target.key, result.file);
      if (doc.naturalKey !== undefined) naturalKeys.removeFile(doc.naturalKey.key, result.file);
      for (const alias of doc.aliases ?? []) aliases.removeFile(alias.key, result.file);
    }
  }

  return {
    sync(results) {
      for (const [file, result] of indexed) {
        if (results.get(file) === result) continue;
        removeFile(result);
        indexed.delete(file);
      }
      for (const [file, result] of results) {
        if (indexed.get(file) === result) continue;
        addFile(result);
        indexed.set(file, result);
      }
    },
    issues() {
      const issues: ConfigIssue[] = [];
      /** An error at each later occurrence of every conflicted key of `index`, naming the first. */
      const report = (
        index: KeyIndex,
        message: (key: string, first: Occurrence, later: Occurrence) => string,
      ): void => {
        for (const [key, first, later] of index.conflicts()) {
          for (const o of later) {
            issues.push({ ...o.at, path: o.path, message: message(key, first, o), severity: 'error' });
          }
        }
      };
      report(
        names,
        (subject, first) => `duplicate name: ${subject} is already declared at ${issueLocation(first.at)}`,
      );
      report(
        targets,
        (key, first) =>
          `targets the same object (${key.slice(key.indexOf(' ') + 1)}) as ${first.subject} at ${issueLocation(first.at)}`,
      );
      report(
        aliases,
        (key, first) =>
          `names the same live object (${key}) as ${first.subject} at ${issueLocation(first.at)}`,
      );
      report(
        naturalKeys,
        (_key, first, o) =>
          `duplicate key: ${o.label ?? 'the key'} is also declared by ${first.subject} at ${issueLocation(first.at)}`,
      );
      return issues;
    },
  };
}
