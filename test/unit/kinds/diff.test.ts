import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { FieldDiff } from '../../../src/engine/types.js';
import { compact, diffDeclared, jsonEqual } from '../../../src/kinds/common/diff.js';

const PAIRS: readonly [string, unknown, unknown][] = [
  ['equal strings', 'a', 'a'],
  ['different strings', 'a', 'b'],
  ['NaN and NaN', Number.NaN, Number.NaN],
  ['0 and -0', 0, -0],
  ['null and undefined', null, undefined],
  ['null and an object', null, {}],
  ['a number and its string', 1, '1'],
  ['equal arrays', [1, [2, 3]], [1, [2, 3]]],
  ['arrays of different length', [1, 2], [1, 2, 3]],
  ['arrays in another order', [1, 2], [2, 1]],
  ['an array and an object', [], {}],
  ['equal objects in another key order', { a: 1, b: { c: [1] } }, { b: { c: [1] }, a: 1 }],
  ['an extra key', { a: 1 }, { a: 1, b: 2 }],
  ['a key holding undefined and no key', { a: undefined }, {}],
  ['different keys, same count', { a: 1 }, { b: 1 }],
  ['nested difference', { a: { b: [1, { c: true }] } }, { a: { b: [1, { c: false }] } }],
  ['a null-prototype object and a plain one', Object.assign(Object.create(null), { a: 1 }), { a: 1 }],
];

describe('jsonEqual', () => {
  it.each(PAIRS)('decides %s as isDeepStrictEqual does', (_, a, b) => {
    expect([jsonEqual(a, b), jsonEqual(b, a)]).toEqual([isDeepStrictEqual(a, b), isDeepStrictEqual(b, a)]);
  });
});

describe('diffDeclared', () => {
  it('reports only declared leaves that differ, with their paths', () => {
    const out: FieldDiff[] = [];

    diffDeclared(
      compact({ name: 'x', config: { n: 1, list: [1, 2], flag: undefined, nested: { deep: 'y' } } }),
      { name: 'x', config: { n: 2, list: [1, 2], flag: true, extra: 1 } },
      '',
      out,
    );

    expect(out).toEqual([
      { path: 'config.n', live: 2, desired: 1 },
      { path: 'config.nested.deep', live: undefined, desired: 'y' },
    ]);
  });

  it('compares a declared object with a live scalar or array as a whole', () => {
    const out: FieldDiff[] = [];

    diffDeclared({ a: { b: 1 }, c: { d: 1 } }, { a: 'text', c: [1] }, '', out);

    expect(out).toEqual([
      { path: 'a', live: 'text', desired: { b: 1 } },
      { path: 'c', live: [1], desired: { d: 1 } },
    ]);
  });
});
