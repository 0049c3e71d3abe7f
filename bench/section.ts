/**
 * The shape every benchmark section has, so `main.ts` runs a list of them and prints one
 * table: a section measures, returns its table rows (figure, target, measured, pass) and the
 * raw figures `bench/results.json` keeps under the section's name. A new benchmark is one more
 * module exporting a `BenchSection`. The small helpers the sections share (counts, medians,
 * peak RSS from /proc) live here too.
 */
import { readFileSync } from 'node:fs';

/** What every section is told. */
interface BenchContext {
  /** Resources in the headline repository (`BENCH_SIZE`, default 10,000). */
  readonly size: number;
  /** `--concurrency` for the engine and the connection count of autocannon (default 8). */
  readonly concurrency: number;
  /** Requests a second the rate-limited section lets the emulator admit per key (`--rate-limit`). */
  readonly rateLimit: number;
  /** Repository sizes of the scale section (`--scale-sizes`, default 1k, 10k, 30k, 100k). */
  readonly scaleSizes: readonly number[];
  /** Prints progress lines (to stderr, so stdout keeps the figures). */
  progress(line: string): void;
}

/** One row of the table. `pass` is undefined for figures that have no target of their own. */
export interface Figure {
  readonly figure: string;
  readonly target: string;
  readonly measured: string;
  readonly pass?: boolean;
}

/** What a section hands back. */
interface SectionResult {
  readonly figures: readonly Figure[];
  /** Lines of detail printed under the table (requests by operation, per-size figures). */
  readonly details: readonly string[];
  /** Raw figures, stored in bench/results.json under the section's name. */
  readonly data: object;
}

/** A benchmark section. */
export interface BenchSection {
  /** Key in bench/results.json. */
  readonly name: string;
  run(context: BenchContext): Promise<SectionResult>;
}

function verdict(pass: boolean | undefined): string {
  if (pass === undefined) return '';
  return pass ? 'pass' : 'FAIL';
}

/** The rows as a Markdown table (what the README shows; readable as plain text too). */
export function markdownTable(figures: readonly Figure[]): string {
  const rows = figures.map((f) => [f.figure, f.target, f.measured, verdict(f.pass)]);
  const header = ['figure', 'target', 'measured', 'pass'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** Thousands separators, for counts in the table. */
export function count(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** Bytes in a megabyte as the RSS figures count them (MiB). */
export const MB = 1024 * 1024;

/** Median (the mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** A process's peak RSS (the kernel's VmHWM) in bytes, from /proc (Linux); undefined elsewhere. */
export function procPeakRssBytes(pid: number): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? undefined : Number(match[1]) * 1024;
  } catch {
    return undefined;
  }
}
