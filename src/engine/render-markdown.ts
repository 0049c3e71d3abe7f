/**
 * The plan as Markdown for a pull-request comment (docs/ci.md, The plan comment): the counts
 * on the first line, then one section per Shield Zone or app with its deletions first and in
 * bold, its unchanged resources collapsed in `<details>`, then errors and what is not pruned.
 *
 * Everything that comes from the YAML or the live state — names, keys, values, API messages —
 * is written inside a code span, where Markdown and HTML are inert: a rule named
 * `</details><img …>` or `@team` renders as text and pings no one.
 */
import { KINDS } from '../kinds/registry.js';
import {
  adoptedLine,
  adoptedUnchanged,
  formatValue,
  ignoredLine,
  lifecycleNote,
  noteLine,
  partialLine,
  summaryLine,
  WITH_PRUNE_HEADING,
  withPruneLine,
} from './render.js';
import type { FieldDiff, Plan, PlannedChange } from './types.js';

/**
 * `value` as one code span: a fence longer than any run of backticks inside, line breaks as
 * `↵` (a table row or list item is one line), and in a table cell `|` escaped, which GitHub
 * reads before the code span.
 */
export function mdCode(value: string, options: { table?: boolean } = {}): string {
  let text = value.replace(/\r\n|[\r\n\u2028\u2029]/g, '↵');
  if (options.table === true) text = text.replaceAll('|', '\\|');
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = text === '' || text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** Where a change belongs in the comment: its Shield Zone, else the section its kind names (an app's own, all DNS zones'). */
function groupOf(change: PlannedChange): string {
  if (change.shieldZoneId !== undefined) return `Shield Zone ${change.shieldZoneId}`;
  if (change.object?.shieldZoneId !== undefined) return `Shield Zone ${change.object.shieldZoneId}`;
  const section = KINDS[change.kind].planSection;
  if (section === undefined) return change.kind;
  return section.perResource === true ? `${section.title} ${mdCode(change.name)}` : section.title;
}

function deletes(change: PlannedChange): boolean {
  return change.action === 'delete' || change.diffs.some((d) => d.destructive === true);
}

/** Deletions first, then errors, then the other changes, each in plan order. */
function rank(change: PlannedChange): number {
  if (deletes(change)) return 0;
  if (change.action === 'error') return 1;
  return 2;
}

function mark(change: PlannedChange, diff: FieldDiff | undefined): string {
  if (change.action === 'error') return '❌';
  if (change.skip !== undefined) return '⏸️';
  if (diff?.destructive === true || change.action === 'delete') return '🗑️';
  if (change.action === 'create') return '➕';
  return '✏️';
}

function rows(change: PlannedChange): string[] {
  const bold = (cell: string): string => (deletes(change) ? `**${cell}**` : cell);
  const cell = (text: string): string => bold(mdCode(text, { table: true }));
  const note = lifecycleNote(change);
  const resource = `${cell(change.subject)}${note === undefined ? '' : ` ${cell(note)}`}`;
  const diffs = change.diffs.length === 0 ? [undefined] : change.diffs;
  return diffs.map((diff) =>
    diff === undefined
      ? `| ${mark(change, diff)} | ${resource} | | | |`
      : `| ${mark(change, diff)} | ${resource} | ${cell(diff.path)} | ${cell(formatValue(diff.live))} | ${cell(
          diff.desired === undefined ? '(deleted)' : formatValue(diff.desired),
        )} |`,
  );
}

/** Nothing to send: unchanged, or adopted by name as declared (information, not a change). */
function quiet(change: PlannedChange): boolean {
  return change.action === 'noop' || adoptedUnchanged(change);
}

function section(title: string, changes: readonly PlannedChange[]): string[] {
  const changed = changes.filter((c) => !quiet(c)).sort((a, b) => rank(a) - rank(b));
  const unchanged = changes.filter((c) => c.action === 'noop');
  const adopted = changes.filter(adoptedUnchanged);
  const out = [`#### ${title}`, ''];
  if (changed.length > 0) {
    out.push('| | Resource | Field | Live | Desired |', '|---|---|---|---|---|');
    for (const change of changed) out.push(...rows(change));
    out.push('');
  }
  if (unchanged.length > 0) {
    out.push(
      `<details><summary>${unchanged.length} unchanged</summary>`,
      '',
      ...unchanged.map((c) => `- ${mdCode(c.subject)}`),
      '',
      '</details>',
      '',
    );
  }
  if (adopted.length > 0) {
    out.push(
      `<details><summary>${adopted.length} adopted by name, no changes (information)</summary>`,
      '',
      ...adopted.map((c) => `- ${mdCode(adoptedLine(c))}`),
      '',
      '</details>',
      '',
    );
  }
  return out;
}

/** The plan as Markdown for a pull-request comment. */
export function renderPlanMarkdown(plan: Plan): string {
  const out = [
    `**${summaryLine(plan.summary)}**`,
    '',
    `edgesync plan of revision ${mdCode(plan.revision)}.`,
    '',
  ];
  if (plan.api !== undefined) out.push(`API: ${mdCode(plan.api)}`, '');
  if (plan.partial !== undefined) out.push(`> **${partialLine(plan.partial)}**`, '');
  const region = plan.optimalRegion;
  if (region !== undefined) {
    out.push(
      'id' in region
        ? `\`@optimal\` resolved to ${mdCode(region.id)}.`
        : `\`@optimal\` could not be resolved: ${mdCode(region.error.message)}`,
      '',
    );
  }
  const notes = plan.notPruned ?? [];
  const withPrune = notes.filter((n) => n.withPrune !== undefined);
  if (plan.changes.every(quiet)) {
    out.push(
      withPrune.length > 0
        ? 'No changes without `--prune`.'
        : 'No changes. Live state matches the desired state.',
      '',
    );
  }
  // What a daemon with --prune would delete is never folded away: a reviewer must see it.
  if (withPrune.length > 0) {
    out.push(
      `**${WITH_PRUNE_HEADING}**`,
      '',
      ...withPrune.map((n) => `- ${mdCode(withPruneLine(n).slice(2))}`),
      '',
    );
  }
  const groups = new Map<string, PlannedChange[]>();
  for (const change of plan.changes) {
    const title = groupOf(change);
    groups.set(title, [...(groups.get(title) ?? []), change]);
  }
  // Sections with deletions come first, so a reviewer cannot miss one below the fold.
  const ordered = [...groups].sort(([, a], [, b]) => Number(b.some(deletes)) - Number(a.some(deletes)));
  for (const [title, changes] of ordered) out.push(...section(title, changes));
  const errors = plan.changes.filter((c) => c.error !== undefined);
  if (errors.length > 0) {
    out.push('<details open><summary>Errors</summary>', '');
    for (const change of errors)
      out.push(`- ${mdCode(change.subject)}: ${mdCode(change.error?.message ?? '')}`);
    out.push('', '</details>', '');
  }
  const others = notes.filter((n) => n.withPrune === undefined);
  if (others.length > 0) {
    out.push(
      '<details><summary>Not pruned (information)</summary>',
      '',
      ...others.map((n) => `- ${mdCode(noteLine(n).slice(2))}`),
      '',
      '</details>',
      '',
    );
  }
  const ignored = plan.ignored ?? [];
  if (ignored.length > 0) {
    out.push(
      '<details><summary>Kept by ignore globs (information)</summary>',
      '',
      ...ignored.map((o) => `- ${mdCode(ignoredLine(o))}`),
      '',
      '</details>',
      '',
    );
  }
  return `${out.join('\n').trimEnd()}\n`;
}
