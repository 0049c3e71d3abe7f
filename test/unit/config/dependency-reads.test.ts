/**
 * How often a load reads an entriesFile: the loader's reuse test and parseConfigFile's
 * document reuse ask the same question, and must share one answer per load.
 */
import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createDesiredStateLoader } from '../../../src/config/loader.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';

const reads = vi.hoisted(() => [] as string[]);

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  const readFileSync = (...args: Parameters<typeof actual.readFileSync>) => {
    reads.push(String(args[0]));
    return actual.readFileSync(...args);
  };
  return { ...actual, readFileSync };
});

const DNS = 'apiVersion: edgesync/v1\nkind: DnsZone\nmetadata: { name: a1 }\nspec: { id: 1, dnssec: true }\n';
const LIST =
  'apiVersion: edgesync/v1\nkind: AccessList\nmetadata: { name: office }\nspec: { shieldZoneId: 42, id: 9001, entriesFile: office.txt }\n';

/** Dates every file back an hour, out of the window in which a stat is not trusted. */
function age(dir: string, ...files: string[]): void {
  const past = new Date(Date.now() - 60 * 60 * 1000);
  for (const file of files) utimesSync(join(dir, file), past, past);
}

describe('entriesFile reads per load', () => {
  it('an edited entriesFile is checked once and read once more by the parse that uses it', async () => {
    const dir = writeTree(tempDir(), { 'all.yaml': `${DNS}---\n${LIST}`, 'office.txt': '203.0.113.1\n' });
    age(dir, 'all.yaml', 'office.txt');
    const loader = createDesiredStateLoader();
    await loader.load(dir);
    writeFileSync(join(dir, 'office.txt'), '203.0.113.1\n203.0.113.2\n');
    age(dir, 'office.txt');
    reads.length = 0;

    const second = await loader.load(dir);

    expect(second.changes).toEqual({ added: [], changed: ['AccessList/office'], removed: [] });
    expect(reads.filter((path) => path.endsWith('office.txt'))).toHaveLength(2);
  });

  it('an unchanged entriesFile of an unchanged file is not read at all', async () => {
    const dir = writeTree(tempDir(), { 'all.yaml': `${DNS}---\n${LIST}`, 'office.txt': '203.0.113.1\n' });
    age(dir, 'all.yaml', 'office.txt');
    const loader = createDesiredStateLoader();
    await loader.load(dir);
    reads.length = 0;

    const second = await loader.load(dir);

    expect(second.stats).toEqual({ files: 1, parsed: 0, reused: 1 });
    expect(reads).toEqual([]);
  });
});
