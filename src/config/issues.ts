/**
 * ConfigIssue helpers: how a path inside a document is written, how issues are ordered and
 * how each one is printed. The printed form is part of the product (editors and CI parse it).
 */
import type { ConfigIssue, IssueSeverity } from './types.js';

/** A path inside a document, as zod and the yaml Document use it. */
export type DocPath = readonly (string | number)[];

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** `['spec', 'a', 2, 'b c']` → `spec.a[2]["b c"]`; the empty path is `''`. */
export function formatPath(path: DocPath): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (PLAIN_KEY.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** Orders issues by file, line, column, then path and message, so output is stable. */
export function compareIssues(a: ConfigIssue, b: ConfigIssue): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  if (a.line !== b.line) return a.line - b.line;
  if (a.col !== b.col) return a.col - b.col;
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  if (a.message !== b.message) return a.message < b.message ? -1 : 1;
  return 0;
}

/**
 * `file:line:col`, the form every config message uses; just `file` for an issue with no
 * position (line 0: a whole file or the directory). `displayFile` replaces `issue.file`.
 */
export function issueLocation(
  issue: Pick<ConfigIssue, 'file' | 'line' | 'col'>,
  displayFile: string = issue.file,
): string {
  return issue.line > 0 ? `${displayFile}:${issue.line}:${issue.col}` : displayFile;
}

/**
 * `file:line:col: message (at path)`. Warnings say so after the position. An issue with no
 * position (line 0: a whole file or the directory) prints as `file: message`. `displayFile`
 * lets the CLI print paths as the user can open them (joined to the --config it was given).
 */
export function formatIssue(issue: ConfigIssue, displayFile: string = issue.file): string {
  const where = issueLocation(issue, displayFile);
  const level = issue.severity === 'warning' ? 'warning: ' : '';
  const at = issue.path === '' ? '' : ` (at ${issue.path})`;
  return `${where}: ${level}${issue.message}${at}`;
}

/** Builds an issue with no position inside the file (the file as a whole, or the directory as `.`). */
export function fileIssue(file: string, message: string, severity: IssueSeverity = 'error'): ConfigIssue {
  return { file, line: 0, col: 0, path: '', message, severity };
}
