/**
 * The engine half of a resource kind: read live state in batches, plan (pure), and check
 * replies. Every kind module (`src/kinds/<kind>/index.ts`) exports one `ResourceKind`, and
 * `src/kinds/registry.ts` lists them. Adding a kind = one folder + one registry line.
 */
import type { ApiRequest, WriteOperationId } from '../../api/operations.js';
import type { ApiClient, WriteReplies } from '../../api/types.js';
import type { SecretReader } from '../../domain/secret-sources.js';
import type { ReconcileError } from '../../errors.js';
import type { DesiredResource, FieldDiff, KindName, OptimalRegion, PlanError } from '../types.js';
import type { LifecycleKind, ObjectId, ObjectIdentity, OwnedObject } from './identity.js';
import type {
  DeletionGroup,
  LiveObject,
  ObjectLocation,
  ScopeLimit,
  ScopeListing,
  ScopeObjects,
} from './lifecycle.js';
import type { Health, RestoredSpec, RolloutSettings } from './rollout.js';
import type { KindSpecModule } from './spec-module.js';

/** What a kind found for one desired resource. */
type LiveLookup<Live> =
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
  /** A create after which the kind's `lifecycle.afterCreate` requests are sent (an app's deploy). */
  readonly afterCreate?: boolean;
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
  /**
   * False for a declaration that has nothing live of its own (ShieldZone): its resources
   * never fail a read, so "every read failed" (one wrong key) is judged without them.
   */
  readonly readsLive?: false;
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
   * The section of the plan's Markdown for this kind's resources outside any Shield Zone: one
   * for the kind (`DNS zones`), or with `perResource` one per resource, titled with its name
   * (`Container app `shop``). Without it the section is titled with the kind's name.
   */
  readonly planSection?: { readonly title: string; readonly perResource?: true };
  /** True when planning this resource needs E7's optimal region (an app placed `@optimal`). */
  needsOptimalRegion?(spec: Spec): boolean;
  /**
   * The live object a read found, named so that two resources (of any kinds) that found the
   * same one get the same key (`live-keys.ts`); engine/conflicts.ts refuses both. Kinds whose
   * documents can only name an object one way need not say.
   */
  liveTarget?(live: Live, desired: DesiredResource<Spec>): string | undefined;
  /**
   * What a saved plan's live digest covers of a found object (docs/ci.md, Saved plans), when
   * not the whole of it: no secret value (not even hashed) and nothing a read fills in only
   * sometimes. Without it the digest covers the live object as read.
   */
  liveDigestView?(live: Live, desired: DesiredResource<Spec>): unknown;
  /** Pure: the declared fields that differ and the exact requests that fix them. */
  plan(desired: DesiredResource<Spec>, live: Live, ctx: PlanContext): KindPlan;
  /**
   * Checks a write's reply beyond its wire schema and returns what is worth auditing.
   * Throws a ReconcileError when the reply proves the change failed (checksum mismatch).
   */
  checkReply?<Op extends WriteOperationId>(request: ApiRequest<Op>, reply: WriteReplies[Op]): unknown;
  /**
   * Kinds whose objects edgesync creates, adopts and prunes: how to list a scope, find a
   * document's object, delete one and guard deletions (lifecycle.ts).
   */
  readonly lifecycle?: KindLifecycle<Spec>;
  /**
   * Kinds whose writes roll out (an app's containers start after a PATCH): how to tell whether
   * the rollout worked, and what to keep of a spec that did so, to roll back to (rollout.ts).
   */
  readonly rollout?: KindRollout<Spec>;
  /**
   * Scopes this document declares exclusive for a lifecycle kind (a ShieldZone's
   * `customWafRules: exclusive`): a full run prunes every object there no document claims.
   */
  exclusiveScopes?(spec: Spec): readonly ExclusiveScope[];
}

/**
 * The lifecycle part of a kind whose objects edgesync creates, adopts and prunes (lifecycle.ts
 * has its words); the engine's prune step uses nothing else of the kind.
 */
