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
  ['state'],
  ['state', 'show'],
  ['state', 'migrate'],
];

/** Every command and subcommand `edgesync <argv> --help` lists under Commands:, depth first. */
async function listedCommands(argv: readonly string[] = []): Promise<string[][]> {
  const help = (await cli([...argv, '--help'])).stdout.split('\n');
  const start = help.indexOf('Commands:');
  if (start === -1) return [];
  const names = help
    .slice(start + 1)
    .map((line) => /^ {2}([a-z][\w-]*)/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined && name !== 'help');
  const nested = await Promise.all(names.map((name) => listedCommands([...argv, name])));
  return names.flatMap((name, i) => [[...argv, name], ...(nested[i] ?? [])]);
}

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

  it('checks every command the help lists', async () => {
    const key = (c: readonly string[]) => c.join(' ');
    expect((await listedCommands()).map(key).sort()).toEqual(COMMANDS.slice(1).map(key).sort());
  });

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
