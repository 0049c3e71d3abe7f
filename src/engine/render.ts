/**
 * Plan and apply results as text (terminal) and JSON; Markdown (pull-request comments) is
 * `render-markdown.ts`.
 * One block per resource (`~ Kind/name` update, `+` create, `-` delete, `~ … adopt #id`), one
 * line per field `path: live → desired`, then what would be pruned but is not.
 */
import { styleText } from 'node:util';
import { SENSITIVE } from '../domain/sensitive.js';
import { lifecycleOf } from '../kinds/registry.js';
import type { RolloutsOutcome } from './reconcile.js';
import type { RolloutResult } from './rollout.js';
import type {
  ApplyResult,
  FieldDiff,
  IgnoredObject,
  PartialPlan,
  Plan,
  PlannedChange,
  PlanSummary,
  PruneNote,
} from './types.js';

type Style = Parameters<typeof styleText>[0];

export interface RenderOptions {
  /** ANSI colours (a TTY without NO_COLOR). */
  color: boolean;
}

const MAX_VALUE_LENGTH = 160;
const MAX_ENTRY_LINES = 20;

/** A value as one short line: strings quoted, objects as compact JSON, absent as `(absent)`, a secret as `(sensitive)`. */
export function formatValue(value: unknown): string {
  if (value === undefined) return '(absent)';
  if (value === SENSITIVE) return SENSITIVE;
  const text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_VALUE_LENGTH ? `${text.slice(0, MAX_VALUE_LENGTH - 1)}…` : text;
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** Lines for one field diff; access-list entries show as added/removed entries. */
function diffLines(diff: FieldDiff, paint: (style: Style, text: string) => string): string[] {
  if (diff.path === 'entries' && isStringList(diff.desired)) {
    const desired = new Set(diff.desired);
    const live = isStringList(diff.live) ? new Set(diff.live) : undefined;
    if (live === undefined) {
      return [`${diff.path}: ${formatValue(diff.live)} → ${diff.desired.length} entries`];
    }
    const added = [...desired].filter((e) => !live.has(e));
    const removed = [...live].filter((e) => !desired.has(e));
    const lines = [
      `${diff.path}: ${paint('green', `+${added.length}`)} ${paint('red', `-${removed.length}`)}`,
    ];
    const detail = [
      ...added.map((e) => paint('green', `  + ${e}`)),
      ...removed.map((e) => paint('red', `  - ${e}`)),
    ];
    if (added.length === 0 && removed.length === 0) lines.push('  (same entries, different order)');
    lines.push(...detail.slice(0, MAX_ENTRY_LINES));
    if (detail.length > MAX_ENTRY_LINES) lines.push(`  … ${detail.length - MAX_ENTRY_LINES} more`);
    return lines;
  }
  const desired = diff.desired === undefined ? '(deleted)' : formatValue(diff.desired);
  const line = `${diff.path}: ${paint('red', formatValue(diff.live))} → ${paint('green', desired)}`;
  return [diff.destructive ? `${paint('red', '-')} ${line} ${paint('red', '[destructive]')}` : line];
}

function marker(change: PlannedChange): string {
  if (change.action === 'error') return '!';
  if (change.skip !== undefined) return '#';
  if (change.action === 'create') return '+';
  if (change.action === 'delete') return '-';
  return '~';
}

/** How the object's kind names its scope: `Shield Zone 42`, `the account`. */
function scopeName(kind: string, shieldZoneId: number | undefined): string {
  return lifecycleOf(kind)?.scopeName(shieldZoneId) ?? `Shield Zone ${shieldZoneId}`;
}

/** `adopt #1234`, `create in Shield Zone 42`, `delete #1237 "Old rule"`: what happens to which object. */
export function lifecycleNote(change: PlannedChange): string | undefined {
  const o = change.object;
  if (o === undefined) return undefined;
  const where = scopeName(o.kind, o.shieldZoneId);
  if (change.action === 'create') return `create in ${where}`;
  if (change.action === 'adopt') return `adopt #${o.id}`;
  if (change.afterCreateOwed === true) {
    const words = lifecycleOf(o.kind)?.afterCreateOwed?.words ?? 'follow-up';
    return `${words} owed: it failed after the create of #${o.id}`;
  }
  if (change.prune !== undefined) {
    const why = change.prune === 'exclusive' ? 'declared exclusive' : 'no document claims it';
    return `delete #${o.id} ${JSON.stringify(o.key)} from ${where}: ${why}`;
  }
  return undefined;
}

function headerNote(change: PlannedChange): string {
  const notes: string[] = [];
  const lifecycle = lifecycleNote(change);
  if (lifecycle !== undefined) notes.push(lifecycle);
  if (change.diffs.length > 0) notes.push(`cause: ${change.cause}`);
  if (change.skip === 'suspended') notes.push('suspended: not written');
  if (change.skip === 'report-only') notes.push('drift report only: not written');
  if (change.rollback !== undefined) {
    notes.push(
      `rollback: the rollout of ${change.rollback.from} failed, so ${change.rollback.to}, the last revision that reached active, is applied again`,
      ...change.rollback.notes,
    );
  }
  return notes.length === 0 ? '' : ` (${notes.join(', ')})`;
}

/**
 * One-line summary of a plan: the changes, then what is information and not a change
 * (adoptions by name with nothing to change, what --prune would delete while it is off).
 */
export function summaryLine(summary: PlanSummary): string {
  const parts = [`${summary.toUpdate} to change`];
  const lifecycle = [
    summary.toCreate ? `${summary.toCreate} to create` : '',
    summary.toAdopt ? `${summary.toAdopt} to adopt` : '',
    summary.toDelete ? `${summary.toDelete} to delete` : '',
  ].filter((part) => part !== '');
  if (lifecycle.length > 0) parts[0] = `${parts[0]} (${lifecycle.join(', ')})`;
  if (summary.errors > 0) parts.push(`${summary.errors} failed or refused`);
  if (summary.skipped > 0) parts.push(`${summary.skipped} not written (suspended or report-only)`);
  parts.push(`${summary.unchanged} unchanged`);
  if (summary.destructive > 0) parts.push(`${summary.destructive} with deletions`);
  const information = [
    summary.adopted ? `${summary.adopted} adopted by name, no changes` : '',
    summary.withPrune ? `${summary.withPrune} to delete with --prune, which is off` : '',
  ].filter((part) => part !== '');
  const tail = information.length === 0 ? '' : ` Information: ${information.join('; ')}.`;
  return `Plan: ${parts.join(', ')}.${tail}`;
}

/** An adoption by name that finds its object as declared: information, not a change. */
export function adoptedUnchanged(change: PlannedChange): boolean {
  return (
    change.action === 'adopt' &&
    change.requests.length === 0 &&
    change.skip === undefined &&
    change.error === undefined
  );
}

/** `WafCustomRule/b #2 "B" in Shield Zone 42 (rules.yaml:9)`: an adoption with nothing to change. */
export function adoptedLine(change: PlannedChange): string {
  const o = change.object;
  const where = `${change.source.file}:${change.source.line}`;
  return `${change.subject} #${o?.id} ${JSON.stringify(o?.key)} in ${scopeName(change.kind, o?.shieldZoneId)} (${where})`;
}

/** `WafCustomRule #7 "Legacy (old) rule" in Shield Zone 42: ignore "Legacy (old)*" of ShieldZone/main`. */
export function ignoredLine(o: IgnoredObject): string {
  return `${o.kind} #${o.id} ${JSON.stringify(o.key)} in ${scopeName(o.kind, o.shieldZoneId)}: ignore ${JSON.stringify(o.glob)} of ${o.shieldZone}`;
}

export const WITH_PRUNE_HEADING =
  'With --prune (EDGESYNC_PRUNE=true) these would be deleted; --prune is off here, so they are not changes:';

/** The plan with the API base URL it was read from, for every format's header. */
export function withApi(plan: Plan, api: string): Plan {
  const { version, revision, ...rest } = plan;
  return { version, revision, api, ...rest };
}

/** The plan for a terminal: the API it was read from, then the changes (unchanged ones are not listed). */
export function renderPlanText(plan: Plan, options: RenderOptions): string {
  const paint = (style: Style, text: string): string => (options.color ? styleText(style, text) : text);
  const out: string[] = plan.api === undefined ? [] : [`API: ${plan.api}`, ''];
  if (plan.partial !== undefined) out.push(paint('yellow', partialLine(plan.partial)), '');
  const header = out.length;
  for (const change of plan.changes) {
    if (change.action === 'noop' || adoptedUnchanged(change)) continue;
    const where = change.source.file === '' ? '(no document)' : `${change.source.file}:${change.source.line}`;
    const style: Style =
      change.action === 'error'
        ? 'red'
        : change.skip !== undefined
          ? 'gray'
          : change.action === 'create'
            ? 'green'
            : change.action === 'delete'
              ? 'red'
              : 'yellow';
    out.push(
      `${paint(style, `${marker(change)} ${change.subject}`)} ${paint('gray', where)}${headerNote(change)}`,
    );
    for (const diff of change.diffs) for (const line of diffLines(diff, paint)) out.push(`    ${line}`);
    if (change.error !== undefined) out.push(`    ${paint('red', `error: ${change.error.message}`)}`);
  }
  const notes = plan.notPruned ?? [];
  const withPrune = notes.filter((n) => n.withPrune !== undefined);
  const otherNotes = notes.filter((n) => n.withPrune === undefined);
  if (out.length === header) {
    out.push(
      withPrune.length > 0
        ? 'No changes without --prune.'
        : 'No changes. Live state matches the desired state.',
    );
  }
  if (withPrune.length > 0) {
    out.push('', WITH_PRUNE_HEADING);
    for (const note of withPrune) out.push(`  ${paint('red', withPruneLine(note))}`);
  }
  const adopted = plan.changes.filter(adoptedUnchanged);
  if (adopted.length > 0) {
    out.push('', 'Adopted by name, no changes (information: apply records them as managed):');
    for (const change of adopted) out.push(`  ${paint('gray', `= ${adoptedLine(change)}`)}`);
  }
  if (otherNotes.length > 0) {
    out.push('', 'Not pruned (information, not changes):');
    for (const note of otherNotes) out.push(`  ${paint('gray', noteLine(note))}`);
  }
  const ignored = plan.ignored ?? [];
  if (ignored.length > 0) {
    out.push('', 'Kept by ignore globs (information):');
    for (const o of ignored) out.push(`  ${paint('gray', `- ${ignoredLine(o)}`)}`);
  }
  const optimal = optimalLine(plan);
  if (optimal !== undefined) out.push('', optimal);
  out.push('', summaryLine(plan.summary));
  return `${out.join('\n')}\n`;
}

/** The header of a partial plan (`--only`): what it covers, and that nothing else was looked at. */
export function partialLine(partial: PartialPlan): string {
  const orphans =
    partial.withoutDocument === 0
      ? ''
      : ` and ${partial.withoutDocument} owned object${partial.withoutDocument === 1 ? '' : 's'} without a document`;
  return `Partial plan (--only): ${partial.documents} of ${partial.of} documents${orphans}; nothing else was read, planned or pruned.`;
}

/** What `@optimal` resolved to, when the plan used it: a region id is not visible otherwise when nothing changes. */
function optimalLine(plan: Plan): string | undefined {
  const region = plan.optimalRegion;
  if (region === undefined) return undefined;
  return 'id' in region
    ? `@optimal resolved to ${region.id} (the API's optimal region).`
    : `@optimal could not be resolved: ${region.error.message}`;
}

/** One line of what would be pruned: `- WafCustomRule #1237 "Old" in Shield Zone 42 (was X): reason`. */
export function noteLine(note: PruneNote): string {
  const owner = note.subject === undefined ? '' : ` (was ${note.subject})`;
  return `- ${note.kind} #${note.id} ${JSON.stringify(note.key)} in ${scopeName(note.kind, note.shieldZoneId)}${owner}: ${note.reason}`;
}

/** What --prune would do to it: `- WafCustomRule #1237 "Old" in Shield Zone 42 (was X)`, and a guard's refusal. */
export function withPruneLine(note: PruneNote): string {
  const owner = note.subject === undefined ? '' : ` (was ${note.subject})`;
  const refused = note.guard === undefined ? '' : `: refused, ${note.guard}`;
  return `- ${note.kind} #${note.id} ${JSON.stringify(note.key)} in ${scopeName(note.kind, note.shieldZoneId)}${owner}${refused}`;
}

/** Apply outcomes for a terminal: one line per resource that was not unchanged. */
export function renderApplyText(result: ApplyResult, options: RenderOptions): string {
  const paint = (style: Style, text: string): string => (options.color ? styleText(style, text) : text);
  const out: string[] = [];
  for (const r of result.results) {
    if (r.outcome === 'unchanged') continue;
    const style: Style = r.outcome === 'applied' ? 'green' : r.outcome === 'failed' ? 'red' : 'gray';
    const detail = r.error ? `: ${r.error.message}` : r.skip ? ` (${r.skip})` : '';
    const what =
      r.action === 'create' || r.action === 'adopt' || r.action === 'delete'
        ? ` (${r.action}${r.objectId === undefined ? '' : ` #${r.objectId}`})`
        : '';
    out.push(`${paint(style, r.outcome.padEnd(9))} ${r.subject}${what}${detail}`);
  }
  const c = result.counts;
  out.push(
    '',
    `Apply: ${c.applied} applied, ${c.failed} failed, ${c.skipped} skipped, ${c.unchanged} unchanged.`,
  );
  return `${out.join('\n')}\n`;
}

/** One line per watched rollout (`apply` waits for them: docs/reconcile.md, Rollout health). */
function rolloutLines(
  results: readonly RolloutResult[],
  paint: (style: Style, text: string) => string,
): string[] {
  return results.map((r) => {
    const seconds = `${(r.durationMs / 1000).toFixed(1)} s`;
    const what = r.rollbackOf === undefined ? r.subject : `${r.subject} (the rollback)`;
    if (r.outcome === 'succeeded')
      return `${paint('green', 'active'.padEnd(9))} ${what}: rolled out in ${seconds}`;
    if (r.outcome === 'inactive')
      return `${paint('gray', 'inactive'.padEnd(9))} ${what}: not deployed, nothing rolls out`;
    if (r.outcome === 'aborted') return `${paint('gray', 'aborted'.padEnd(9))} ${what}: no longer watched`;
    return `${paint('red', 'failing'.padEnd(9))} ${what}: ${r.error?.message ?? 'failed'}`;
  });
}

/** The rollouts an apply waited for, its rollbacks, and the rollbacks it could not make. */
export function renderRolloutsText(rollouts: RolloutsOutcome, options: RenderOptions): string {
  const paint = (style: Style, text: string): string => (options.color ? styleText(style, text) : text);
  const out = ['', 'Rollouts:', ...rolloutLines(rollouts.results, paint)];
  for (const refusal of rollouts.refused ?? [])
    out.push(`not rolled back: ${refusal.subject}: ${refusal.reason}`);
  const rollback = rollouts.rollback;
  if (rollback !== undefined) {
    for (const change of rollback.plan.changes) {
      if (change.rollback === undefined) continue;
      out.push(
        `rollback  ${change.subject}: ${change.rollback.to} applied again (the last revision that reached active)`,
        ...change.rollback.notes.map((note) => `          ${note}`),
      );
    }
    for (const r of rollback.apply?.results ?? []) {
      if (r.outcome === 'failed')
        out.push(`${paint('red', 'failed'.padEnd(9))} rollback of ${r.subject}: ${r.error?.message ?? ''}`);
    }
    out.push(...rolloutLines(rollback.rollouts?.results ?? [], paint));
  }
  return `${out.join('\n')}\n`;
}
