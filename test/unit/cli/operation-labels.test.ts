/**
 * Users never see the API description's operation labels (E1–E9): every `--help`, the README,
 * the user docs and the example config name operations in words. (docs/design.md and
 * docs/api-notes.md are the product's own references and cite the labels on purpose.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../../helpers/cli.js';
import { REPO } from '../../helpers/spawn-daemon.js';

const LABEL = /\bE[1-9]\b/;

const COMMANDS = [
  [],
  ['validate'],
  ['plan'],
  ['apply'],
  ['run'],
  ['forget'],
  ['export'],
  ['schema'],
  ['emulator'],
  ['inspect'],
  ['inspect', 'zones'],
  ['inspect', 'apps'],
  ['inspect', 'bots'],
  ['inspect', 'waf-catalog'],
  ['inspect', 'api-guardian'],
  ['inspect', 'optimal-region'],
  ['completion'],
];

/** The Markdown and YAML files under `dir` (images are not text). */
function filesUnder(dir: string): string[] {
  return readdirSync(join(REPO, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(md|ya?ml)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('operation labels', () => {
  it.each(COMMANDS.map((c) => [c.join(' ') || '(top level)', c]))(
    'edgesync %s --help names none',
    async (_, argv) => {
      const help = await cli([...argv, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('Usage: edgesync');
      expect(help.stdout.split('\n').filter((line) => LABEL.test(line))).toEqual([]);
    },
  );

  it('README, the user docs and the example config name none', () => {
    const files = [
      join(REPO, 'README.md'),
      ...filesUnder('docs').filter((f) => !/docs\/(design|api-notes)\.md$/.test(f)),
      ...filesUnder('config-examples'),
    ];
    const hits = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, index) => `${file.slice(REPO.length + 1)}:${index + 1}: ${line}`)
        .filter((line) => LABEL.test(line.slice(line.indexOf(': ') + 2))),
    );
    expect(hits).toEqual([]);
  });
});
