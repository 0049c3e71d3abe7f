/**
 * The nesting cap: a document deeper than `maxDepth` collections inside collections is refused
 * before the `yaml` parser builds anything of it.
 *
 * Why before: composing a document costs memory per level, and a file under the size cap can
 * hold millions of levels (`[[[[…]]]]`): parsing it would take hundreds of megabytes and many
 * seconds, enough to get a daemon OOM-killed and crash-looping on the same file. So the depth
 * is measured on the `yaml` package's own Lexer, which yields one token at a time and builds
 * no tree: the scan keeps a stack of at most `maxDepth + 1` entries and stops at the first
 * token past the cap, so its memory is bounded and its time linear in the text.
 *
 * Lexing costs a fraction of a parse, and almost no real document comes near the cap, so a
 * plain character scan first computes a bound the depth cannot exceed; only text whose bound
 * passes the cap is lexed.
 */
import { CST, Lexer } from 'yaml';

/** What the scan counts as a level: a collection inside another, block or flow. */
interface Level {
  readonly col: number;
  readonly type: 'seq' | 'map';
}

/**
 * A bound on the nesting depth of `text`, from characters alone. A block collection that
 * starts on an earlier line has a column no greater than the indentation of the lines inside
 * it, and two may share a column (a sequence as the value of a mapping key), so those are at
 * most `2 × (indent + 1)`; each one that starts on the line itself needs a `-`, `?` or `:`;
 * each flow level needs an opening bracket. Brackets are counted without ever subtracting a
 * closing one (a `]` inside quotes must not hide real levels), so the bound only errs high.
 */
function depthBound(text: string): number {
  let brackets = 0;
  let bound = 0;
  let indent = 0;
  let indicators = 0;
  let atLineStart = true;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      bound = Math.max(bound, 2 * (indent + 1) + indicators + brackets);
      indent = 0;
      indicators = 0;
      atLineStart = true;
      continue;
    }
    if (atLineStart) {
      if (c === 32) {
        indent += 1;
        continue;
      }
      atLineStart = false;
    }
    // - ? : [ {
    if (c === 45 || c === 63 || c === 58) indicators += 1;
    else if (c === 91 || c === 123) brackets += 1;
  }
  return Math.max(bound, 2 * (indent + 1) + indicators + brackets);
}

/** The lexer's markers (document mode, scalar, flow error end) are not source text. */
function isMarker(token: string): boolean {
  return token.length === 1 && token.charCodeAt(0) < 0x20 && token !== '\n' && token !== '\t';
}

/**
 * The offset in `text` of the first token that nests deeper than `maxDepth` collections, or
 * undefined when no document of `text` does. Block levels are tracked by the column of
 * their indicator or first key, flow levels by their brackets.
 */
