/**
 * `bench/` is not part of the product (issue 24): the program's build holds `src/` alone, and
 * neither the program nor the tests under `test/` import from `bench/`, so the benchmark can
 * change or go without touching either. The bench's own tests live beside it (`bench/*.test.ts`)
 * and go with it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(dir, file));
}

describe('bench/ stays apart', () => {
  it('the build of the program includes src/ only, and the bench builds elsewhere', () => {
    const build = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8'));
    const bench = JSON.parse(readFileSync(join(ROOT, 'tsconfig.bench.json'), 'utf8'));

    expect(build.include).toEqual(['src']);
    expect(bench.compilerOptions.outDir).not.toBe('dist');
  });

  it('no file under src/ or test/ imports from bench/', () => {
    const importers = [...tsFiles('src'), ...tsFiles('test')].filter((file) =>
      /from '(\.\.\/)+bench\//.test(readFileSync(join(ROOT, file), 'utf8')),
    );

    expect(importers).toEqual([]);
  });
});
