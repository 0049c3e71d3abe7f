/**
 * What `plan` and `apply` share: load and validate the desired state, open the state store,
 * build a client, reconcile, and turn the common failures into one clear line each.
 */

import { type Command, Option } from 'commander';
import { connectionsFor } from '../api/client.js';
import type { ApiClient } from '../api/types.js';
import { formatIssue } from '../config/issues.js';
import { loadDesiredState } from '../config/loader.js';
import type { ConfigIssue, DesiredState } from '../config/types.js';
import { type ReconcileOutcome, reconcile } from '../engine/reconcile.js';
import { checkSavedRevision, type PlanOrigin, type SavedPlan } from '../engine/saved-plan.js';
import { openStateStore, type StateStore } from '../engine/state.js';
import type { PartialPlan, Plan } from '../engine/types.js';
import { ReconcileError } from '../errors.js';
import { resolveRevision } from '../git.js';
import { KINDS } from '../kinds/registry.js';
import type { Lease } from '../state/backend.js';
import { createCliApiClient, resolveApiTarget } from './api-session.js';
import { configDirFrom } from './config-dir.js';
import { type CliIo, errorLine } from './io.js';
import { type ConnectionFlags, commandLogger, maxRps, positiveInt, secretReaderFrom } from './settings.js';
import { lockTimeoutMsOf, stateBackendOf } from './state-options.js';

/** Options shared by plan, apply and run. */
export function addReconcileOptions(command: Command): Command {
  return command
    .option(
      '--max-change-percent <n>',
      'refuse a plan changing more than this share of ≥ 10 resources',
      positiveInt('--max-change-percent'),
      30,
    )
    .option('--force', 'apply even when the plan exceeds --max-change-percent or a prune guard')
    .option(
      '--prune',
      'delete custom WAF rules and access lists that no document claims any more (env EDGESYNC_PRUNE=true)',
    )
    .addOption(
      new Option('--drift <mode>', 'correct drift, or only report it').choices(['correct', 'report']),
    );
}

/**
 * `--only Kind/name`, repeatable, for `plan` and `apply` (not `run`: a daemon reconciles the
 * whole configuration). See engine/only.ts and docs/reconcile.md, Partial runs.
 */
