/**
 * Enforces the "may import" column of ARCHITECTURE.md: each module's relative imports must
 * land in a module it is allowed to use. Type-only imports count too: a type edge is still a
 * design edge.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { KIND_NAMES } from '../../src/kinds/types.js';

const SRC = resolve(import.meta.dirname, '../../src');

/** Module of a file: its first directory under src/, or the file name for top-level files. */
function moduleOf(file: string): string {
  const rel = relative(SRC, file).split('/');
  return rel.length === 1 ? (rel[0] ?? '').replace(/\.ts$/, '') : (rel[0] ?? '');
}

/**
 * Allowed targets per module (besides itself), as ARCHITECTURE.md's "may import" column says.
 * `kinds-spec` is the schema files (`src/kinds/*\/spec.ts` and the files they use, listed in
 * `isKindSpecFile`): the loader may use them without reaching the kinds' API code.
 */
const ALLOWED: Record<string, readonly string[]> = {
  domain: [],
  errors: [],
  log: [],
  git: [],
  backoff: [],
  secrets: ['domain'],
  state: ['errors'],
  config: ['domain', 'errors', 'kinds-spec'],
  'kinds-spec': ['domain', 'errors'],
  api: ['domain', 'errors', 'log', 'backoff'],
  kinds: ['domain', 'errors', 'api'],
  engine: ['config', 'kinds', 'kinds-spec', 'api', 'domain', 'errors', 'log', 'state'],
  daemon: ['engine', 'config', 'api', 'errors', 'log', 'git', 'domain', 'state', 'backoff'],
  cli: [
    'engine',
    'config',
    'kinds',
    'kinds-spec',
    'api',
    'errors',
    'log',
    'git',
    'domain',
    'daemon',
    'emulator-entry',
    'secrets',
    'state',
  ],
  emulator: ['domain'],
  ci: ['cli', 'errors', 'git'],
  main: ['cli'],
};

/** How ARCHITECTURE.md names a module in backticks, where that is not the module's own name. */
const DOC_NAMES: Readonly<Record<string, string>> = {
  'kinds/*/spec.ts': 'kinds-spec',
  'emulator/index.ts': 'emulator-entry',
};

/**
 * The module table of ARCHITECTURE.md as module → "may import": the modules of a row are the
 * `src/…` paths of its first cell; what it may import, the backticked names of its last cell
 * outside parentheses (a parenthesis explains, it does not permit). "nothing" is no module.
 * Rows without a `src/` path (ui/, bench/) are not modules of src/.
 */
function documentedModules(markdown: string): Map<string, string[]> {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('Modules')) ?? '';
  const table = new Map<string, string[]>();
  for (const line of section.split('\n')) {
    if (!line.startsWith('|') || /^\|\s*-/.test(line)) continue;
    const cells = line.split('|').slice(1, -1);
    const first = cells[0] ?? '';
    const last = cells.at(-1) ?? '';
    const modules = [...first.matchAll(/`src\/([^`]+)`/g)].map(([, path = '']) => {
      const name = path.replace(/\/$/, '').replace(/\.ts$/, '');
      return DOC_NAMES[path] ?? name;
    });
    const targets = [...last.replace(/\([^)]*\)/g, '').matchAll(/`([^`]+)`/g)].map(
      ([, name = '']) => DOC_NAMES[name] ?? name,
    );
    for (const module of modules) table.set(module, targets);
  }
  return table;
}

function isKindSpecFile(file: string): boolean {
  const rel = relative(SRC, file);
  return (
    /^kinds\/[^/]+\/spec\.ts$/.test(rel) ||
    [
      'kinds/specs.ts',
      'kinds/types.ts',
      'kinds/common/spec-module.ts',
      'kinds/common/fields.ts',
      'kinds/common/live-keys.ts',
      'kinds/access-list/entries.ts',
    ].includes(rel)
  );
}

