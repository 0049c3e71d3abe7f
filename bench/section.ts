/**
 * The shape every benchmark section has, so `main.ts` runs a list of them and prints one
 * table: a section measures, returns its table rows (figure, target, measured, pass) and the
 * raw figures `bench/results.json` keeps under the section's name. A new benchmark (the
 * daemon's push-to-applied latency) is one more module exporting a `BenchSection`. The small
 * helpers the sections share (counts, medians, peak RSS from /proc) live here too.
 */
import { readFileSync } from 'node:fs';

/** What every section is told. */
export interface BenchContext {
  /** Resources in the headline repository (`BENCH_SIZE`, default 10,000). */
  readonly size: number;
  /** `--concurrency` for the engine and the connection count of the load tool (default 8). */
  readonly concurrency: number;
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
export interface SectionResult {
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

/** Bytes in a mebibyte, for the RSS figures. */
export const MB = 1024 * 1024;

/** The edgesync container's memory limit in deploy/kubernetes (test/unit/deploy.test.ts checks it). */
export const CONTAINER_LIMIT_MIB = 384;

/** Median (the mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * The sizes /proc/<pid>/status gives in kB (VmHWM, RssAnon, …), in bytes. Throws where /proc
 * cannot say (another platform, a process already gone).
 */
function procStatusBytes(pid: number | string): Record<string, number> {
  const fields: Record<string, number> = {};
  for (const line of readFileSync(`/proc/${pid}/status`, 'utf8').split('\n')) {
    const match = /^(\w+):\s+(\d+) kB$/.exec(line);
    if (match !== null) fields[match[1] as string] = Number(match[2]) * 1024;
  }
  return fields;
}

/**
 * A process's peak RSS (the kernel's VmHWM) in bytes, from /proc (Linux); undefined where
 * /proc cannot say (another platform, a process already gone).
 */
export function procPeakRssBytes(pid: number | 'self'): number | undefined {
  try {
    return procStatusBytes(pid).VmHWM;
  } catch {
    return undefined;
  }
}

/** Memory of a process and its children, counted the way a container's cgroup counts it. */
export interface TreeMemory {
  /** Anonymous and shared-memory pages of every process, plus the largest file-backed RSS. */
  readonly bytes: number;
  /** The children's anonymous memory, bytes each (the parse processes during a cold load). */
  readonly childAnonBytes: readonly number[];
}

/**
 * What `pid` and its direct children hold right now, or undefined where /proc cannot say.
 * Their file-backed pages are mostly the same Node binary, which a cgroup charges once, so
 * the largest one's stands for all of them.
 */
export function procTreeMemory(pid: number): TreeMemory | undefined {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/);
    const all = [procStatusBytes(pid)];
    for (const child of children.filter((c) => c !== '')) {
      try {
        all.push(procStatusBytes(child));
      } catch {
        // Exited between the two reads.
      }
    }
    const anon = (s: Record<string, number>) => (s.RssAnon ?? 0) + (s.RssShmem ?? 0);
    return {
      bytes: all.reduce((sum, s) => sum + anon(s), 0) + Math.max(...all.map((s) => s.RssFile ?? 0)),
      childAnonBytes: all.slice(1).map(anon),
    };
  } catch {
    return undefined;
  }
}
