/**
 * The engine half of a resource kind: read live state in batches, plan (pure), and check
 * replies. Every kind module (`src/kinds/<kind>/index.ts`) exports one `ResourceKind`, and
 * `src/kinds/registry.ts` lists them. Adding a kind = one folder + one registry line.
 */
import type { ApiRequest, WriteOperationId } from '../../api/operations.js';
import type { ApiClient, WriteReplies } from '../../api/types.js';
import type { SecretReader } from '../../domain/secret-sources.js';
import type { ReconcileError } from '../../errors.js';
import type { DesiredResource, FieldDiff, OptimalRegion, PlanError } from '../types.js';
import type { ObjectIdentity, OwnedObject } from './identity.js';
import type { KindName, KindSpecModule } from './spec-module.js';

/** What a kind found for one desired resource. */
export type LiveLookup<Live> =
  | { readonly status: 'found'; readonly live: Live }
  | { readonly status: 'error'; readonly error: ReconcileError };

export interface LiveRead<Live> {
  readonly lookup: LiveLookup<Live>;
  /** Remembered until the next reconcile (e.g. an access list's checksum with its lastUpdated). */
  readonly hint?: unknown;
  /** Custom rules and lists: which live object the document resolved to (identity.ts). */
  readonly identity?: ObjectIdentity;
}

export interface ReadContext {
  readonly api: ApiClient;
  readonly signal: AbortSignal;
  /** Runs a per-resource read under the reconcile's concurrency limit (`--concurrency`). */
  limit<T>(task: () => Promise<T>): Promise<T>;
  /** Runs `load` once per key and reconcile, so two kinds share one listing of a zone. */
  once<T>(key: string, load: () => Promise<T>): Promise<T>;
  /** The hint this subject's last read left, if any. */
  hint(subject: string): unknown;
  /** What the state's inventory says this subject created or adopted, if anything. */
  owned(subject: string): OwnedObject | undefined;
  /** Reads the `valueFrom` sources of container secrets (docs/design.md, Secrets in container apps); never throws. */
  readonly secrets: SecretReader;
}

export interface PlanContext {
  /** E7's answer, when some desired app uses `@optimal`. */
  readonly optimalRegion?: OptimalRegion;
  /** Write-only values recorded by the last successful apply of a subject (see `KindPlan.remember`). */
  remembered(subject: string): Readonly<Record<string, unknown>> | undefined;
  /** HMAC under the state's install key: how a digest that covers a secret is taken. */
  keyedDigest(data: string): string;
}

export interface KindPlan {
  readonly diffs: readonly FieldDiff[];
  readonly requests: readonly ApiRequest<WriteOperationId>[];
  /** The change cannot be made as declared (a deletion without allowDeletions, a new container missing its image). */
  readonly error?: PlanError;
  /**
   * Values the API never returns (app nodeSelectors): stored after a successful apply and
   * handed back through `PlanContext.remembered`, so they can be diffed at all.
   */
  readonly remember?: Readonly<Record<string, unknown>>;
  /**
   * A create whose object needs a second step once it exists (an access list's E3 needs the
   * new list's configuration id): apply re-plans the resource after the create and sends that.
   */
  readonly followUp?: boolean;
  /**
   * The digest recorded for this resource once applied, instead of the loader's, when its
   * desired state holds secrets: keyed (`PlanContext.keyedDigest`) and covering the resolved
   * values, so a rotated secret reads as `desired-changed` and no plain hash of one is kept.
   */
  readonly digest?: string;
}

export interface ResourceKind<Spec = unknown, Live = unknown> {
  readonly kind: KindName;
  readonly spec: KindSpecModule<unknown, Spec>;
  /**
   * Reads the live objects of these resources with as few requests as possible. A failure of
   * one resource's read is that resource's `error` lookup; the method itself does not throw.
   */
  readLive(
    resources: readonly DesiredResource<Spec>[],
    ctx: ReadContext,
  ): Promise<Map<string, LiveRead<Live>>>;
  /**
   * True when a resource's desired state holds sensitive values: its digest is never shown
   * or stored unkeyed, even when it cannot be planned.
   */
  holdsSensitiveValues?(spec: Spec): boolean;
  /**
   * The live object a read found, named so that two resources (of any kinds) that found the
   * same one get the same key (`live-keys.ts`); engine/conflicts.ts refuses both. Kinds whose
   * documents can only name an object one way need not say.
   */
  liveTarget?(live: Live, desired: DesiredResource<Spec>): string | undefined;
  /** Pure: the declared fields that differ and the exact requests that fix them. */
  plan(desired: DesiredResource<Spec>, live: Live, ctx: PlanContext): KindPlan;
  /**
   * Checks a write's reply beyond its wire schema and returns what is worth auditing.
   * Throws a ReconcileError when the reply proves the change failed (checksum mismatch).
   */
  checkReply?<Op extends WriteOperationId>(request: ApiRequest<Op>, reply: WriteReplies[Op]): unknown;
}
