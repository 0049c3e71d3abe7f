/**
 * GitHub commit statuses (`POST /repos/{owner}/{repo}/statuses/{sha}`, context `edgesync`) on
 * the revision when it is a git commit: `pending` when a run starts writing, then `success`
 * or `failure` when it ends, the counts in the description.
 *
 * A status describes a commit, not a run, so it follows the commit's state rather than the
 * events: a revision's first run posts its final state even when there was nothing to write
 * (the commit is in effect), and later runs post only when that state changes. Statuses are
 * queued in order with the rest of the deliveries; one that fails is not re-sent by a later
 * run of the same state.
 */
import { realpathSync } from 'node:fs';
import type { Logger } from '../../log.js';
import type { Delivery, TargetInfo } from './delivery.js';
import { type GithubRepo, originRepo } from './github-repo.js';
import { countsText, isCommitSha } from './payload.js';
import type { RunObserver, RunSummary } from './run-summary.js';
import { failureKey } from './transitions.js';

/** The statuses' context: one check line per commit on GitHub. */
const STATUS_CONTEXT = 'edgesync';
/** GitHub's limit on a status description. */
const MAX_DESCRIPTION = 140;
/** Revisions whose last posted state is remembered. */
const REMEMBERED = 20;

type CommitState = 'pending' | 'success' | 'failure';

export interface CommitStatusOptions {
  /** `https://api.github.com`, or a GitHub Enterprise `https://host/api/v3`. */
  readonly apiUrl: URL;
  readonly token: string;
  /** `--github-repo`; otherwise `origin` of the config directory, asked per checkout. */
  readonly repo?: GithubRepo;
  /** The config path as configured (it may be a git-sync link that moves). */
  readonly configPath: string;
  readonly userAgent: string;
  readonly delivery: Delivery;
  readonly logger: Logger;
}

/** The description of a finished run: its counts, or why it failed as a whole. */
export function finalDescription(summary: RunSummary): string {
  if (summary.result === 'invalid') return `config invalid: ${summary.issues?.length ?? 0} issue(s)`;
  if (summary.result === 'error') return `run failed: ${summary.error?.code ?? 'error'}`;
  const elsewhere =
    summary.failingTotal > summary.counts.failed ? `; ${summary.failingTotal} failing in all` : '';
  return `${countsText(summary.counts)}${elsewhere}`;
}

/** The state a finished run gives its commit: failure while anything fails. */
export function finalState(summary: RunSummary): 'success' | 'failure' {
  return failureKey(summary) !== undefined || summary.failingTotal > 0 ? 'failure' : 'success';
}

/** The commit-status observer of one daemon. */
export function createCommitStatuses(options: CommitStatusOptions): RunObserver {
  const posted = new Map<string, CommitState>();
  /** Repository of each real config directory, once asked. */
  const repos = new Map<string, GithubRepo | undefined>();
  let chain = Promise.resolve();

  async function repoOf(): Promise<GithubRepo | undefined> {
    if (options.repo !== undefined) return options.repo;
    let dir: string;
    try {
      dir = realpathSync(options.configPath);
    } catch {
      return undefined;
    }
    if (!repos.has(dir)) {
      const repo = await originRepo(dir);
      repos.set(dir, repo);
      if (repo === undefined)
        options.logger.warn(
          { event: 'notify.github.no-repo' },
          'no commit statuses: the config directory has no GitHub origin remote; set --github-repo',
        );
    }
    return repos.get(dir);
  }

  function post(sha: string, state: CommitState, description: string): void {
    posted.delete(sha);
    posted.set(sha, state);
    for (const old of posted.keys()) {
      if (posted.size <= REMEMBERED) break;
      posted.delete(old);
    }
    // Chained: the repository lookup is async, and `pending` must be queued before its result.
    chain = chain
      .then(async () => {
        const repo = await repoOf();
        if (repo === undefined) return;
        const target: TargetInfo = {
          name: 'github',
          label: `${options.apiUrl.origin} ${repo.owner}/${repo.name}`,
          secrets: [options.token],
        };
        const base = options.apiUrl.href.replace(/\/+$/, '');
        options.delivery.send(target, {
          url: `${base}/repos/${encodeURIComponent(repo.owner)}/${encodeURIComponent(repo.name)}/statuses/${sha}`,
          headers: {
            authorization: `Bearer ${options.token}`,
            accept: 'application/vnd.github+json',
            'x-github-api-version': '2022-11-28',
            'user-agent': options.userAgent,
          },
          body: JSON.stringify({
            state,
            context: STATUS_CONTEXT,
            description: description.slice(0, MAX_DESCRIPTION),
          }),
        });
      })
      .catch(() => undefined);
  }

  return {
    applyStarting(run) {
      if (!isCommitSha(run.revision)) return;
      post(run.revision, 'pending', `applying ${run.writes} change(s) (${run.trigger})`);
    },
    runFinished(summary) {
      if (!isCommitSha(summary.revision)) return;
      const state = finalState(summary);
      if (posted.get(summary.revision) === state) return;
      post(summary.revision, state, finalDescription(summary));
    },
  };
}
