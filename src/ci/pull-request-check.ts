/**
 * The pull-request check of the GitHub Action (`action.yml`; docs/ci.md): validate, then plan
 * as Markdown, then keep one comment on the pull request up to date with the plan, the
 * revision and a link to the run, and write the whole plan to the job summary. The check
 * fails when the config does not validate or the plan has errors.
 *
 * Safe for forks (docs/ci.md, Forks): on `pull_request_target` with an access key it refuses to
 * run unless the checkout is the base commit, since a pull request's own files then run with
 * the secrets; without a key it validates only.
 */
import { appendFile, readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { CliIo } from '../cli/io.js';
import { runCli } from '../cli/program.js';
import { gitHead } from '../git.js';
import { commentBody, commentMarker, fenced } from './comment-body.js';
import { upsertComment } from './github-comments.js';

interface PullRequestEvent {
  pull_request?: {
    number?: number;
    head?: { sha?: string; repo?: { full_name?: string } | null };
    base?: { sha?: string; repo?: { full_name?: string } | null };
  };
}

/** Runs `edgesync <argv>` in-process with its output captured. */
async function edgesync(
  argv: string[],
  io: CliIo,
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    ...io,
    stdout: { write: (s: string) => (stdout += s), isTTY: false },
    stderr: { write: (s: string) => (stderr += s) },
  });
  return { code, stdout, stderr };
}

async function readEvent(path: string | undefined): Promise<PullRequestEvent> {
  if (path === undefined || path === '') return {};
  try {
    return JSON.parse(await readFile(path, 'utf8')) as PullRequestEvent;
  } catch {
    return {};
  }
}

/**
 * Why this run must not touch the access key, or undefined. On `pull_request_target` the
 * workflow holds the secrets; if it checked out the pull request's head, the pull request's
 * files (and any script they bring) would run with them.
 */
async function forkProblem(event: string | undefined, payload: PullRequestEvent, dir: string, io: CliIo) {
  if (event !== 'pull_request_target') return undefined;
  const head = await gitHead(dir);
  const base = [payload.pull_request?.base?.sha, io.env.GITHUB_SHA].filter(
    (s) => s !== undefined && s !== '',
  );
  if (head !== undefined && base.includes(head)) return undefined;
  return `refusing to run on pull_request_target with the access key: the checkout is ${head ?? 'not a Git work tree'}, not the base commit ${base[0] ?? '(unknown)'}. Code from a pull request must never run with the key; see docs/ci.md, Forks, for the two-workflow pattern`;
}

function runUrl(env: CliIo['env']): string {
  const server = env.GITHUB_SERVER_URL ?? 'https://github.com';
  return `${server}/${env.GITHUB_REPOSITORY ?? ''}/actions/runs/${env.GITHUB_RUN_ID ?? ''}`;
}

/** The check; returns the step's exit code. */
export async function runPullRequestCheck(io: CliIo): Promise<number> {
  const env = io.env;
  const say = (line: string) => io.stdout.write(`${line}\n`);
  const payload = await readEvent(env.GITHUB_EVENT_PATH);
  // As given, so that problems are reported relative to the workspace as the user wrote them.
  const config = env.EDGESYNC_CONFIG === undefined || env.EDGESYNC_CONFIG === '' ? '.' : env.EDGESYNC_CONFIG;
  const hasKey = (env.EDGESYNC_ACCESS_KEY ?? '') !== '';
  if (hasKey) {
    const problem = await forkProblem(env.GITHUB_EVENT_NAME, payload, resolve(io.cwd, config), io);
    if (problem !== undefined) {
      io.stderr.write(`edgesync: ${problem}\n`);
      return 1;
    }
  }

  let content: string;
  let failed = false;
  const validate = await edgesync(['validate', '--config', config], io);
  if (validate.code !== 0) {
    failed = true;
    content = `**❌ The desired state does not validate.**\n\n${fenced(`${validate.stderr}${validate.stdout}`)}\n`;
  } else if (!hasKey) {
    content =
      '**✅ The desired state validates.** Not planned: this run has no access key (a pull request from a fork, or the secret is not set).\n';
  } else {
    const out = env.EDGESYNC_PLAN_OUT ?? '';
    const plan = await edgesync(
      ['plan', '--config', config, '--format', 'markdown', ...(out === '' ? [] : ['--out', out])],
      io,
    );
    failed = plan.code !== 0;
    content = `${plan.stdout}${plan.stderr === '' ? '' : `\n${fenced(plan.stderr)}\n`}`;
  }

  const revision = payload.pull_request?.head?.sha ?? env.GITHUB_SHA ?? '';
  const url = runUrl(env);
  const footer = `<sub>${[
    `edgesync ${failed ? '❌ failed' : '✅ passed'}`,
    revision === '' ? '' : `commit \`${revision.slice(0, 12)}\``,
    env.GITHUB_RUN_ID === undefined ? '' : `[run ${env.GITHUB_RUN_ID}](${url})`,
  ]
    .filter((part) => part !== '')
    .join(' · ')}</sub>`;
  io.stdout.write(content);
  if (env.GITHUB_STEP_SUMMARY !== undefined && env.GITHUB_STEP_SUMMARY !== '') {
    await appendFile(env.GITHUB_STEP_SUMMARY, `${content}\n${footer}\n`);
  }

  const number = Number(env.EDGESYNC_PR_NUMBER || payload.pull_request?.number);
  const token = env.GITHUB_TOKEN ?? '';
  const fromFork =
    env.GITHUB_EVENT_NAME === 'pull_request' &&
    payload.pull_request?.head?.repo?.full_name !== payload.pull_request?.base?.repo?.full_name;
  if (!Number.isInteger(number) || number <= 0 || token === '' || fromFork) {
    say(
      'edgesync: no comment: not a pull request, no token, or a pull request from a fork (read-only token)',
    );
    return failed ? 1 : 0;
  }
  const marker = commentMarker(env.EDGESYNC_COMMENT_ID);
  const { body, cut } = commentBody({ marker, content, footer, summaryUrl: url });
  try {
    const done = await upsertComment(
      {
        apiUrl: (env.GITHUB_API_URL ?? 'https://api.github.com').replace(/\/+$/, ''),
        token,
        repository: env.GITHUB_REPOSITORY ?? '',
        pullRequest: number,
      },
      marker,
      body,
    );
    say(
      `edgesync: plan comment ${done.action} (#${done.id})${cut ? '; cut to fit, the whole plan is in the job summary' : ''}`,
    );
  } catch (err) {
    io.stderr.write(`edgesync: ${(err as Error).message}\n`);
    return 1;
  }
  return failed ? 1 : 0;
}