export function tooDeepAt(text: string, maxDepth: number): number | undefined {
  if (depthBound(text) <= maxDepth) return undefined;
  const stack: Level[] = [];
  let flow = 0;
  let offset = 0;
  let col = 0;
  /** Column of the first content token since the line start or the last block indicator. */
  let keyCol: number | undefined;
  let keyOffset = 0;
  /** A `key:` whose value has not started on its line: a sequence at its column is its value. */
  let awaitingValue = false;

  const open = (at: number, type: Level['type']): boolean => {
    for (let top = stack.at(-1); top !== undefined; top = stack.at(-1)) {
      const sameColumnValue = type === 'seq' && top.type === 'map' && awaitingValue;
      if (top.col > at || (top.col === at && top.type !== type && !sameColumnValue)) stack.pop();
      else break;
    }
    const top = stack.at(-1);
    if (top !== undefined && top.col === at && top.type === type) return false;
    stack.push({ col: at, type });
    return stack.length + flow > maxDepth;
  };

  for (const token of new Lexer().lex(text)) {
    if (isMarker(token)) continue;
    const at = offset;
    const atCol = col;
    offset += token.length;
    const newline = token.lastIndexOf('\n');
    col = newline === -1 ? col + token.length : token.length - newline - 1;
    const type = CST.tokenType(token);
    if (type === 'doc-start' || type === 'doc-end') {
      stack.length = 0;
      flow = 0;
      keyCol = undefined;
      awaitingValue = false;
      continue;
    }
    if (type === 'newline') {
      keyCol = undefined;
      continue;
    }
    if (type === 'space' || type === 'comment' || type === 'comma') continue;
    if (type === 'flow-seq-end' || type === 'flow-map-end') {
      flow = Math.max(0, flow - 1);
      continue;
    }
    if (flow === 0) {
      if (type === 'seq-item-ind' || type === 'explicit-key-ind') {
        const deeper = open(atCol, type === 'seq-item-ind' ? 'seq' : 'map');
        keyCol = undefined;
        awaitingValue = false;
        if (deeper) return at;
        continue;
      }
      if (type === 'map-value-ind') {
        // The level is the key's: its position is where to look.
        const deeper = keyCol !== undefined && open(keyCol, 'map');
        keyCol = undefined;
        awaitingValue = true;
        if (deeper) return keyOffset;
        continue;
      }
      if (keyCol === undefined) {
        keyCol = atCol;
        keyOffset = at;
      }
      if (type !== 'anchor' && type !== 'tag') awaitingValue = false;
    }
    if (type === 'flow-seq-start' || type === 'flow-map-start') {
      flow += 1;
      if (stack.length + flow > maxDepth) return at;
    }
  }
  return undefined;
}

/** What one file may hold before it is refused unparsed (see `overBudgetAt`). */
export interface WidthBudget {
  /** Scalars, collections and aliases, over every document of the file. */
  readonly maxNodes: number;
  readonly maxDocuments: number;
}

/**
 * A bound on the nodes of `text` from characters alone: a node past the first of a document
 * needs a separator or indicator (`,` `-` `:` `?` `[` `{`) or a line of its own, so nodes are
 * at most those characters plus the lines, plus one.
 */
function nodeBound(text: string): number {
  let count = 1;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    // \n , - : ? [ {
    if (c === 10 || c === 44 || c === 45 || c === 58 || c === 63 || c === 91 || c === 123) count += 1;
  }
  return count;
}

/**
 * Where `text` first goes over `budget`, or undefined when it stays within. The width twin of
 * `tooDeepAt`: a 500 KB flow list of 250,000 items, or a million empty `---` documents,
 * costs the parser hundreds of megabytes; counted on the Lexer's tokens, which build no tree,
 * the file is refused in time linear in its text and constant memory. Most files are far
 * under the budget by a character count alone and are never lexed here.
 */
export function overBudgetAt(
  text: string,
  budget: WidthBudget,
): { offset: number; what: 'nodes' | 'documents' } | undefined {
  if (nodeBound(text) <= Math.min(budget.maxNodes, budget.maxDocuments)) return undefined;
  let nodes = 0;
  let documents = 0;
  let offset = 0;
  let contentInDocument = false;
  for (const token of new Lexer().lex(text)) {
    const at = offset;
    // A plain scalar is announced by a marker (not source text) before its text.
    if (!isMarker(token)) offset += token.length;
    const type = CST.tokenType(token);
    if (type === 'doc-start') {
      documents += 1;
      contentInDocument = true;
      if (documents > budget.maxDocuments) return { offset: at, what: 'documents' };
      continue;
    }
    if (
      type === 'scalar' ||
      type === 'single-quoted-scalar' ||
      type === 'double-quoted-scalar' ||
      type === 'block-scalar-header' ||
      type === 'alias' ||
      type === 'flow-seq-start' ||
      type === 'flow-map-start' ||
      type === 'seq-item-ind' ||
      type === 'explicit-key-ind'
    ) {
      if (!contentInDocument) {
        // Content before any `---` is the file's first document.
        documents += 1;
        contentInDocument = true;
        if (documents > budget.maxDocuments) return { offset: at, what: 'documents' };
      }
      nodes += 1;
      if (nodes > budget.maxNodes) return { offset: at, what: 'nodes' };
    }
  }
  return undefined;
}
