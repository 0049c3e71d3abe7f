/**
 * `--only Kind/name` (repeatable; Terraform's `-target`): a reconcile of a part of the
 * configuration. The named documents are read, planned and applied; a named subject that no
 * document has but the inventory does (its document was removed, or it is the object a moved
 * document left behind) is a prune candidate, deleted with `--prune` behind the usual guards.
 * Nothing else is read, planned, applied or pruned: claims stay global (every document still
 * claims its object, so nothing is deleted that a document outside the selection names), the
 * change threshold counts the selection's changes against every managed resource, and the
 * state changes only for the selected subjects. See docs/reconcile.md, Partial runs.
 */
import type { DesiredResource } from '../config/types.js';
import { ReconcileError } from '../errors.js';
import { KINDS } from '../kinds/registry.js';
import { type Inventory, inventoryView, type MovedEntry, movedFrom, withMoves } from './inventory.js';
import type { PartialPlan } from './types.js';

/** What `--only` selected. */
export interface OnlySelection {
  /** The selected documents, in the configuration's order. */
  readonly resources: readonly DesiredResource[];
  /** The subjects the run may prune: the named ones without a document, and what the selected documents left behind in another zone. */
  readonly pruneScope: ReadonlySet<string>;
  /** The moves of the selection (a selected document's, or a named left-behind entry's): the only ones this run records. */
  readonly moves: readonly MovedEntry[];
  /** What the plan says about it. */
  readonly partial: PartialPlan;
}

const EXAMPLE = 'WafCustomRule/block-sqli';

/** A subject's kind, or a USAGE error naming the subject when it is not `Kind/name` of a known kind. */
function checkSubject(subject: string): void {
  const slash = subject.indexOf('/');
  if (slash <= 0 || slash === subject.length - 1) {
    throw new ReconcileError(
      'USAGE',
      `--only ${JSON.stringify(subject)}: a subject is Kind/name (the document's kind and metadata.name), e.g. ${EXAMPLE}`,
    );
  }
  const kind = subject.slice(0, slash);
  if (!Object.hasOwn(KINDS, kind)) {
    throw new ReconcileError(
      'USAGE',
      `--only ${subject}: unknown kind ${JSON.stringify(kind)} (kinds: ${Object.keys(KINDS).join(', ')})`,
    );
  }
}

/**
 * Resolves `only` against the documents and the inventory (with the entries moved documents
 * leave behind). Throws a USAGE error naming every subject that is neither a document nor an
 * object edgesync owns, before anything is read.
 */
export function selectOnly(
  only: readonly string[],
  documents: readonly DesiredResource[],
  inventory: Inventory,
  moves: readonly MovedEntry[],
): OnlySelection {
  const named = [...new Set(only)];
  for (const subject of named) checkSubject(subject);
  const owned = inventoryView(withMoves(inventory, moves), true);
  const bySubject = new Set(documents.map((d) => d.subject));
  const unknown = named.filter((s) => !bySubject.has(s) && owned.entry(s) === undefined);
  if (unknown.length > 0) {
    throw new ReconcileError(
      'USAGE',
      `--only ${unknown.join(', ')}: no document has ${unknown.length === 1 ? 'this subject' : 'these subjects'}, and edgesync owns no object under ${unknown.length === 1 ? 'it' : 'them'} (a subject is Kind/metadata.name, e.g. ${EXAMPLE}); nothing was read`,
      { details: { unknown } },
    );
  }
  const wanted = new Set(named);
  const resources = documents.filter((d) => wanted.has(d.subject));
  const orphans = named.filter((s) => !bySubject.has(s));
  // What a selected document left behind in its old zone, recorded by an earlier run or now.
  const leftBehind = [...owned.entries().keys()].filter((s) => wanted.has(movedFrom(s) ?? ''));
  return {
    resources,
    pruneScope: new Set([...orphans, ...leftBehind]),
    moves: moves.filter((m) => wanted.has(m.from) || wanted.has(m.to)),
    partial: {
      only: named,
      documents: resources.length,
      of: documents.length,
      withoutDocument: orphans.length,
    },
  };
}