function targetModule(file: string): string {
  if (isKindSpecFile(file)) return 'kinds-spec';
  if (relative(SRC, file) === 'emulator/index.ts') return 'emulator-entry';
  return moduleOf(file);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

// A static import/export starts its line: a comment that says "export type" must not be
// read as the start of the value import after it.
const IMPORT =
  /^[ \t]*(?:import|export)\s+(type\s)?[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/gm;

/** The relative imports and re-exports of a file; `typeOnly` for `import type` / `export type`. */
function relativeImports(text: string): { specifier: string; typeOnly: boolean }[] {
  return [...text.matchAll(IMPORT)].map((match) => ({
    specifier: match[2] ?? match[3] ?? '',
    typeOnly: match[1] !== undefined,
  }));
}

/** The imports of `text` (the source of `file`, under src/) that its module may not make. */
function violationsOf(file: string, text: string): string[] {
  const from = isKindSpecFile(file) ? 'kinds-spec' : moduleOf(file);
  const allowed = ALLOWED[from] ?? [];
  const violations: string[] = [];
  for (const { specifier } of relativeImports(text)) {
    const to = targetModule(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
    if (to === from || (from === 'kinds' && to === 'kinds-spec')) continue;
    if (!allowed.includes(to)) violations.push(`${specifier} (${to})`);
  }
  return violations;
}

/** A kind name as a whole word: `DnsZones` is a plural in prose, `WafCustomRuleX` another name. */
const KIND_WORD = new RegExp(`\\b(?:${KIND_NAMES.join('|')})\\b`);

/**
 * Engine strings that may name a kind, with why: a usage example is not a branch on a kind.
 * Each is `file: literal text`.
 */
const KIND_NAMES_ALLOWED = ['engine/only.ts: WafCustomRule/block-sqli'];

/** The string and template literal texts of `text` (TypeScript source) that name a kind. */
function kindNamesInStrings(text: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isStringLiteral(node) ||
        ts.isNoSubstitutionTemplateLiteral(node) ||
        ts.isTemplateHead(node) ||
        ts.isTemplateMiddle(node) ||
        ts.isTemplateTail(node)) &&
      KIND_WORD.test(node.text)
    ) {
      found.push(node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile('source.ts', text, ts.ScriptTarget.Latest, true));
  return found;
}

describe('module boundaries (ARCHITECTURE.md)', () => {
  const files = sourceFiles(SRC);

  it('tells type-only imports from value imports', () => {
    const text = [
      "import type { A } from '../config/types.js';",
      "export type { B } from './b.js';",
      "import { type C, d } from '../engine/types.js';",
      "export { e } from './e.js';",
      "const f = await import('./f.js');",
      "import { g } from 'node:fs';",
      '/** Every export type here mirrors the API. */',
      "import { h } from '../config/loader.js';",
      " * import { i } from '../engine/in-a-comment.js';",
    ].join('\n');
    expect(relativeImports(text)).toEqual([
      { specifier: '../config/types.js', typeOnly: true },
      { specifier: './b.js', typeOnly: true },
      { specifier: '../engine/types.js', typeOnly: false },
      { specifier: './e.js', typeOnly: false },
      { specifier: './f.js', typeOnly: false },
      { specifier: '../config/loader.js', typeOnly: false },
    ]);
  });

  it('flags any import the table does not allow, type-only imports included', () => {
    const kindFile = join(SRC, 'kinds/dns-zone/index.ts');
    const kindImports = [
      "import type { DesiredResource } from '../../config/types.js';",
      "import { loadDesiredState } from '../../config/loader.js';",
      "import type { Plan } from '../../engine/types.js';",
      "export { reconcile } from '../../engine/reconcile.js';",
      "import { createApiClient } from '../../api/client.js';",
      "import { DnsZoneSpec } from './spec.js';",
      "import type { Daemon } from '../../daemon/daemon.js';",
    ].join('\n');

    expect(violationsOf(kindFile, kindImports)).toEqual([
      '../../config/types.js (config)',
      '../../config/loader.js (config)',
      '../../engine/types.js (engine)',
      '../../engine/reconcile.js (engine)',
      '../../daemon/daemon.js (daemon)',
    ]);
    // A kind's spec.ts may reach domain and errors only, types included.
    expect(
      violationsOf(
        join(SRC, 'kinds/dns-zone/spec.ts'),
        "import type { DesiredResource } from '../../config/types.js';",
      ),
    ).toEqual(['../../config/types.js (config)']);
  });

  it('has no import cycle between files, type-only imports included', () => {
    const graph = new Map(
      files.map((file) => [
        file,
        relativeImports(readFileSync(file, 'utf8')).map(({ specifier }) =>
          resolve(dirname(file), specifier.replace(/\.js$/, '.ts')),
        ),
      ]),
    );
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]): void => {
      state.set(file, 'open');
      for (const next of graph.get(file) ?? []) {
        if (state.get(next) === 'open') {
          cycles.push([...path.slice(path.indexOf(next)), next].map((f) => relative(SRC, f)).join(' → '));
        } else if (!state.has(next)) visit(next, [...path, next]);
      }
      state.set(file, 'done');
    };
    for (const file of files) if (!state.has(file)) visit(file, [file]);

    expect(cycles).toEqual([]);
  });

  it('the engine imports no kind module by name: only the registry, the shared kind contract and types', () => {
    // A kind joins through src/kinds/registry.ts and its ResourceKind (lifecycle included);
    // an engine file that named one would have to be edited for the next kind.
    const named = files
      .filter((file) => relative(SRC, file).startsWith('engine/'))
      .flatMap((file) =>
        relativeImports(readFileSync(file, 'utf8')).map(({ specifier }) => ({
          from: relative(SRC, file),
          to: relative(SRC, resolve(dirname(file), specifier.replace(/\.js$/, '.ts'))),
        })),
      )
      .filter(
        ({ to }) => to.startsWith('kinds/') && !/^kinds\/(common\/[^/]+|registry|specs|types)\.ts$/.test(to),
      )
      .map(({ from, to }) => `${from} → ${to}`);

    expect(named).toEqual([]);
  });

  it('the engine names no kind in its strings, outside comments: what differs by kind is a property of the kind', () => {
    const found = files
      .filter((file) => relative(SRC, file).startsWith('engine/'))
      .flatMap((file) =>
        kindNamesInStrings(readFileSync(file, 'utf8'))
          .filter((text) => !KIND_NAMES_ALLOWED.includes(`${relative(SRC, file)}: ${text}`))
          .map((text) => `${relative(SRC, file)}: ${text}`),
      );

    expect(found).toEqual([]);
  });

  it('finds kind names in string and template literals only, not in comments or identifiers', () => {
    const text = [
      '// a ContainerApp is grouped by name',
      '/** exclusive ShieldZone */',
      "const a = change.kind === 'ContainerApp';",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: TypeScript source as text
      'const b = `exclusive ${x} ShieldZone`;',
      "const c = 'DnsZones are listed';",
      'const desiredShieldZones = 1;',
      "const d = 'WafCustomRuleX';",
    ].join('\n');
    expect(kindNamesInStrings(text)).toEqual(['ContainerApp', ' ShieldZone']);
  });

  it('allows only edges some file uses: a permission no code needs is a door left open', () => {
    const used = new Set<string>();
    for (const file of files) {
      const from = isKindSpecFile(file) ? 'kinds-spec' : moduleOf(file);
      for (const { specifier } of relativeImports(readFileSync(file, 'utf8'))) {
        const to = targetModule(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
        if (to !== from) used.add(`${from} → ${to}`);
      }
    }
    const unused = Object.entries(ALLOWED).flatMap(([from, targets]) =>
      targets.map((to) => `${from} → ${to}`).filter((edge) => !used.has(edge)),
    );
    expect(unused).toEqual([]);
  });

  it("ARCHITECTURE.md's module table says what ALLOWED enforces, row by row", () => {
    const documented = documentedModules(readFileSync(resolve(SRC, '../ARCHITECTURE.md'), 'utf8'));
    const sorted = (names: readonly string[]): string[] => [...names].sort();
    expect(Object.fromEntries([...documented].map(([module, targets]) => [module, sorted(targets)]))).toEqual(
      Object.fromEntries(Object.entries(ALLOWED).map(([module, targets]) => [module, sorted(targets)])),
    );
  });

  it('reads the module table as a reader would: paths, names, parentheses, nothing', () => {
    const markdown = [
      '## Modules',
      '',
      '| module | one line | may import |',
      '| --- | --- | --- |',
      '| `src/a/` | a | nothing |',
      '| `src/b.ts`, `src/c.ts` | b and c | `a` (only `a/x.ts`, not `d`) |',
      '| `src/kinds/*/spec.ts` | schemas | `a`, `emulator/index.ts` |',
      '| `ui/` | the page | nothing from `src/` |',
      '',
      '## The flow',
      '| `src/e/` | not in the table | `a` |',
    ].join('\n');
    expect(Object.fromEntries(documentedModules(markdown))).toEqual({
      a: [],
      b: ['a'],
      c: ['a'],
      'kinds-spec': ['a', 'emulator-entry'],
    });
  });

  it('knows every module under src/', () => {
    const unknown = [...new Set(files.map(moduleOf))].filter((m) => !(m in ALLOWED));
    expect(unknown).toEqual([]);
  });

  it.each(files.map((f) => [relative(SRC, f), f]))(
    '%s imports only what its module may use',
    (_name, file) => {
      expect(violationsOf(file, readFileSync(file, 'utf8'))).toEqual([]);
    },
  );
});
