/**
 * Invalid config directories git cannot hold (empty or missing directories, symlinks that
 * leave the tree, bytes that are not UTF-8, a file over the size cap), built at run time.
 * The loader's corpus test checks the exact lines each one reports; the hostile-config suite
 * runs each one through `edgesync apply` and checks that nothing reaches the API.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, writeTree } from './temp-dir.js';

/** One case: how to build its directory, and the issue lines the loader prints for it. */
export interface InvalidTree {
  readonly name: string;
  /** Builds the directory (removed after the test) and returns the config dir to load. */
  build(): string;
  readonly lines: readonly string[];
}

/** A valid DnsZone document named `name` (zone id 1, DNSSEC on). */
export const DNS = (name: string): string =>
  `apiVersion: edgesync/v1\nkind: DnsZone\nmetadata: { name: ${name} }\nspec: { id: 1, dnssec: true }\n`;

/** A CI checkout's `.git/config`: git keeps the token a checkout was made with in it. */
export const GIT_CONFIG_TOKEN = 'ghs_0123456789abcdefTOKENinGITconfig';
const GIT_CONFIG = `[core]\n\trepositoryformatversion = 0\n[remote "origin"]\n\turl = https://x-access-token:${GIT_CONFIG_TOKEN}@github.com/acme/edge-config\n`;
const LIST = (entriesFile: string): string =>
  `apiVersion: edgesync/v1\nkind: AccessList\nmetadata: { name: office }\nspec:\n  shieldZoneId: 42\n  id: 9001\n  entriesFile: ${entriesFile}\n`;

/** Every runtime-built invalid directory the loader must refuse with its default limits. */
export const INVALID_TREES: readonly InvalidTree[] = [
  {
    name: 'an empty directory',
    build: () => tempDir(),
    lines: [
      '.: no *.yaml or *.yml files in the config directory; an empty config is refused, never read as "nothing is desired"',
    ],
  },
  {
    name: 'a directory that does not exist',
    build: () => join(tempDir(), 'missing'),
    lines: ['.: the config directory does not exist'],
  },
  {
    name: 'a file symlink that leaves the directory',
    build: () => {
      const outside = writeTree(tempDir(), { 'elsewhere.yaml': DNS('stolen') });
      const dir = writeTree(tempDir(), { 'dns.yaml': DNS('example-com') });
      symlinkSync(join(outside, 'elsewhere.yaml'), join(dir, 'linked.yaml'));
      return dir;
    },
    lines: ['linked.yaml: is a symlink that leaves the config directory; refused'],
  },
  {
    name: 'a folder symlink that leaves the directory',
    build: () => {
      const outside = writeTree(tempDir(), { 'dns.yaml': DNS('stolen') });
      const dir = writeTree(tempDir(), { 'dns.yaml': DNS('example-com') });
      symlinkSync(outside, join(dir, 'shared'));
      return dir;
    },
    lines: ['shared: is a symlink that leaves the config directory; refused'],
  },
  {
    name: 'an entriesFile symlink that leaves the directory',
    build: () => {
      const outside = writeTree(tempDir(), { 'secrets.txt': '10.0.0.1\n' });
      const dir = writeTree(tempDir(), {
        'lists.yaml':
          'apiVersion: edgesync/v1\nkind: AccessList\nmetadata: { name: office }\nspec:\n  shieldZoneId: 42\n  id: 9001\n  entriesFile: lists/office.txt\n',
      });
      mkdirSync(join(dir, 'lists'));
      symlinkSync(join(outside, 'secrets.txt'), join(dir, 'lists/office.txt'));
      return dir;
    },
    lines: [
      'lists.yaml:7:16: lists/office.txt is a symlink that leaves the config directory; refused (at spec.entriesFile)',
    ],
  },
  {
    name: 'a YAML file that is not UTF-8',
    build: () =>
      writeTree(tempDir(), {
        'dns.yaml': Buffer.concat([
          Buffer.from('apiVersion: edgesync/v1\nkind: DnsZone\nmetadata: { name: caf'),
          Buffer.from([0xe9]),
          Buffer.from(' }\nspec: { id: 1, dnssec: true }\n'),
        ]),
      }),
    lines: ['dns.yaml:3:22: file is not valid UTF-8 (byte 0xe9); save it as UTF-8'],
  },
  {
    name: 'an entriesFile that is not UTF-8',
    build: () =>
      writeTree(tempDir(), {
        'lists.yaml':
          'apiVersion: edgesync/v1\nkind: AccessList\nmetadata: { name: office }\nspec: { shieldZoneId: 42, id: 9001, entriesFile: office.txt }\n',
        'office.txt': Buffer.from([0x31, 0x30, 0x2e, 0x30, 0x0a, 0xff, 0xfe, 0x0a]),
      }),
    lines: [
      'lists.yaml:4:50: office.txt is not valid UTF-8 (byte 0xff); save it as UTF-8 at line 2, column 1 (at spec.entriesFile)',
    ],
  },
  {
    name: 'a file over the default 4 MiB cap',
    build: () =>
      writeTree(tempDir(), {
        'dns.yaml': DNS('example-com'),
        'huge.yaml': `# ${'x'.repeat(4 * 1024 * 1024)}\n`,
      }),
    lines: ['huge.yaml: is 4194307 bytes, over the limit of 4194304 bytes per file'],
  },
  {
    // Issue 23's leak: the config directory is the checkout, so `.git` is inside it.
    name: 'an entriesFile in .git (a git checkout as the config directory)',
    build: () =>
      writeTree(tempDir(), { '.git/config': GIT_CONFIG, 'lists/sub/lists.yaml': LIST('../../.git/config') }),
    lines: [
      'lists/sub/lists.yaml:7:16: .git/config is refused: .git starts with "."; dot-files and dot-folders (.git, the state directory, .emulator) are never read (at spec.entriesFile)',
    ],
  },
  {
    name: 'an entriesFile symlink into .git',
    build: () => {
      const dir = writeTree(tempDir(), { '.git/config': GIT_CONFIG, 'lists.yaml': LIST('office.txt') });
      symlinkSync('.git/config', join(dir, 'office.txt'));
      return dir;
    },
    lines: [
      'lists.yaml:7:16: office.txt is a symlink to .git/config, refused: .git starts with "."; dot-files and dot-folders (.git, the state directory, .emulator) are never read (at spec.entriesFile)',
    ],
  },
];
