/**
 * `git` for the scripts that build repositories to push to (the latency bench, the daemon's
 * git-pull tests): a fixed identity, no prompts, output trimmed; a failure throws with git's
 * stderr.
 */
import { execFileSync } from 'node:child_process';

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'edgesync bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'edgesync bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
  GIT_TERMINAL_PROMPT: '0',
};

/** Runs `git args…` in `cwd` and returns its stdout, trimmed. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    env: GIT_ENV,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}
