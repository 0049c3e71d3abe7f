import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.js';

describe('docs/errors.md', () => {
  const doc = readFileSync(resolve(import.meta.dirname, '../../docs/errors.md'), 'utf8');
  const rows = [...doc.matchAll(/^\|\s*`([A-Z_]+)`\s*\|\s*(yes|no)[^|]*\|/gm)].map((m) => [
    m[1],
    m[2] === 'yes',
  ]);

  it('documents exactly the codes of the error table, in its order', () => {
    expect(rows.map(([code]) => code)).toEqual(Object.keys(ERROR_CODES));
  });

  it('says "retried" exactly for the retryable codes', () => {
    expect(Object.fromEntries(rows)).toEqual(
      Object.fromEntries(Object.entries(ERROR_CODES).map(([code, info]) => [code, info.retryable])),
    );
  });
});
