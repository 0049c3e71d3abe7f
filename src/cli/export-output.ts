/**
 * How `export` writes documents: YAML text, the schema modeline, and the `--out` layout
 * (`<dir>/<kind-dir>/<name>.yaml`) with its never-overwrite rule.
 */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { Document, isMap, isScalar, isSeq, type YAMLMap, type YAMLSeq } from 'yaml';
import type { ExportedDocument } from '../kinds/export.js';
import type { KindName } from '../kinds/types.js';

/** Folder of each kind under `--out`. Names are unique per kind, so `<kind-dir>/<name>.yaml` never collides. */
const KIND_DIRS: Readonly<Record<KindName, string>> = {
  WafCustomRule: 'waf-custom-rules',
  AccessList: 'access-lists',
  ManagedAccessList: 'managed-access-lists',
  ContainerApp: 'container-apps',
  DnsZone: 'dns-zones',
  ShieldZone: 'shield-zones',
};

/**
 * Where the modelines assume the JSON Schema is, relative to the config directory's root: the
 * place the README and `config-examples/` use (`edgesync schema > schema/edgesync.schema.json`).
 */
export const DEFAULT_SCHEMA_PATH = 'schema/edgesync.schema.json';

/** Longest flow collection (`[a, b]`, `{ k: v }`) kept on one line; longer ones are block style. */
const MAX_FLOW_WIDTH = 72;

/** Keys whose lists stay one item per line whatever their length: entries are diffed in review. */
const ALWAYS_BLOCK = new Set(['entries']);

/** The yaml-language-server modeline for a schema reference. */
function modeline(schemaRef: string): string {
  return `# yaml-language-server: $schema=${schemaRef}`;
}

function isUrl(ref: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(ref);
}

/**
 * The YAML of one document (no modeline, no `---`). Small collections of scalars inside `spec`
 * (`variableTypes`, `transformationTypes`, region ids, env entries, volume mounts) are written
 * in flow style, as the examples are; everything else, and `entries`, in block style. Lines are
 * never folded: a folded regex or entry would read back the same but diff badly.
 */
function documentYaml(document: ExportedDocument): string {
  const doc = new Document({
    apiVersion: 'edgesync/v1',
    kind: document.kind,
    metadata: { name: document.name },
    spec: document.spec,
  });
  flowSmallCollections(doc.get('spec', true), undefined, 0);
  return doc.toString({ lineWidth: 0 });
}

/** Marks small scalar-only collections below `spec` (depth ≥ 1) as flow style. */
function flowSmallCollections(node: unknown, key: string | undefined, depth: number): void {
  if (isMap(node)) {
    for (const pair of node.items) {
      const name = isScalar(pair.key) ? String(pair.key.value) : undefined;
      flowSmallCollections(pair.value, name, depth + 1);
    }
    if (depth >= 1 && node.items.every((pair) => isScalar(pair.value))) markFlow(node, key);
  } else if (isSeq(node)) {
    for (const item of node.items) flowSmallCollections(item, undefined, depth + 1);
    if (depth >= 1 && node.items.every((item) => isScalar(item))) markFlow(node, key);
  }
}

function markFlow(node: YAMLMap | YAMLSeq, key: string | undefined): void {
  if (node.items.length === 0 || ALWAYS_BLOCK.has(key ?? '')) return;
  if (JSON.stringify(node.toJSON()).length <= MAX_FLOW_WIDTH) node.flow = true;
}

/** Every document in one stream for stdout: the modeline once on top, documents separated by `---`. */
export function streamText(documents: readonly ExportedDocument[], schemaRef: string | undefined): string {
  const ref = schemaRef ?? DEFAULT_SCHEMA_PATH;
  return [modeline(ref), documents.map(documentYaml).join('---\n')].join('\n');
}

/** One file `--out` will write. */
export interface PlannedFile {
  /** Absolute path. */
  readonly path: string;
  /** Path as the user gave the directory, for messages (`out/dns-zones/example-com.yaml`). */
  readonly shown: string;
  readonly text: string;
}

/**
 * The files of an `--out` export. Each starts with a modeline pointing at `schemaPath`
 * (relative to the working directory, or a URL), else at `<out>/schema/edgesync.schema.json`,
 * written relative to the file so the repository can move.
 */
export function planFiles(
  documents: readonly ExportedDocument[],
  out: { given: string; cwd: string },
  schemaPath: string | undefined,
): PlannedFile[] {
  const root = resolve(out.cwd, out.given);
  const schema =
    schemaPath !== undefined && isUrl(schemaPath)
      ? schemaPath
      : resolve(out.cwd, schemaPath ?? join(out.given, DEFAULT_SCHEMA_PATH));
  return documents.map((document) => {
    const rel = join(KIND_DIRS[document.kind], `${document.name}.yaml`);
    const path = join(root, rel);
    const ref = isUrl(schema) ? schema : relative(dirname(path), schema).split(sep).join('/');
    return {
      path,
      shown: isAbsolute(out.given) ? path : join(out.given, rel),
      text: `${modeline(ref)}\n${documentYaml(document)}`,
    };
  });
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** The planned files that already exist (shown form). */
export async function existingFiles(files: readonly PlannedFile[]): Promise<string[]> {
  const found = await Promise.all(
    files.map(async (file) => ((await exists(file.path)) ? file.shown : undefined)),
  );
  return found.filter((shown): shown is string => shown !== undefined);
}

/**
 * Writes the files, creating folders. Without `force` each file is created exclusively, so a
 * file that appeared since the check is still not overwritten (the write fails instead).
 */
export async function writeFiles(files: readonly PlannedFile[], force: boolean): Promise<void> {
  for (const file of files) {
    await mkdir(dirname(file.path), { recursive: true });
    await writeFile(file.path, file.text, { encoding: 'utf8', flag: force ? 'w' : 'wx' });
  }
}
