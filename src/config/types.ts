/**
 * What the config loader produces: the desired state as validated, canonical resources, each
 * remembering where it was declared so every message can name its file and line.
 */
import type { DesiredResource } from '../kinds/types.js';

export type {
  DesiredResource,
  ResourceMetadata,
  SourceLocation,
} from '../kinds/types.js';

/** A whole validated config directory (deep-frozen). Produced only when nothing is wrong. */
export interface DesiredState {
  /** Real path of the config directory that was read (symlinks resolved). */
  readonly configDir: string;
  readonly resources: readonly DesiredResource[];
  /** Digest of every file read (names and bytes): the revision when there is no git SHA. */
  readonly digest: string;
  readonly fileCount: number;
  /** Problems that do not block (severity `warning`), sorted; `validate` prints them. */
  readonly warnings: readonly ConfigIssue[];
}

/** Errors block (CONFIG_INVALID); warnings are printed and never block. */
export type IssueSeverity = 'error' | 'warning';

/** One problem in the desired state. Printed as `file:line:col: message (at spec.a.b[2])`. */
export interface ConfigIssue {
  readonly file: string;
  readonly line: number;
  readonly col: number;
  /** Path inside the document, e.g. `spec.ruleConfiguration.operatorType`; empty for file-level problems. */
  readonly path: string;
  readonly message: string;
  readonly severity: IssueSeverity;
}
