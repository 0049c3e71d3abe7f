/**
 * YAML with positions: parse a file into documents, and turn a path inside a document into
 * the line and column a person should look at.
 *
 * Positions are looked up only for documents that have something to report (or for the few
 * nodes the cross-document rules may cite), so a clean load pays almost nothing for them.
 */
import { type Document, isMap, isNode, isScalar, LineCounter, type Node, parseAllDocuments } from 'yaml';
import type { DocPath } from './issues.js';

/** 1-based line and column. */
export interface Position {
  readonly line: number;
  readonly col: number;
}

/** The documents of one file and the line table that converts their offsets. */
export interface YamlFile {
  readonly documents: readonly Document.Parsed[];
  readonly lineCounter: LineCounter;
}

/**
 * Parses every document of a file. YAML 1.2 core schema (so `yes` stays a string), unique
 * keys, no merge keys; errors stay on each document (`doc.errors`) with their offsets.
 */
export function parseYamlFile(text: string): YamlFile {
  const lineCounter = new LineCounter();
  const parsed = parseAllDocuments(text, { lineCounter, prettyErrors: false });
  // An EmptyStream (only comments or nothing) is an array-like with no documents.
  const documents = Array.isArray(parsed) ? parsed : [];
  return { documents, lineCounter };
}

/** Position of a character offset. */
function positionOf(lineCounter: LineCounter, offset: number): Position {
  const { line, col } = lineCounter.linePos(offset);
  return { line, col };
}

function keyMatches(key: unknown, segment: string | number): boolean {
  const value = isScalar(key) ? key.value : key;
  return value === segment || String(value) === String(segment);
}

/**
 * Finds the position for `path` in `doc`:
 * - the value's node when it exists; for a block mapping or list under a key, the key (the
 *   line that names it, not the first line of its contents);
 * - with `atKey`, or when the value is missing (a required key that is not there), the key
 *   of the last segment, else the nearest ancestor that exists, up to the document start.
 * Paths through aliases stop at the alias, which is where the user wrote the value.
 */
export function locate(
  doc: Document.Parsed,
  lineCounter: LineCounter,
  path: DocPath,
  atKey = false,
): Position {
  const nodeAt = (p: DocPath): Node | undefined => {
    const node = p.length === 0 ? doc.contents : doc.getIn(p, true);
    return isNode(node) ? node : undefined;
  };
  const keyAt = (p: DocPath): Node | undefined => {
    const parent = nodeAt(p.slice(0, -1));
    const last = p.at(-1);
    if (!isMap(parent) || last === undefined) return undefined;
    const pair = parent.items.find((item) => keyMatches(item.key, last));
    return isNode(pair?.key) ? pair.key : undefined;
  };
  const at = (node: Node | undefined): Position | undefined =>
    node?.range ? positionOf(lineCounter, node.range[0]) : undefined;

  if (!atKey) {
    const node = nodeAt(path);
    if (node !== undefined) {
      const blockCollection = 'items' in node && !('flow' in node && node.flow);
      // `key:` with nothing after it: the null has no text of its own, the key does.
      const emptyValue = isScalar(node) && node.value === null && node.range?.[0] === node.range?.[1];
      const found =
        (blockCollection || emptyValue) && typeof path.at(-1) === 'string' ? at(keyAt(path)) : undefined;
      const here = found ?? at(node);
      if (here !== undefined) return here;
    }
  }
  for (let p = path; p.length > 0; p = p.slice(0, -1)) {
    const found = typeof p.at(-1) === 'string' ? at(keyAt(p)) : at(nodeAt(p));
    if (found !== undefined) return found;
  }
  return documentStart(doc, lineCounter);
}

/** Where a document's content starts (its first key), or its `---` when it has none. */
export function documentStart(doc: Document.Parsed, lineCounter: LineCounter): Position {
  return positionOf(lineCounter, documentStartOffset(doc));
}

/** The text offset documentStart names. */
export function documentStartOffset(doc: Document.Parsed): number {
  return doc.contents?.range[0] ?? doc.range[0];
}
