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
 * Checked afresh over every document at each load, from the keys derived again from each
 * document's resource (document-keys.ts): for 10,000 resources a few milliseconds of the
 * daemon's reload, where an index kept between loads held a second copy of every key and
 * position (docs/performance.md, Memory).
 */

import { type DocumentKeys, type KeySlot, placeOf, resourceKeys } from './document-keys.js';
import type { DocumentResult, FileResult } from './file-pieces.js';
import { formatPath, issueLocation } from './issues.js';
import type { ConfigIssue, SourceLocation } from './types.js';

/** Where one document has a key: where it is written, and how messages name it. */
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

/**
 * One set of keys (names, targets, natural keys, aliases): the first document with each, and
 * every key more than one document has. Documents are kept as they are; where a key is written
 * is looked up only for the keys that conflict.
 */
class KeyIndex<Doc> {
  private readonly first = new Map<string, Doc>();
  private readonly repeated = new Map<string, Doc[]>();

  add(key: string, doc: Doc): void {
    const first = this.first.get(key);
    if (first === undefined) {
      this.first.set(key, doc);
      return;
    }
    const all = this.repeated.get(key);
    if (all === undefined) this.repeated.set(key, [first, doc]);
    else all.push(doc);
  }

  /** For each key more than one document has: the first occurrence by position, and the later ones. */
  *conflicts(
    occurrence: (doc: Doc, key: string) => Occurrence,
  ): Generator<[string, Occurrence, Occurrence[]]> {
    for (const [key, docs] of this.repeated) {
      const [first, ...later] = docs.map((doc) => occurrence(doc, key)).sort(byPosition);
      yield [key, first as Occurrence, later];
    }
  }
}

/** A document whose kind and name are valid (the only ones the rules compare), with its keys. */
interface Keyed {
  readonly file: string;
  readonly places: readonly number[];
  readonly keys: DocumentKeys;
}

/** The keys of a document whose kind and name are valid: derived from its resource, or as kept. */
function keysOfDocument(doc: DocumentResult): DocumentKeys | undefined {
  if (doc.places === undefined) return undefined;
  return doc.resource === undefined ? doc.keys : resourceKeys(doc.resource);
}

/** Every duplicate name, target, natural key and alias among the documents of `results`. */
export function crossDocumentIssues(results: Iterable<FileResult>): ConfigIssue[] {
  const names = new KeyIndex<DocumentResult>();
  const targets = new KeyIndex<DocumentResult>();
  const naturalKeys = new KeyIndex<DocumentResult>();
  const aliases = new KeyIndex<DocumentResult>();
  for (const result of results) {
    for (const doc of result.documents) {
      const keys = keysOfDocument(doc);
      if (keys === undefined) continue;
      names.add(keys.subject, doc);
      if (keys.target !== undefined) targets.add(keys.target.key, doc);
      if (keys.naturalKey !== undefined) naturalKeys.add(keys.naturalKey.key, doc);
      for (const alias of keys.aliases ?? []) aliases.add(alias.key, doc);
    }
  }
  const issues: ConfigIssue[] = [];
  /**
   * An error at each later occurrence of every conflicted key of `index`, naming the first.
   * `occurrence` is asked only for the documents of a conflict: their keys are derived again.
   */
  const report = (
    index: KeyIndex<DocumentResult>,
    occurrence: (keyed: Keyed, key: string) => Occurrence,
    message: (key: string, first: Occurrence, later: Occurrence) => string,
  ): void => {
    const located = (doc: DocumentResult, key: string) =>
      occurrence(
        {
          file: doc.source.file,
          places: doc.places as readonly number[],
          keys: keysOfDocument(doc) as DocumentKeys,
        },
        key,
      );
    for (const [key, first, later] of index.conflicts(located)) {
      for (const o of later)
        issues.push({ ...o.at, path: o.path, message: message(key, first, o), severity: 'error' });
    }
  };
  const at = (keyed: Keyed, slot: KeySlot) => placeOf(keyed.file, keyed.places, slot);
  report(
    names,
    (keyed) => ({ subject: keyed.keys.subject, at: at(keyed, 'name'), path: 'metadata.name' }),
    (key, first) => `duplicate name: ${key} is already declared at ${issueLocation(first.at)}`,
  );
  report(
    targets,
    (keyed) => {
      const target = keyed.keys.target as NonNullable<DocumentKeys['target']>;
      return { subject: keyed.keys.subject, at: at(keyed, 'target'), path: formatPath(target.path) };
    },
    (key, first) =>
      `targets the same ${key.slice(key.indexOf(' ') + 1)} as ${first.subject} at ${issueLocation(first.at)}`,
  );
  report(
    aliases,
    (keyed, key) => {
      const all = keyed.keys.aliases ?? [];
      const index = all.findIndex((a) => a.key === key);
      const alias = all[index] as NonNullable<DocumentKeys['aliases']>[number];
      return { subject: keyed.keys.subject, at: at(keyed, { alias: index }), path: formatPath(alias.path) };
    },
    (key, first) => `names the same live object (${key}) as ${first.subject} at ${issueLocation(first.at)}`,
  );
  report(
    naturalKeys,
    (keyed) => {
      const natural = keyed.keys.naturalKey as NonNullable<DocumentKeys['naturalKey']>;
      return {
        subject: keyed.keys.subject,
        at: at(keyed, 'naturalKey'),
        path: formatPath(natural.path),
        label: natural.label,
      };
    },
    (_key, first, o) =>
      `duplicate key: ${o.label ?? 'the key'} is also declared by ${first.subject} at ${issueLocation(first.at)}`,
  );
  return issues;
}
