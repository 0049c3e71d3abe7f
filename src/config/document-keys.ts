/**
 * The keys the cross-document rules compare (rules.ts) of one document: its subject, the
 * live object it targets, its natural key, its aliases, each with where it is written.
 *
 * What a document keeps of them between loads is small, because the daemon keeps every
 * document's result for the life of the process: a valid document keeps its resource, from
 * whose canonical spec the keys are derived again at each load (a few milliseconds for
 * 100,000 documents, and garbage as soon as the rules have run), and the line and column of
 * each key as plain numbers (`places`). Only a document with errors keeps its keys as found.
 */
import { KIND_SPECS, type KindName } from '../kinds/specs.js';
import type { DocPath } from './issues.js';
import type { DesiredResource, SourceLocation } from './types.js';

/** The keys of one document whose kind and name are valid; the others are set when its spec is. */
export interface DocumentKeys {
  /** `Kind/name`: unique across the directory. */
  readonly subject: string;
  /** The live object it pins (`Kind target`), and where in the document that is written. */
  readonly target?: { readonly key: string; readonly path: DocPath };
  /** Its natural key (`Kind key`), unique per Shield Zone; `label` names it in messages. */
  readonly naturalKey?: { readonly key: string; readonly label: string; readonly path: DocPath };
  /** Other names of that live object, shared across kinds (`KindSpecModule.aliases`). */
  readonly aliases?: readonly { readonly key: string; readonly path: DocPath }[];
}

/** The keys of a document of `kind` whose (valid) spec is `spec`. */
export function keysOf(kind: KindName, subject: string, spec: unknown): DocumentKeys {
  const module = KIND_SPECS[kind];
  const pinned = module.target(spec);
  const natural = module.naturalKey?.(spec);
  const aliases = module.aliases?.(spec);
  return {
    subject,
    ...(pinned !== undefined && {
      target: { key: `${kind} ${pinned}`, path: ['spec', ...module.targetPath(spec)] },
    }),
    ...(natural !== undefined && {
      naturalKey: { key: `${kind} ${natural.key}`, label: natural.label, path: ['spec', ...natural.path] },
    }),
    ...(aliases?.length && {
      aliases: aliases.map((alias) => ({ key: alias.key, path: ['spec', ...alias.path] })),
    }),
  };
}

/** The keys of a resource, derived from its canonical spec. */
export function resourceKeys(resource: DesiredResource): DocumentKeys {
  return keysOf(resource.kind, resource.subject, resource.spec);
}

/**
 * The paths of `keys` whose positions a document keeps, in the order of its `places`:
 * `metadata.name`, the target, the natural key, then each alias. An absent key keeps 0, 0.
 */
export function keyPaths(keys: DocumentKeys): (DocPath | undefined)[] {
  return [
    ['metadata', 'name'],
    keys.target?.path,
    keys.naturalKey?.path,
    ...(keys.aliases ?? []).map((alias) => alias.path),
  ];
}

/** Which key of a document: its name, target, natural key, or its n-th alias. */
export type KeySlot = 'name' | 'target' | 'naturalKey' | { readonly alias: number };

/** Where the key in `slot` is written, from a document's `places` (in the file `file`). */
export function placeOf(file: string, places: readonly number[], slot: KeySlot): SourceLocation {
  const index = slot === 'name' ? 0 : slot === 'target' ? 1 : slot === 'naturalKey' ? 2 : 3 + slot.alias;
  return { file, line: places[2 * index] ?? 0, col: places[2 * index + 1] ?? 0 };
}
