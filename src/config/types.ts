/**
 * What the config loader produces: the desired state as validated, canonical resources, each
 * remembering where it was declared so every message can name its file and line.
 */
import type { KindName } from '../kinds/common/spec-module.js';

/** Where something is written: a file of the config directory and a 1-based position in it. */
export interface SourceLocation {
  /** Path relative to the config directory, with `/` separators. */
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly col: number;
}

/** `correct`: make live equal desired; `report`: audit drift only, never write. */
export type DriftMode = 'correct' | 'report';

/** Canonical metadata: defaults applied (suspend false, drift correct). */
export interface ResourceMetadata {
  readonly name: string;
  /** true: never written (still shown in plans). */
  readonly suspend: boolean;
  /** report: audit only, never written. */
  readonly drift: DriftMode;
}

/** One validated resource: its canonical spec, where it was declared, and its digest. */
export interface DesiredResource<Spec = unknown> {
  readonly kind: KindName;
  readonly name: string;
  /** `Kind/name`, how a resource is named in every message, log line and plan. */
  readonly subject: string;
  readonly metadata: ResourceMetadata;
  /** The canonical spec (enums as integers; AccessList content and checksum resolved). */
  readonly spec: Spec;
  readonly source: SourceLocation;
  /** Lowercase hex SHA-256 of the canonical JSON of kind, metadata and spec. */
  readonly digest: string;
}

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
