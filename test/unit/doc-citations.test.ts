/**
 * Every citation of the repository's own documents resolves, so a clone can follow it: a
 * comment's "docs/design.md, Pruning" names a file that exists and a heading it has, a
 * Markdown link's `file.md#anchor` an anchor the file has. Citations of documents that are not
 * in the repository ("design §7", "api-notes §2") are refused outright.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const SOURCE_FOLDERS = ['src', 'bench', 'test', 'docs', 'deploy', 'config-examples'];
const TOP_FILES = ['README.md', 'ARCHITECTURE.md', 'CONTRIBUTING.md', 'AGENTS.md', 'CHANGELOG.md'];
const TEXT = /\.(ts|md|ya?ml|json)$/;

function walk(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder).flatMap((name) => {
    if (name === 'node_modules' || name === 'fixtures') return [];
    const path = join(folder, name);
    return statSync(path).isDirectory() ? walk(path) : TEXT.test(name) ? [path] : [];
  });
}

const FILES = [
  ...SOURCE_FOLDERS.flatMap((folder) => walk(join(ROOT, folder))),
  ...TOP_FILES.map((name) => join(ROOT, name)).filter((path) => existsSync(path)),
].filter((path) => !path.endsWith('doc-citations.test.ts'));

/** The headings of a Markdown file, as written and as GitHub's anchors. */
function headingsOf(path: string): { titles: string[]; anchors: Set<string> } {
  // Backticks are code style, not words: "docs/secrets.md, export" cites "## `export`".
  const titles = [...readFileSync(path, 'utf8').matchAll(/^#{1,6}\s+(.+?)\s*$/gm)].map((m) =>
    (m[1] as string).replaceAll('`', ''),
  );
  return { titles, anchors: new Set(titles.map(anchorOf)) };
}

function anchorOf(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

/** The text with comment prefixes and line breaks folded, so a citation may wrap. */
function folded(text: string): string {
  return text.replace(/\n[ \t]*(?:\/\/|\*(?!\/))?[ \t]*/g, ' ');
}

function findings(): string[] {
  return FILES.flatMap((path) => problemsOf(path, readFileSync(path, 'utf8')));
}

function problemsOf(path: string, content: string): string[] {
  const problems: string[] = [];
  {
    const where = relative(ROOT, path);
    const text = folded(content);
    for (const m of text.matchAll(/\b(?:design|api-notes)(?:\.md)? §/gi)) {
      problems.push(
        `${where}: "${text.slice(m.index, m.index + 24)}…" cites a document the repository does not have`,
      );
    }
    // "docs/x.md, Heading" and "docs/x.md "Heading"" in any file.
    for (const m of text.matchAll(/\b(docs\/[a-z0-9-]+\.md)(?:,? "([^"]+)"|, (?=([^\n]{1,80})))?/g)) {
      const [, file, quoted, after] = m as unknown as [string, string, string?, string?];
      const target = join(ROOT, file);
      if (!existsSync(target)) {
        problems.push(`${where}: cites ${file}, which does not exist`);
        continue;
      }
      const { titles } = headingsOf(target);
      if (quoted !== undefined && !titles.some((t) => t.toLowerCase() === quoted.toLowerCase())) {
        problems.push(`${where}: cites ${file} "${quoted}", a heading it does not have`);
      }
      if (
        after !== undefined &&
        !titles.some((t) => after.replaceAll('`', '').toLowerCase().startsWith(t.toLowerCase()))
      ) {
        problems.push(
          `${where}: cites ${file}, "${after.slice(0, 40)}…", which starts with none of its headings`,
        );
      }
    }
    // Markdown links to Markdown files, with or without an anchor.
    if (!path.endsWith('.md')) return problems;
    for (const m of text.matchAll(/\]\(([^)\s#]*\.md)?(#[^)\s]+)?\)/g)) {
      const [, file, anchor] = m as unknown as [string, string?, string?];
      if (file === undefined && anchor === undefined) continue;
      if (file !== undefined && /^[a-z]+:/.test(file)) continue;
      const target = file === undefined ? path : resolve(dirname(path), file);
      if (!existsSync(target)) {
        problems.push(`${where}: links ${file}, which does not exist`);
        continue;
      }
      if (anchor !== undefined && !headingsOf(target).anchors.has(anchor.slice(1))) {
        problems.push(`${where}: links ${file ?? ''}${anchor}, an anchor it does not have`);
      }
    }
  }
  return problems;
}

describe('citations of the repository’s documents', () => {
  it('reads the files it checks', () => {
    expect(FILES.some((path) => path.endsWith(join('src', 'engine', 'prune.ts')))).toBe(true);
    expect(FILES.some((path) => path.endsWith(join('docs', 'design.md')))).toBe(true);
  });

  it('every citation names a file and a heading that exist', () => {
    expect(findings()).toEqual([]);
  });

  it('the checks refuse what they should', () => {
    expect(anchorOf('Lifecycle of Shield objects')).toBe('lifecycle-of-shield-objects');
    expect(anchorOf('The `ShieldZone` kind (exclusive)')).toBe('the-shieldzone-kind-exclusive');
    expect(folded('see docs/design.md,\n   * Pruning')).toBe('see docs/design.md, Pruning');
    expect(problemsOf('a.ts', '// design §7 and api-notes §2 E1')).toHaveLength(2);
    expect(problemsOf('a.ts', '// docs/design.md, Pruning; docs/nothing.md')).toEqual([
      'a.ts: cites docs/nothing.md, which does not exist',
    ]);
    expect(problemsOf('a.ts', '// docs/design.md, No such part')).toHaveLength(1);
    expect(problemsOf('a.ts', '// docs/design.md "Pruning" and docs/design.md, "Pruning"')).toEqual([]);
    expect(problemsOf(join(ROOT, 'docs/x.md'), '[a](design.md#pruning) [b](design.md#nope)')).toHaveLength(1);
  });
});
