/**
 * The types every kind shares with the loader and the engine. They live here, at the bottom of
 * the import graph, so `kinds/` never imports back up into `config/` or `engine/`: the loader
 * produces `DesiredResource`s and the engine holds `FieldDiff`s, but both are the kinds' words.
 */
import type { ErrorCode } from '../errors.js';

/** Every kind a document may declare, in apply order. */
export const KIND_NAMES = [
  'WafCustomRule',
  'AccessList',
  'ManagedAccessList',
  'ContainerApp',
  'DnsZone',
  'ShieldZone',
] as const;
export type KindName = (typeof KIND_NAMES)[number];

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
type DriftMode = 'correct' | 'report';

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

/** One field that differs. Values are display values (enum names, not integers). */
export interface FieldDiff {
  /** e.g. `ruleConfiguration.operatorType`, `containerTemplates[web].imageTag`. */
  readonly path: string;
  /** `undefined` when the live object lacks the item (a new container). */
  readonly live: unknown;
  /** `undefined` when the item is deleted (a live container the YAML no longer lists). */
  readonly desired: unknown;
  /** True for deletions of containers, endpoints and volumes. */
  readonly destructive?: boolean;
}

/** Error attached to a change that cannot be planned or was refused. */
export interface PlanError {
  readonly code: ErrorCode;
  readonly message: string;
}

/** What `@optimal` stood for in one read: E7's region id, or why E7 could not be asked. */
export type OptimalRegion = { readonly id: string } | { readonly error: PlanError };
