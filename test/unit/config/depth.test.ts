/**
 * The nesting cap (issue 23 item 2): the scan agrees with the tree `yaml` would build, for
 * every way YAML nests, exactly at the cap and one past it.
 */
import { describe, expect, it } from 'vitest';
import { isCollection, type Node, parseDocument } from 'yaml';
import { tooDeepAt } from '../../../src/config/depth.js';

/** Depth of the tree the parser composes: collections inside collections. */
function composedDepth(text: string): number {
  const depth = (node: unknown): number => {
    if (!isCollection(node)) return 0;
    let deepest = 0;
    for (const item of node.items as unknown[]) {
      const pair = item as { key?: Node; value?: Node };
      const children = isCollection(item) || !('value' in (item as object)) ? [item] : [pair.key, pair.value];
      for (const child of children) deepest = Math.max(deepest, depth(child));
    }
    return 1 + deepest;
  };
  return depth(parseDocument(text).contents);
}

const indent = (n: number): string => ' '.repeat(n);
/** Each shape builds a document nested exactly `n` deep. */
const SHAPES: Record<string, (n: number) => string> = {
  'flow sequences': (n) => `${'['.repeat(n)}${']'.repeat(n)}\n`,
  'flow mappings': (n) => `${'{a: '.repeat(n - 1)}{a: 1}${'}'.repeat(n - 1)}\n`,
  'block mappings': (n) =>
    Array.from({ length: n }, (_, i) => `${indent(i)}k${i}:${i === n - 1 ? ' v' : ''}`).join('\n'),
  'compact sequences': (n) => `${'- '.repeat(n)}x\n`,
  'sequences as values at the key column': (n) =>
    Array.from({ length: n / 2 }, (_, i) => `${indent(2 * i)}- k${i}:`)
      .join('\n')
      .replace(/^- /, 'k: !!map\n- ')
      .replace(/:$/, ': v'),
  'explicit keys': (n) => `${'? '.repeat(n)}x\n`,
  'block then flow': (n) =>
    `${Array.from({ length: n / 2 }, (_, i) => `${indent(i)}k${i}:`).join('\n')} ${'['.repeat(n / 2)}${']'.repeat(n / 2)}\n`,
  'anchors and tags between levels': (n) =>
    `${Array.from({ length: n }, (_, i) => `${indent(2 * i)}- &a${i} !!seq`).join('\n')}\n${indent(2 * n)}- x\n`,
};

describe('tooDeepAt', () => {
  it.each(Object.keys(SHAPES))('%s: the scan refuses exactly what nests deeper than the cap', (shape) => {
    const build = SHAPES[shape] as (n: number) => string;
    for (const n of [62, 64, 66]) {
      const text = build(n);
      const real = composedDepth(text);
      // The shapes are what they claim: n levels (the last one's items are the leaves).
      expect(real, shape).toBeGreaterThanOrEqual(n);
      expect(real, shape).toBeLessThanOrEqual(n + 1);
      expect(tooDeepAt(text, 64) !== undefined, `${shape}, composed depth ${real}`).toBe(real > 64);
    }
  });

  it('lets a real document through without lexing it, and counts no level inside quotes', () => {
    expect(tooDeepAt('a: { b: [1, 2] }\nc:\n  - d: "[[[[[[[[[[[[[[[["\n', 3)).toBeUndefined();
    expect(tooDeepAt(`v: "${']'.repeat(100)}"\n${'['.repeat(70)}${']'.repeat(70)}\n`, 64)).toBeDefined();
  });

  it('names the offset of the first token past the cap', () => {
    expect(tooDeepAt(`${'['.repeat(100)}${']'.repeat(100)}`, 64)).toBe(64);
  });
});