export interface KindLifecycle<Spec = unknown> {
  readonly kind: LifecycleKind;
  /** How messages name the objects, plural: `custom WAF rules`. */
  readonly nouns: string;
  /** The field that holds the natural key, as plans show it: `ruleName`, `name`. */
  readonly keyPath: string;
  /** Where the document's object lives, and the id and key it declares. */
  locate(spec: Spec): ObjectLocation;
  /** How messages name a scope: `Shield Zone 42`, `the account`. */
  scopeName(shieldZoneId: number | undefined): string;
  /** Every object of the kind in a scope (shared with `readLive` through `ctx.once`); throws on failure. */
  list(shieldZoneId: number | undefined, ctx: ReadContext): Promise<ScopeObjects>;
  /** The scope's limit facts, read only when the run creates objects there. */
  readLimit?(shieldZoneId: number | undefined, ctx: ReadContext): Promise<unknown>;
  /** Why creating `creating` more objects in the scope is refused, if it is. */
  limitProblem?(input: {
    readonly shieldZoneId: number | undefined;
    readonly creating: number;
    readonly listing: ScopeListing | undefined;
    readonly limit: ScopeLimit | undefined;
  }): string | undefined;
  /** The operation whose reply names a created object's id (audited by `checkReply` as `{id}`). */
  readonly createOperation: WriteOperationId;
  /**
   * Requests sent once a create's reply (or, after a lost reply, a fresh listing) names the new
   * object's id, when the create's plan asks for them (`KindPlan.afterCreate`): an app's deploy.
   */
  afterCreate?(id: ObjectId): readonly ApiRequest<WriteOperationId>[];
  /**
   * Whether a desired state wants the `afterCreate` requests (an app: unless `deploy: false`),
   * and what they do in words (`deploy`): asked when they failed after an earlier create and are owed.
   */
  readonly afterCreateOwed?: { wanted(spec: Spec): boolean; readonly words: string };
  /** What deleting each of these objects destroys with it (an app's volumes), read for prune candidates only. */
  readLosses?(id: ObjectId, ctx: ReadContext): Promise<readonly string[]>;
  /** The request that deletes one object. */
  deleteRequest(shieldZoneId: number | undefined, id: ObjectId): ApiRequest<WriteOperationId>;
  /** The diffs a deletion shows beyond its key (what it destroys with the object). */
  deleteDiffs?(object: LiveObject): readonly FieldDiff[];
  /** Why these deletions need `--force`, if they do (the message says to re-run with it). */
  deletionGuard(group: DeletionGroup): string | undefined;
}

/** Objects a document of another kind declares exclusive: every unclaimed one is pruned. */
export interface ExclusiveScope {
  readonly kind: LifecycleKind;
  readonly shieldZoneId?: number | undefined;
  /** The `ignore` pattern that leaves this key alone, if one does. */
  ignoredBy(key: string): string | undefined;
}

/**
 * The rollout part of a kind (docs/reconcile.md, Rollout health): the engine watches what a
 * write started through `readHealth` and keeps, per resource, the last spec that reached
 * `active` through `keep`, so that `onFailure: rollback` can apply it again.
 */
export interface KindRollout<Spec = unknown> {
  /** What the document asks: the timeout, the remediation, and whether this write rolls out at all. */
  settings(spec: Spec, action: 'create' | 'adopt' | 'update'): RolloutSettings;
  /** One read of the object's health; throws a ReconcileError when it cannot be read. */
  readHealth(id: ObjectId, ctx: { readonly api: ApiClient; readonly signal: AbortSignal }): Promise<Health>;
  /**
   * The spec as the state may keep it: references to secrets (`valueFrom`) as they are, a
   * sensitive literal only as a digest under the install key (`keyedDigest`), never its value.
   */
  keep(spec: Spec, keyedDigest: (data: string) => string): unknown;
  /**
   * A kept spec back as a spec. A sensitive literal comes back only when the current document
   * holds a value with the kept digest; otherwise it is left out (its live value stays) and a note says so.
   */
  restore(kept: unknown, current: Spec, keyedDigest: (data: string) => string): RestoredSpec<Spec>;
}
