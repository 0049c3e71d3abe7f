import { readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * src/emulator may import only src/domain, node built-ins and its npm dependencies (yaml,
 * zod): never src/api, so the client and the emulator cannot share a wrong assumption.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const EMULATOR = join(ROOT, 'src/emulator');
const ALLOWED_PACKAGES = new Set(['yaml', 'zod']);

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sourceFiles(path)));
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out;
}

describe('emulator import boundary', () => {
  it('imports only domain, node built-ins, yaml and zod', async () => {
    const violations: string[] = [];
    const files = await sourceFiles(EMULATOR);
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      for (const match of text.matchAll(/^\s*(?:import|export)[^'"]*from\s+['"]([^'"]+)['"]/gm)) {
        const spec = match[1] as string;
        if (spec.startsWith('node:') || ALLOWED_PACKAGES.has(spec)) continue;
        if (spec.startsWith('.')) {
          const target = relative(ROOT, resolve(file, '..', spec));
          if (target.startsWith('src/emulator/') || target.startsWith('src/domain/')) continue;
        }
        violations.push(`${relative(ROOT, file)}: ${spec}`);
      }
    }

    expect(files.length).toBeGreaterThan(10);
    expect(violations).toEqual([]);
  });
});
