import { mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createDesiredStateLoader } from '../../../src/config/loader.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';
import { loadIssueLines, loadIssues } from './load-issues.js';

const CORPUS = fileURLToPath(new URL('../../fixtures/desired/invalid/', import.meta.url));
const cases = readdirSync(CORPUS).sort();

const DNS = (name: string): string =>
  `apiVersion: edgesync/v1\nkind: DnsZone\nmetadata: { name: ${name} }\nspec: { id: 1, dnssec: true }\n`;

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
  it('refuses an empty directory', async () => {
    const dir = tempDir();

    expect(await loadIssueLines(dir)).toEqual([
      '.: no *.yaml or *.yml files in the config directory; an empty config is refused, never read as "nothing is desired"',
    ]);
  });

  it('refuses a directory that does not exist', async () => {
    expect(await loadIssueLines(join(tempDir(), 'missing'))).toEqual([
      '.: the config directory does not exist',
    ]);
  });

  it('refuses a file symlink that leaves the directory, and does not read it', async () => {
    const outside = writeTree(tempDir(), { 'elsewhere.yaml': DNS('stolen') });
    const dir = writeTree(tempDir(), { 'dns.yaml': DNS('example-com') });
    symlinkSync(join(outside, 'elsewhere.yaml'), join(dir, 'linked.yaml'));

    expect(await loadIssueLines(dir)).toEqual([
      'linked.yaml: is a symlink that leaves the config directory; refused',
    ]);
  });

  it('refuses a folder symlink that leaves the directory', async () => {
    const outside = writeTree(tempDir(), { 'dns.yaml': DNS('stolen') });
    const dir = writeTree(tempDir(), { 'dns.yaml': DNS('example-com') });
    symlinkSync(outside, join(dir, 'shared'));

    expect(await loadIssueLines(dir)).toEqual([
      'shared: is a symlink that leaves the config directory; refused',
    ]);
  });

  it('follows symlinks that stay inside, walking a folder reached twice once', async () => {
    const dir = writeTree(tempDir(), { 'zones/dns.yaml': DNS('example-com') });
    symlinkSync(join(dir, 'zones'), join(dir, 'again'));

    const { state } = await createDesiredStateLoader({ workers: 0 }).load(dir);

    // The link sorts first, so the file is read once, under the link's name.
    expect(state.resources.map((r) => [r.subject, r.source.file])).toEqual([
      ['DnsZone/example-com', 'again/dns.yaml'],
    ]);
  });

  it('refuses an entriesFile symlink that leaves the directory', async () => {
    const outside = writeTree(tempDir(), { 'secrets.txt': '10.0.0.1\n' });
    const dir = writeTree(tempDir(), {
      'lists.yaml':
        'apiVersion: edgesync/v1\nkind: AccessList\nmetadata: { name: office }\nspec:\n  shieldZoneId: 42\n  id: 9001\n  entriesFile: lists/office.txt\n',
    });
    mkdirSync(join(dir, 'lists'));
    symlinkSync(join(outside, 'secrets.txt'), join(dir, 'lists/office.txt'));

    expect(await loadIssueLines(dir)).toEqual([
      'lists.yaml:7:16: lists/office.txt is a symlink that leaves the config directory; refused (at spec.entriesFile)',
    ]);
  });

  it('reports bytes that are not UTF-8 at the first bad byte', async () => {
    const dir = writeTree(tempDir(), {
      'dns.yaml': Buffer.concat([
        Buffer.from('apiVersion: edgesync/v1\nkind: DnsZone\nmetadata: { name: caf'),
        Buffer.from([0xe9]),
        Buffer.from(' }\nspec: { id: 1, dnssec: true }\n'),
      ]),
    });

    expect(await loadIssueLines(dir)).toEqual([
      'dns.yaml:3:22: file is not valid UTF-8 (byte 0xe9); save it as UTF-8',
    ]);
  });

  it('reports an entriesFile that is not UTF-8', async () => {
    const dir = writeTree(tempDir(), {
      'lists.yaml':
        'apiVersion: edgesync/v1\nkind: AccessList\nmetadata: { name: office }\nspec: { shieldZoneId: 42, id: 9001, entriesFile: office.txt }\n',
      'office.txt': Buffer.from([0x31, 0x30, 0x2e, 0x30, 0x0a, 0xff, 0xfe, 0x0a]),
    });

    expect(await loadIssueLines(dir)).toEqual([
      'lists.yaml:4:50: office.txt is not valid UTF-8 (byte 0xff); save it as UTF-8 at line 2, column 1 (at spec.entriesFile)',
    ]);
  });

  it('refuses a file over the default 4 MiB cap without parsing it', async () => {
    const dir = writeTree(tempDir(), {
      'dns.yaml': DNS('example-com'),
      'huge.yaml': `# ${'x'.repeat(4 * 1024 * 1024)}\n`,
    });

    expect(await loadIssueLines(dir)).toEqual([
      'huge.yaml: is 4194307 bytes, over the limit of 4194304 bytes per file',
    ]);
  });

  it('applies a configured size cap to entriesFile too', async () => {
    const dir = writeTree(tempDir(), {
      'lists.yaml':
        'apiVersion: edgesync/v1\nkind: AccessList\nmetadata: { name: office }\nspec: { shieldZoneId: 42, id: 9001, entriesFile: office.txt }\n',
      'office.txt': '203.0.113.1\n'.repeat(100),
    });

    expect(await loadIssueLines(dir, { workers: 0, limits: { maxFileBytes: 1000 } })).toEqual([
      'lists.yaml:4:50: office.txt is 1200 bytes, over the limit of 1000 bytes per file (at spec.entriesFile)',
    ]);
  });

  it('applies a configured alias cap', async () => {
    const dir = writeTree(tempDir(), {
      'dns.yaml':
        'apiVersion: edgesync/v1\nkind: DnsZone\nmetadata: { name: a }\nspec: &s { id: 1, dnssec: true }\nx: *s\n',
    });

    expect(await loadIssueLines(dir, { workers: 0, limits: { maxAliasCount: 0 } })).toEqual([
      'dns.yaml:5:4: too many YAML alias expansions (limit 0); refused as a guard against alias bombs',
    ]);
  });
});
