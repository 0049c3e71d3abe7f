import { describe, expect, it } from 'vitest';
import { canonicalJson, resourceDigest } from '../../../src/config/canonical.js';

describe('canonicalJson', () => {
  it('sorts keys by UTF-16 code unit at every level, drops undefined members and keeps array order', () => {
    const value = {
      b: [1, { z: undefined, y: 'q"\\\n', x: null }, undefined],
      a: {},
      '10': true,
      '9': false,
      B: [],
      é: 1.5,
      'a"b': { c: {} },
    };

    expect(canonicalJson(value)).toBe(
      '{"10":true,"9":false,"B":[],"a":{},"a\\"b":{"c":{}},"b":[1,{"x":null,"y":"q\\"\\\\\\n"},null],"é":1.5}',
    );
  });

  it('gives one text whatever order the keys were written in', () => {
    expect(canonicalJson({ x: 1, y: { b: 2, a: [3] } })).toBe(canonicalJson({ y: { a: [3], b: 2 }, x: 1 }));
  });

  it('keeps the digest of a resource the same across versions (state files hold it)', () => {
    // Computed by the first implementation; a change here marks every resource of every
    // existing state as changed in the desired state.
    expect(
      resourceDigest(
        'WafCustomRule',
        { name: 'r1', suspend: false, drift: 'correct' },
        {
          shieldZoneId: 42,
          ruleName: 'Block',
          ruleConfiguration: {
            actionType: 1,
            variableTypes: { REQUEST_URI: '' },
            transformationTypes: [8, 1],
          },
        },
      ),
    ).toBe('fcb748c784170defa681ffcd0593da471da8f3d19fbf8dbc7959773ea7a89f75');
  });
});
