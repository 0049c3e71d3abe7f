/**
 * confinedPath, the one rule for files a document names (entriesFile now, secret files under
 * --secrets-dir next): inside the directory, never through a dot-name, before or after
 * symlinks; `.` and `..` are navigation.
 */
import { mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { confinedPath, hiddenSegment } from '../../../src/config/confine.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';

function tree(): string {
  const root = realpathSync(
    writeTree(tempDir(), { 'lists/office.txt': '10.0.0.1\n', '.git/config': '[core]\n', 'stripe-key': 'sk' }),
  );
  mkdirSync(join(root, 'sub'));
  symlinkSync('../.git/config', join(root, 'sub/linked.txt'));
  return root;
}

describe('confinedPath', () => {
  it.each([
    ['lists/office.txt', 'lists/office.txt'],
    ['./lists/./office.txt', 'lists/office.txt'],
    ['sub/../lists/office.txt', 'lists/office.txt'],
  ])('reads %s as %s', (path, file) => {
    const root = tree();

    expect(confinedPath(root, root, path, 'this YAML file')).toEqual({ file, real: join(root, file) });
  });

  it.each([
    [
      '.git/config',
      '.git/config is refused: .git starts with "."; dot-files and dot-folders (.git, the state directory, .emulator) are never read',
    ],
    [
      'sub/../.git/config',
      '.git/config is refused: .git starts with "."; dot-files and dot-folders (.git, the state directory, .emulator) are never read',
    ],
    [
      'sub/linked.txt',
      'sub/linked.txt is a symlink to .git/config, refused: .git starts with "."; dot-files and dot-folders (.git, the state directory, .emulator) are never read',
    ],
    ['../outside', '../outside is outside the --secrets-dir directory'],
    ['/etc/passwd', 'must be a path relative to --secrets-dir, not /etc/passwd'],
    ['missing', 'file missing does not exist'],
  ])('refuses %s', (path, error) => {
    const root = tree();

    expect(confinedPath(root, root, path, '--secrets-dir')).toMatchObject({ error });
  });

  it('names the first dot-segment of a root-relative path', () => {
    expect(hiddenSegment('a/.b/.c')).toBe('.b');
    expect(hiddenSegment('a/b.c/d')).toBeUndefined();
  });
});
