/**
 * Rules across documents, re-run on every load (they are cheap; parsing is not):
 * - `kind` + `metadata.name` is unique across the directory;
 * - no two documents of one kind target the same live object (same `target()`): both would
 *   write it and the last write would win at random.
 * Each conflict is reported at the later document (by file, line) and names the first.
 */
import type { FileResult } from './parse-file.js';
import type { ConfigIssue, SourceLocation } from './types.js';

function where(at: SourceLocation): string {
  return `${at.file}:${at.line}:${at.col}`;
}

/** Issues for duplicate names and duplicate targets; `files` must be sorted by path. */
export function crossDocumentIssues(files: readonly FileResult[]): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const names = new Map<string, SourceLocation>();
  const targets = new Map<string, { subject: string; at: SourceLocation }>();
  for (const file of files) {
    for (const doc of file.documents) {
      if (doc.identity === undefined) continue;
      const { subject } = doc.identity;
      const first = names.get(subject);
      if (first === undefined) {
        names.set(subject, doc.identity.at);
      } else {
        issues.push({
          ...doc.identity.at,
          path: 'metadata.name',
          message: `duplicate name: ${subject} is already declared at ${where(first)}`,
          severity: 'error',
        });
      }
      if (doc.target === undefined) continue;
      const other = targets.get(doc.target.key);
      if (other === undefined) {
        targets.set(doc.target.key, { subject, at: doc.target.at });
      } else {
        const target = doc.target.key.slice(doc.target.key.indexOf(' ') + 1);
        issues.push({
          ...doc.target.at,
          path: doc.target.path,
          message: `targets the same object (${target}) as ${other.subject} at ${where(other.at)}`,
          severity: 'error',
        });
      }
    }
  }
  return issues;
}
