/**
 * Saved plans (`plan --out FILE`, `apply FILE`; docs/ci.md, Saved plans): the plan a pull
 * request's reviewers read, written with what it was made from — the config revision and
 * digest, the options, a digest of every live object as read — so that `apply FILE` sends
 * exactly those requests, or nothing when the world moved since.
 *
 * A request's secrets are written as references (`{"$sensitive": "env:EDGESYNC_SECRET_DB"}`),
 * never as values. At apply time the live state is read again and planned again from the same
 * config; the saved plan is applied only when every live digest and every change's requests
 * (compared as references) are the same, and the secret values then come from their sources.
 */
import { z } from 'zod';
import type { DesiredResource } from '../config/types.js';
import { sha256Hex } from '../domain/checksum.js';
import { SensitiveValue } from '../domain/sensitive.js';
import { ReconcileError } from '../errors.js';
import { KINDS } from '../kinds/registry.js';
import type { LiveSnapshot } from './read.js';
import type { Plan, PlannedChange } from './types.js';

/** What names a saved plan file, so that any other JSON is refused as one. */
const SAVED_PLAN_FORMAT = 'edgesync-plan';

/** The plan options a saved plan was made with; `apply FILE` plans again with the same. */
export interface SavedPlanOptions {
  readonly prune: boolean;
  readonly force: boolean;
  readonly driftMode: 'correct' | 'report';
  readonly maxChangePercent: number;
  /** `--only`: the subjects the plan was limited to. */
  readonly only?: readonly string[];
}

/** What a plan was made from. */
export interface PlanOrigin {
  /** Git SHA, or `config:<digest>` outside a work tree. */
  readonly revision: string;
  /** The loader's digest of the whole config directory. */
  readonly configDigest: string;
  /** The API base URL the live state was read from: a plan of staging never goes to production. */
  readonly api?: string;
}

export interface SavedPlan extends PlanOrigin {
  readonly format: typeof SAVED_PLAN_FORMAT;
  readonly version: 1;
  readonly options: SavedPlanOptions;
  /** Subject → SHA-256 of its live object as read (see `liveDigests`). */
  readonly live: Readonly<Record<string, string>>;
  /** The plan, its requests' secrets as `{ $sensitive: source }`. */
  readonly plan: Plan;
}

/** The size a plan file may have: a hostile file must not exhaust memory before it is refused. */
export const MAX_SAVED_PLAN_BYTES = 64 * 1024 * 1024;

/**
 * A digest of every live object the read found, by subject: what the kind's `liveDigestView`
 * shows of it (no secret value), and the object a custom rule or list resolved to. A resource
 * whose read failed has none: its change is an error and sends nothing.
 */
export function liveDigests(
  resources: readonly DesiredResource[],
  snapshot: LiveSnapshot,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const resource of resources) {
    const read = snapshot.reads.get(resource.subject);
    if (read === undefined || read.lookup.status !== 'found') continue;
    const kind = KINDS[resource.kind];
    const live = read.lookup.live;
    const view =
      live === null || kind.liveDigestView === undefined ? live : kind.liveDigestView(live, resource);
    out[resource.subject] = sha256Hex(
      JSON.stringify({ live: view ?? null, identity: read.identity ?? null }),
    );
  }
  return out;
}

/** A copy of `value` with every SensitiveValue replaced by its reference. */
function referenced(value: unknown): unknown {
  if (value instanceof SensitiveValue) return { $sensitive: value.source };
  if (Array.isArray(value)) return value.map(referenced);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = referenced(item);
    return out;
  }
  return value;
}

/** The saved plan file's text. */
export function serializeSavedPlan(
  plan: Plan,
  origin: PlanOrigin,
  options: SavedPlanOptions,
  live: Readonly<Record<string, string>>,
): string {
  const saved: SavedPlan = {
    format: SAVED_PLAN_FORMAT,
    version: 1,
    revision: origin.revision,
    configDigest: origin.configDigest,
    ...(origin.api === undefined ? {} : { api: origin.api }),
    options,
    live,
    plan: referenced(plan) as Plan,
  };
  return `${JSON.stringify(saved, null, 2)}\n`;
}

