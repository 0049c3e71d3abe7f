/**
 * No tracked text file holds a git merge-conflict marker: one was committed once, in
 * ARCHITECTURE.md. A marker is a line that starts with seven `<` or seven `>` (followed by a
 * space or the line's end); a lone `=======` is left alone, since it is also a Markdown heading
 * underline.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/spawn-daemon.js';

const MARKER = new RegExp(`^(${'<'.repeat(7)}|${'>'.repeat(7)})( |$)`, 'm');

/** Where `text` has a marker, as `file:line`; a file with a NUL byte is binary and skipped. */
function markersIn(file: string, text: string): string[] {
  if (text.includes('\0')) return [];
  return text
    .split('\n')
    .flatMap((line, index) => (MARKER.test(line) ? [`${file}:${index + 1}: ${line}`] : []));
}

describe('merge-conflict markers', () => {
  it('no tracked file holds one', () => {
    const files = execFileSync('git', ['ls-files', '-z'], { cwd: REPO, encoding: 'utf8' })
      .split('\0')
      .filter((file) => file !== '');

    const found = files.flatMap((file) => markersIn(file, readFileSync(join(REPO, file), 'latin1')));

    expect(files.length).toBeGreaterThan(100);
    expect(found).toEqual([]);
  });

  it('finds a conflict block as git writes it, and leaves a heading underline alone', () => {
    const conflicted = [
      '# Title',
      '=======',
      `${'<'.repeat(7)} HEAD`,
      'ours',
      '=======',
      'theirs',
      `${'>'.repeat(7)} main`,
      '',
    ].join('\n');

    expect(markersIn('X.md', conflicted)).toEqual([
      `X.md:3: ${'<'.repeat(7)} HEAD`,
      `X.md:7: ${'>'.repeat(7)} main`,
    ]);
  });
});
