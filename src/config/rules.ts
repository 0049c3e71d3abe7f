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
 * Checked afresh over every document at each load, from the keys each file's result keeps:
 * for 10,000 resources a few milliseconds of the daemon's reload, where an index kept between
 * loads held a second copy of every key and position (docs/performance.md, Memory).
 */

import type { FileResult } from './file-pieces.js';
import { issueLocation } from './issues.js';
import type { ConfigIssue, SourceLocation } from './types.js';

interface Occurrence {
  readonly subject: string;
  readonly at: SourceLocation;
  /** The formatted path of the key in the document. */
  readonly path: string;
  /** Set for natural keys: how the key is named in the message. */
  readonly label?: string;
}

function byPosition(a: Occurrence, b: Occurrence): number {
  if (a.at.file !== b.at.file) return a.at.file < b.at.file ? -1 : 1;
  return a.at.line - b.at.line || a.at.col - b.at.col;
}

/** One set of keys (names, targets, natural keys, aliases): the first document with each, and every key more than one has. */
class KeyIndex {
  private readonly first = new Map<string, Occurrence>();
  private readonly repeated = new Map<string, Occurrence[]>();

  add(key: string, occurrence: Occurrence): void {
    const first = this.first.get(key);
    if (first === undefined) {
      this.first.set(key, occurrence);
      return;
    }
    const all = this.repeated.get(key);
    if (all === undefined) this.repeated.set(key, [first, occurrence]);
    else all.push(occurrence);
  }

  /** For each key more than one document has: the first occurrence by position, and the later ones. */
  *conflicts(): Generator<[string, Occurrence, Occurrence[]]> {
    for (const [key, all] of this.repeated) {
      const [first, ...later] = all.sort(byPosition);
      yield [key, first as Occurrence, later];
    }
  }
}

/** Every duplicate name, target, natural key and alias among the documents of `results`. */
export function crossDocumentIssues(results: Iterable<FileResult>): ConfigIssue[] {
  const names = new KeyIndex();
  const targets = new KeyIndex();
  const naturalKeys = new KeyIndex();
  const aliases = new KeyIndex();
  for (const result of results) {
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
  const issues: ConfigIssue[] = [];
  /** An error at each later occurrence of every conflicted key of `index`, naming the first. */
  const report = (
    index: KeyIndex,
    message: (key: string, first: Occurrence, later: Occurrence) => string,
  ): void => {
    for (const [key, first, later] of index.conflicts()) {
      for (const o of later)
        issues.push({ ...o.at, path: o.path, message: message(key, first, o), severity: 'error' });
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
    (key, first) => `names the same live object (${key}) as ${first.subject} at ${issueLocation(first.at)}`,
  );
  report(
    naturalKeys,
    (_key, first, o) =>
      `duplicate key: ${o.label ?? 'the key'} is also declared by ${first.subject} at ${issueLocation(first.at)}`,
  );
  return issues;
}
