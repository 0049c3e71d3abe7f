/**
 * The notification settings of `edgesync run`, read and checked once at start: the secrets
 * come from files (a Slack incoming-webhook URL is itself a credential, like the token), and
 * every error names the flag and the file — never what the file holds.
 */
import { resolve } from 'node:path';
import { ReconcileError } from '../../errors.js';
import { readSecretFile, readSecretLines } from '../signatures.js';
import { type GithubRepo, parseRepoSlug } from './github-repo.js';

/** Default of `--notify-repeat`: an unchanged failure is told again at most once an hour. */
export const DEFAULT_NOTIFY_REPEAT = '1h';
/** Default of `--github-api-url`. */
export const DEFAULT_GITHUB_API_URL = 'https://api.github.com';

/** What the notifier needs, secrets included (never logged). */
export interface NotifySettings {
  readonly webhooks: readonly URL[];
  /** Signs the generic webhooks' bodies; the first line of the file. */
  readonly webhookSecret?: string;
  readonly slackUrl?: URL;
  readonly github?: { readonly apiUrl: URL; readonly token: string; readonly repo?: GithubRepo };
  readonly repeatMs: number;
}

/** The flags, as commander parsed them (URLs and the duration already checked). */
export interface NotifyFlags {
  readonly notifyWebhook?: readonly string[];
  readonly notifyWebhookSecretFile?: string;
  readonly notifySlackWebhookFile?: string;
  readonly githubTokenFile?: string;
  readonly githubRepo?: string;
  readonly githubApiUrl?: string;
  /** Milliseconds. */
  readonly notifyRepeat: number;
}

/** An http(s) URL; undefined for anything else. */
export function httpUrl(text: string): URL | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** The one non-empty line of a secret file; errors say which flag and file, not the content. */
async function readOneLine(path: string, flag: string): Promise<string> {
  const lines = await readSecretLines(path, (code) => `${flag}: cannot read ${path}: ${code}`);
  if (lines.length !== 1 || /\s/.test(lines[0] ?? ''))
    throw new ReconcileError('USAGE', `${flag}: ${path} must hold exactly one line with no spaces`);
  return lines[0] as string;
}

function usage(message: string): ReconcileError {
  return new ReconcileError('USAGE', message);
}

/** Reads the secret files and checks the combinations; paths are relative to `cwd`. */
export async function readNotifySettings(flags: NotifyFlags, cwd: string): Promise<NotifySettings> {
  const webhooks = (flags.notifyWebhook ?? []).map((text) => {
    const url = httpUrl(text);
    if (url === undefined) throw usage('--notify-webhook: not an http(s) URL');
    return url;
  });
  if (flags.notifyWebhookSecretFile !== undefined && webhooks.length === 0)
    throw usage('--notify-webhook-secret-file needs --notify-webhook');
  const webhookSecret =
    flags.notifyWebhookSecretFile === undefined
      ? undefined
      : (await readSecretFile(resolve(cwd, flags.notifyWebhookSecretFile)))[0];

  let slackUrl: URL | undefined;
  if (flags.notifySlackWebhookFile !== undefined) {
    const file = resolve(cwd, flags.notifySlackWebhookFile);
    slackUrl = httpUrl(await readOneLine(file, '--notify-slack-webhook-file'));
    if (slackUrl === undefined)
      throw usage(`--notify-slack-webhook-file: ${file} does not hold an http(s) URL`);
  }

  let repo: GithubRepo | undefined;
  if (flags.githubRepo !== undefined) {
    repo = parseRepoSlug(flags.githubRepo);
    if (repo === undefined) throw usage(`--github-repo: "${flags.githubRepo}" is not owner/name`);
  }
  if (flags.githubTokenFile === undefined && repo !== undefined)
    throw usage('--github-repo needs --github-token-file');
  let github: NotifySettings['github'];
  if (flags.githubTokenFile !== undefined) {
    const apiUrl = httpUrl(flags.githubApiUrl ?? DEFAULT_GITHUB_API_URL);
    if (apiUrl === undefined) throw usage('--github-api-url: not an http(s) URL');
    const token = await readOneLine(resolve(cwd, flags.githubTokenFile), '--github-token-file');
    github = { apiUrl, token, ...(repo === undefined ? {} : { repo }) };
  }
  return {
    webhooks,
    ...(webhookSecret === undefined ? {} : { webhookSecret }),
    ...(slackUrl === undefined ? {} : { slackUrl }),
    ...(github === undefined ? {} : { github }),
    repeatMs: flags.notifyRepeat,
  };
}
