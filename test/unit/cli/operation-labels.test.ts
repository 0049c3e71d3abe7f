/**
 * Users never see the API description's operation labels (E1–E9): every `--help`, the README,
 * the user docs and the example config name operations in words. (docs/design.md and
 * docs/api-notes.md are the product's own references and cite the labels on purpose.)
 *
 * Nor the test-bench word "seed" for what the demo starts with: the user docs say "the
 * emulator seed" (a glossary term, docs/getting-started.md) or name the emulator's own flag,
 * file or log field in code (`--seed`, `seed.yaml`); sections about the emulator may say it
 * freely. The contributor pages (internals and performance under docs/) are not user docs.
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

/** The user docs: the README and docs/ without the product's references and the contributor pages. */
function userDocs(): string[] {
  return [
    join(REPO, 'README.md'),
    ...filesUnder('docs').filter(
      (f) => f.endsWith('.md') && !/docs\/(design|api-notes|internals|performance)\.md$/.test(f),
    ),
  ];
}

/**
 * The lines of a Markdown text that say "seed" to a user: outside a section whose heading (at
 * any level above the line) names the emulator, once code spans (a flag, a file, a log field)
 * and the glossary's "emulator seed" are taken out. Fenced blocks are commands, not prose.
 */
function seedWords(markdown: string): { line: number; text: string }[] {
  const headings: string[] = [];
  let fenced = false;
  const found: { line: number; text: string }[] = [];
  markdown.split('\n').forEach((text, index) => {
    if (/^\s*```/.test(text)) fenced = !fenced;
    if (fenced) return;
    const heading = /^(#{1,6})\s+(.*)$/.exec(text);
    if (heading !== null) {
      headings.length = (heading[1] as string).length - 1;
      headings.push(heading[2] as string);
      return;
    }
    if (headings.some((h) => /emulator/i.test(h))) return;
    const prose = text.replace(/`[^`]*`/g, '').replace(/\bemulator seeds?\b/gi, '');
    if (/\bseed/i.test(prose)) found.push({ line: index + 1, text });
  });
  return found;
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

  it('the user docs say "emulator seed" or name the flag: no bare "seed" outside the emulator sections', () => {
    const hits = userDocs().flatMap((file) =>
      seedWords(readFileSync(file, 'utf8')).map(
        ({ line, text }) => `${file.slice(REPO.length + 1)}:${line}: ${text}`,
      ),
    );
    expect(hits).toEqual([]);
  });

  it('finds "seed" in prose, and leaves code, the glossary term and emulator sections alone', () => {
    const markdown = [
      '# Guide',
      'The log shows the seeded drift.', // 2
      'Start it with `--seed FILE` from `seed.yaml`; the emulator seed is YAML.',
      '## The emulator',
      'Its seed format is documented.',
      '### Faults',
      'A seed of faults.',
      '## Daemon',
      '```sh',
      '# the seed file',
      'edgesync emulator --seed x',
      '```',
      'With the benchmark seed it peaked.', // 13
      '| `emulator.started` | `url`, `seed` |',
    ].join('\n');
    expect(seedWords(markdown).map(({ line }) => line)).toEqual([2, 13]);
  });
});