const ChangeShape = z.looseObject({
  subject: z.string(),
  kind: z.string(),
  name: z.string(),
  action: z.enum(['create', 'adopt', 'update', 'delete', 'noop', 'error']),
  requests: z.array(z.looseObject({ operation: z.string(), method: z.string(), path: z.string() })),
  diffs: z.array(z.looseObject({ path: z.string() })),
});

const SavedPlanShape = z.object({
  format: z.literal(SAVED_PLAN_FORMAT),
  version: z.literal(1),
  revision: z.string(),
  configDigest: z.string(),
  api: z.string().optional(),
  options: z.object({
    prune: z.boolean(),
    force: z.boolean(),
    driftMode: z.enum(['correct', 'report']),
    maxChangePercent: z.number().int().positive(),
    only: z.array(z.string()).min(1).optional(),
  }),
  live: z.record(z.string(), z.string()),
  plan: z.looseObject({
    revision: z.string(),
    changes: z.array(ChangeShape),
    summary: z.looseObject({ toUpdate: z.number(), errors: z.number(), destructive: z.number() }),
  }),
});

/**
 * Reads a saved plan file's text. Its changes are only ever compared with a fresh plan and
 * rendered, never sent as they are, so checking their outline is enough.
 */
export function parseSavedPlan(text: string, file: string): SavedPlan {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ReconcileError('PLAN_FILE_INVALID', `${file}: not JSON (${(err as Error).message})`);
  }
  const parsed = SavedPlanShape.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? '' : ` at ${issue.path.join('.')}`;
    throw new ReconcileError(
      'PLAN_FILE_INVALID',
      `${file}: not a plan saved by edgesync plan --out${where}: ${issue?.message ?? 'invalid'}`,
    );
  }
  // The text as written, not zod's copy: key order is part of how requests are compared.
  return json as SavedPlan;
}

/** Refuses a saved plan made from another config: checked before anything is read. */
export function checkSavedRevision(saved: SavedPlan, now: PlanOrigin): void {
  if (saved.api !== undefined && now.api !== undefined && saved.api !== now.api) {
    throw new ReconcileError(
      'PLAN_STALE',
      `the saved plan was made against the API at ${saved.api}, not ${now.api}; nothing was sent`,
    );
  }
  if (saved.revision === now.revision && saved.configDigest === now.configDigest) return;
  const at =
    saved.revision === now.revision
      ? `the files changed since (config digest ${saved.configDigest.slice(0, 12)} then, ${now.configDigest.slice(0, 12)} now)`
      : `the config is now at revision ${now.revision}`;
  throw new ReconcileError(
    'PLAN_STALE',
    `the saved plan was made at revision ${saved.revision}, but ${at}; nothing was sent: plan again`,
    { details: { planned: saved.revision, current: now.revision } },
  );
}

function bySubject(changes: readonly PlannedChange[]): Map<string, string> {
  const groups = new Map<string, PlannedChange[]>();
  for (const change of changes) groups.set(change.subject, [...(groups.get(change.subject) ?? []), change]);
  const out = new Map<string, string>();
  for (const [subject, group] of groups) {
    out.set(
      subject,
      JSON.stringify(
        referenced(group.map((c) => ({ action: c.action, skip: c.skip ?? null, requests: c.requests }))),
      ),
    );
  }
  return out;
}

/**
 * The fresh plan, when it is the saved one: every live digest the same, and every change the
 * same action with the same requests (secrets compared by reference). Otherwise PLAN_STALE
 * naming each resource that differs; the caller then sends nothing.
 */
export function bindSavedPlan(
  saved: SavedPlan,
  fresh: Plan,
  freshLive: Readonly<Record<string, string>>,
): Plan {
  const changed = new Set<string>();
  for (const subject of new Set([...Object.keys(saved.live), ...Object.keys(freshLive)])) {
    if (saved.live[subject] !== freshLive[subject]) changed.add(subject);
  }
  const planned = bySubject(saved.plan.changes);
  const now = bySubject(fresh.changes);
  for (const subject of new Set([...planned.keys(), ...now.keys()])) {
    if (planned.get(subject) !== now.get(subject)) changed.add(subject);
  }
  if (changed.size > 0) {
    const subjects = [...changed].sort();
    throw new ReconcileError(
      'PLAN_STALE',
      `live state changed since the plan was made: ${subjects.join(', ')}; nothing was sent: plan again and review`,
      { details: { changed: subjects } },
    );
  }
  return fresh;
}