export function addOnlyOption(command: Command): Command {
  return command.option(
    '--only <subject>',
    'reconcile only this document (Kind/name, e.g. WafCustomRule/block-sqli; repeatable), or prune only this owned object whose document is gone; nothing else is read, planned or pruned',
    (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
  );
}

/** Terraform's `-target` warning: a partial plan or apply says so on stderr, every time. */
function partialWarning(partial: PartialPlan, mode: 'plan' | 'apply'): string {
  const shown = partial.only.slice(0, 5).join(', ');
  const more = partial.only.length > 5 ? `, and ${partial.only.length - 5} more` : '';
  const what = `${partial.documents} of ${partial.of} documents${partial.withoutDocument === 0 ? '' : ` and ${partial.withoutDocument} owned object${partial.withoutDocument === 1 ? '' : 's'} without a document`} (${shown}${more})`;
  return mode === 'plan'
    ? `edgesync: warning: --only: this plan covers ${what}; the other documents were not read or planned and nothing outside the selection is pruned, so it may not show every difference. Use --only for exceptions, then run a full plan.\n`
    : `edgesync: warning: --only: this apply was partial, ${what}; the other documents were not read or applied, nothing outside the selection was pruned, and they may still differ from the files. Run a full plan next.\n`;
}

export interface ReconcileFlags extends ConnectionFlags {
  maxChangePercent: number;
  /** `--only` (plan and apply only). */
  only?: string[];
  force?: boolean;
  prune?: boolean;
  drift?: 'correct' | 'report';
}

/**
 * Prints every config issue as `file:line:col: message (at path)`, or `file: message` for a
 * whole file or the directory (no `:0:0`), then the loader's summary, which names the config
 * directory. Unlike `validate`, the paths stay relative to that directory.
 */
function printConfigIssues(io: CliIo, err: ReconcileError): void {
  const issues = (err.details?.issues ?? []) as ConfigIssue[];
  for (const issue of issues) io.stderr.write(`${formatIssue(issue)}\n`);
  io.stderr.write(errorLine(err.code, err.message));
}

const READ_FAILURE_PREFIX = 'cannot read live state: ';

/**
 * When every resource that reads the API failed for the same reason (no network, a wrong
 * key), that is one problem, not a thousand: returns it as one line naming the API's URL and
 * the error code. Declarations that read nothing (ShieldZone) are left out of "every".
 */
export function commonReadFailure(plan: Plan, apiUrl: string): string | undefined {
  const reading = plan.changes.filter((c) => KINDS[c.kind].readsLive !== false);
  const failures = reading.filter((c) => c.action === 'error' && c.diffs.length === 0);
  if (failures.length === 0 || failures.length !== reading.length) return undefined;
  const codes = new Set(failures.map((c) => c.error?.code));
  const [code] = codes;
  if (
    code === undefined ||
    codes.size !== 1 ||
    !['API_AUTH', 'API_UNAVAILABLE', 'API_RATE_LIMITED', 'API_BAD_RESPONSE'].includes(code)
  ) {
    return undefined;
  }
  const message = failures[0]?.error?.message ?? '';
  const cause = message.startsWith(READ_FAILURE_PREFIX) ? message.slice(READ_FAILURE_PREFIX.length) : message;
  return errorLine(
    code,
    `cannot read the API at ${apiUrl} (every one of ${failures.length} resources): ${cause}`,
  );
}

interface PreparedRun {
  desired: DesiredState;
  /** Built last, so whoever gets a PreparedRun closes it. */
  api: ApiClient;
  /** Closes the state store (a database pool). */
  close(): Promise<void>;
  /** The API base URL `api` talks to, for the plan's header and the one-line read failure. */
  apiUrl: string;
  state: StateStore;
  revision: string;
  /** The writer's lease (`apply`); `plan` reads a consistent snapshot without it. */
  lease: Lease | undefined;
}

/** Loads, opens state and connects; throws ReconcileError (USAGE, CONFIG_INVALID, STATE_IO). */
async function prepareRun(
  flags: ReconcileFlags,
  io: CliIo,
  options: { persistState: boolean },
): Promise<PreparedRun> {
  const dir = configDirFrom(flags.config, io);
  // Settings first: a missing key is reported before the config is even read.
  const target = await resolveApiTarget(flags, io);
  const cap = maxRps(flags, io);
  const desired = await loadDesiredState(dir.path);
  const { backend, warnings } = stateBackendOf(flags, desired.configDir, io);
  for (const warning of warnings) io.stderr.write(`edgesync: warning: ${warning}\n`);
  // One writer at a time: `apply` takes the lease; `plan` only reads one consistent snapshot,
  // so it works beside a running daemon.
  const lease = options.persistState
    ? await backend.acquire('apply', {
        timeoutMs: lockTimeoutMsOf(flags),
        signal: io.signal,
        onTakeover: (previous, why) =>
          io.stderr.write(
            `edgesync: warning: took over the state lease${previous === undefined ? '' : ` of pid ${previous.pid} on ${previous.host}`}: ${why}\n`,
          ),
      })
    : undefined;
  try {
    const state = await openStateStore(backend, {
      readOnly: !options.persistState,
      ...(lease === undefined ? {} : { lease }),
    });
    if (state.warning !== undefined) io.stderr.write(`edgesync: warning: ${state.warning}\n`);
    const revision = await resolveRevision(desired.configDir, desired.digest);
    // Built last: nothing after it can throw, so the caller always gets it to close.
    const api = createCliApiClient(target, flags, io, {
      connections: connectionsFor(flags.concurrency),
      ...(cap === undefined ? {} : { rateLimitPerSecond: cap }),
    });
    return { desired, api, apiUrl: target.baseUrl, state, revision, lease, close: () => backend.close() };
  } catch (err) {
    await lease?.release();
    await backend.close();
    throw err;
  }
}

/** `--prune`, or `EDGESYNC_PRUNE=true` (any other value but unset/empty/false is a USAGE error). */
export function pruneEnabled(flags: { prune?: boolean }, io: CliIo): boolean {
  if (flags.prune === true) return true;
  const env = (io.env.EDGESYNC_PRUNE ?? '').trim().toLowerCase();
  if (env === '' || env === 'false' || env === '0') return false;
  if (env === 'true' || env === '1') return true;
  throw new ReconcileError(
    'USAGE',
    `EDGESYNC_PRUNE must be true or false, not ${JSON.stringify(io.env.EDGESYNC_PRUNE)}`,
  );
}

/** What `plan --out` and `apply FILE` add to a run. */
export interface SavedPlanRun {
  /** `plan --out`: take a digest of every live object read. */
  liveDigests?: boolean;
  /** `apply FILE`: the saved plan; its options replace the flags'. */
  saved?: SavedPlan;
  /** `apply`: wait for the rollouts its writes start (default), or not (`--no-wait`). */
  rollouts?: 'wait' | 'off';
  /** `--rollout-poll-ms`. */
  rolloutPollMs?: number;
}

function onlyOf(only: readonly string[] | undefined): { only?: readonly string[] } {
  return only === undefined ? {} : { only };
}

/** Runs the pipeline for a CLI command. */
async function runReconcile(
  prepared: PreparedRun,
  flags: ReconcileFlags,
  io: CliIo,
  mode: 'plan' | 'apply',
  extra: SavedPlanRun,
): Promise<ReconcileOutcome> {
  // The CLI prints plans and outcomes itself; the audit log on stderr is opt-in (--log-level info).
  const logger = commandLogger(flags, io, { level: 'silent', stream: 'stderr' });
  const saved = extra.saved?.options;
  return reconcile(prepared.desired.resources, {
    api: prepared.api,
    state: prepared.state,
    selection: {
      revision: prepared.revision,
      prune: saved?.prune ?? pruneEnabled(flags, io),
      ...onlyOf(saved?.only ?? flags.only),
      secrets: secretReaderFrom(flags, io),
      ...(extra.saved === undefined ? {} : { saved: extra.saved }),
    },
    write: {
      mode,
      driftMode: saved?.driftMode ?? flags.drift ?? 'correct',
      concurrency: flags.concurrency,
      maxChangePercent: saved?.maxChangePercent ?? flags.maxChangePercent,
      force: saved?.force ?? flags.force === true,
      signal: io.signal,
      ...(prepared.lease === undefined ? {} : { lease: prepared.lease }),
      ...(extra.rollouts === undefined ? {} : { rollouts: extra.rollouts }),
      ...(extra.rolloutPollMs === undefined ? {} : { rolloutPollMs: extra.rolloutPollMs }),
    },
    report: {
      trigger: 'cli',
      audit: logger.child({ component: 'audit' }),
      ...(extra.liveDigests === true ? { liveDigests: true } : {}),
    },
  });
}

/**
 * The body of `plan` and `apply`: prepare, reconcile in `mode`, let `report` print the outcome
 * and choose the exit code, close the client. An invalid config prints every issue: exit 1.
 */
export async function reconcileCommand(
  flags: ReconcileFlags,
  io: CliIo,
  mode: 'plan' | 'apply',
  report: (outcome: ReconcileOutcome, origin: PlanOrigin, apiUrl: string) => number | Promise<number>,
  extra: SavedPlanRun = {},
): Promise<number> {
  let prepared: PreparedRun;
  try {
    prepared = await prepareRun(flags, io, { persistState: mode === 'apply' });
  } catch (err) {
    if (err instanceof ReconcileError && err.code === 'CONFIG_INVALID') {
      printConfigIssues(io, err);
      return 1;
    }
    throw err;
  }
  try {
    const origin: PlanOrigin = {
      revision: prepared.revision,
      configDigest: prepared.desired.digest,
      api: prepared.apiUrl,
    };
    // A saved plan of another revision is refused before anything is read.
    if (extra.saved !== undefined) checkSavedRevision(extra.saved, origin);
    const outcome = await runReconcile(prepared, flags, io, mode, extra);
    if (outcome.plan.partial !== undefined) io.stderr.write(partialWarning(outcome.plan.partial, mode));
    return await report(outcome, origin, prepared.apiUrl);
  } finally {
    await prepared.api.close();
    await prepared.lease?.release();
    await prepared.close();
  }
}
