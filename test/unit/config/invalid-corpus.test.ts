import { readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createDesiredStateLoader } from '../../../src/config/loader.js';
import { DNS, INVALID_TREES } from '../../helpers/invalid-trees.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';
import { loadIssueLines, loadIssues } from './load-issues.js';

const CORPUS = fileURLToPath(new URL('../../fixtures/desired/invalid/', import.meta.url));
const cases = readdirSync(CORPUS).sort();

describe('invalid desired state: the committed corpus', () => {
  it('holds at least 40 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  it.each(cases)('%s reports exactly its expected lines', async (name) => {
    const expected = readFileSync(join(CORPUS, name, 'expected.txt'), 'utf8')
      .trimEnd()
      .split('\n');

    const lines = await loadIssueLines(join(CORPUS, name));

    expect(lines).toEqual(expected);
  });

  it('reports every problem as an error, sorted by file, line and column', async () => {
    const issues = await loadIssues(join(CORPUS, 'enum-unknown-names'));

    expect(issues.map((i) => [i.file, i.line, i.col, i.severity])).toEqual([
      ['lists.yaml', 4, 69, 'error'],
      ['rules.yaml', 10, 17, 'error'],
      ['rules.yaml', 12, 19, 'error'],
      ['rules.yaml', 14, 38, 'error'],
    ]);
  });
});

describe('invalid desired state: cases git cannot hold', () => {
  it.each(INVALID_TREES)('refuses $name', async (tree) => {
    expect(await loadIssueLines(tree.build())).toEqual(tree.lines);
  });

  it('follows symlinks that stay inside, walking a folder reached twice once', async () => {
    const dir = writeTree(tempDir(), { 'zones/dns.yaml': DNS('example-com') });
    symlinkSync(join(dir, 'zones'), join(dir, 'again'));

    const { state } = await createDesiredStateLoader().load(dir);

    // The link sorts first, so the file is read once, under the link's name.
    expect(state.resources.map((r) => [r.subject, r.source.file])).toEqual([
      ['DnsZone/example-com', 'again/dns.yaml'],
    ]);
  });

  it('refuses a symlink into a dot-folder, as a file or a folder: the walk never reads what it skips', async () => {
    const dir = writeTree(tempDir(), {
      '.git/zones/dns.yaml': DNS('example-com'),
      '.state/dns.yaml': DNS('example-org'),
    });
    symlinkSync(join(dir, '.git/zones'), join(dir, 'zones'));
    symlinkSync(join(dir, '.state/dns.yaml'), join(dir, 'leak.yaml'));

    expect(await loadIssueLines(dir)).toEqual([
      'leak.yaml: is a symlink to .state/dns.yaml, refused: .state starts with "."; dot-files and dot-folders (.git, the state directory, .emulator) are never read',
      'zones: is a symlink to .git/zones, refused: .git starts with "."; dot-files and dot-folders (.git, the state directory, .emulator) are never read',
    ]);
  });

  it('applies a configured size cap to entriesFile too', async () => {
    const dir = writeTree(tempDir(), {
      'lists.yaml':
        'apiVersion: edgesync/v1\nkind: AccessList\nmetadata: { name: office }\nspec: { shieldZoneId: 42, id: 9001, entriesFile: office.txt }\n',
      'office.txt': '203.0.113.1\n'.repeat(100),
    });

    expect(await loadIssueLines(dir, { limits: { maxFileBytes: 1000 } })).toEqual([
      'lists.yaml:4:50: office.txt is 1200 bytes, over the limit of 1000 bytes per file (at spec.entriesFile)',
    ]);
  });

  it('applies a configured alias cap', async () => {
    const dir = writeTree(tempDir(), {
      'dns.yaml':
        'apiVersion: edgesync/v1\nkind: DnsZone\nmetadata: { name: a }\nspec: &s { id: 1, dnssec: true }\nx: *s\n',
    });

    expect(await loadIssueLines(dir, { limits: { maxAliasCount: 0 } })).toEqual([
      'dns.yaml:5:4: too many YAML alias expansions (limit 0); refused as a guard against alias bombs',
    ]);
  });
});
