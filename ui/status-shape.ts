/**
 * What the status page reads of `GET /status` (docs/daemon.md, Health, readiness, status).
 * The page is a client of that JSON like any other, so it declares only the fields it uses
 * and treats every one as possibly absent: a page served by one version may poll a document
 * that lacks a newer field (`role`, `unclaimed`, `apps`), and then it leaves that part out.
 */

export interface StatusErrorShape {
  readonly code: string;
  readonly message: string;
  readonly at?: string;
}

interface FieldDiffShape {
  readonly path: string;
  readonly live: string;
  readonly desired: string;
}

export interface ResourceShape {
  readonly subject: string;
  readonly kind: string;
  readonly name: string;
  readonly source: string;
  readonly zone?: string | null;
  readonly state: string;
  readonly drift: {
    readonly cause: string;
    readonly fields: readonly string[];
    readonly diffs?: readonly FieldDiffShape[];
  } | null;
  readonly lastError: StatusErrorShape | null;
  readonly lastAppliedAt: string | null;
  readonly lastCheckedAt: string | null;
}

export interface RunChangeShape {
  readonly subject: string;
  readonly action: string;
  readonly outcome: string;
  readonly error?: { readonly code: string; readonly message: string };
}

export interface RunShape {
  readonly revision: string;
  readonly trigger: string;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly result: string;
  readonly counts: Readonly<Record<string, number>>;
  readonly error?: string;
  readonly changes?: readonly RunChangeShape[];
  readonly changesOmitted?: number;
}

interface IssueShape {
  readonly location?: string;
  readonly message?: string;
}

interface RetryShape {
  readonly attempt: number;
  readonly at: string;
  readonly code: string;
  readonly reason?: string;
}

interface SettleHoldShape {
  readonly trigger: string;
  readonly revision: string;
  readonly since: string;
  readonly settleAt: string;
  readonly deferrals: number;
  readonly deletions: ReadonlyArray<{
    readonly subject: string;
    readonly action: string;
    readonly fields: readonly string[];
  }>;
  readonly deletionsOmitted: number;
}

/** A live object no document claims (kept, or to be pruned), as far as the page shows one. */
type UnclaimedShape = Readonly<Record<string, unknown>>;

/** One container app's rollout health, as far as the page shows one. */
type AppShape = Readonly<Record<string, unknown>>;

/** The leader of the state store as `/status` names it. */
interface LeaderShape {
  readonly pid?: number;
  readonly host?: string;
  readonly since?: string;
}

export interface StatusShape {
  readonly status: string;
  readonly ready: boolean;
  readonly degraded: boolean;
  /** `standby` while another daemon leads the state store, `leader` while this one does. */
  readonly role?: string;
  /** Who leads (this daemon or another); null while unknown. */
  readonly leader?: LeaderShape | null;
  readonly revision: string | null;
  readonly lastAttemptedRevision: string | null;
  readonly lastAppliedRevision: string | null;
  readonly lastError: StatusErrorShape | null;
  readonly issues: readonly IssueShape[];
  readonly retry: RetryShape | null;
  readonly settleHold?: SettleHoldShape | null;
  readonly lastSuccessAt: string | null;
  readonly runs: readonly RunShape[];
  readonly counts: Readonly<Record<string, number>>;
  readonly resources: readonly ResourceShape[];
  readonly unclaimed?: readonly UnclaimedShape[];
  readonly apps?: readonly AppShape[];
}
