/**
 * bench/results.json, the tracked figures of the last run of record. Only a run given
 * `--record` rewrites it: a quick run at another size, or of one section while working on the
 * code, leaves it as it was, so `git status` shows a change only when someone meant one. A
 * recorded run merges by section name: recording one section keeps the others' last figures.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** One section's figures as recorded: when, on what machine, and its data. */
export type SectionResults = Readonly<Record<string, unknown>>;

/**
 * Writes `sections` into the results file at `path` when `record` is set, over the sections of
 * the same name and beside the others; returns whether it wrote. Without `record` the file is
 * not read, written or touched.
 */
export function saveResults(
  path: string,
  sections: Readonly<Record<string, SectionResults>>,
  options: { readonly record: boolean },
): boolean {
  if (!options.record) return false;
  const kept: Record<string, unknown> = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {};
  writeFileSync(path, `${JSON.stringify({ ...kept, ...sections }, null, 2)}\n`);
  return true;
}
