/**
 * The notification settings of `edgesync run`, read and checked once at start: the secrets
 * come from files (a Slack incoming-webhook URL is itself a credential, like the token) or the
 * environment, and every error names the flag, the file or the variable and where in it —
 * never what it holds. A generic webhook URL often carries its credential too (a token in the
 * path or the query, a `user:password@`): `--notify-webhook-file` and `EDGESYNC_NOTIFY_WEBHOOKS`
 * keep it out of the process list; `--notify-webhook` still works, with a warning.
 */
import { resolve } from 'node:path';
import { ReconcileError } from '../../errors.js';
import { readSecretFile, readSecretLines } from '../signatures.js';
import { type GithubRepo, parseRepoSlug } from './github-repo.js';

/** Default of `--notify-repeat`: an unchanged failure is told again at most once an hour. */
export const DEFAULT_NOTIFY_REPEAT = '1h';
/** Default of `--notify-min-interval`: at most one notification a minute per target. */
export const DEFAULT_NOTIFY_MIN_INTERVAL = '1m';
/** The environment variable of webhook URLs: separated by white space (a URL holds none). */
export const NOTIFY_WEBHOOKS_ENV = 'EDGESYNC_NOTIFY_WEBHOOKS';
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
  /** Events to one target are at least this far apart; the latest held one goes out at the end. */
  readonly minIntervalMs: number;
  /** Said once at start (never a URL): e.g. that a webhook URL came in through the command line. */
  readonly warnings: readonly string[];
}

/** The flags, as commander parsed them (URLs and the duration already checked). */
export interface NotifyFlags {
  readonly notifyWebhook?: readonly string[];
  readonly notifyWebhookFile?: string;
  readonly notifyWebhookSecretFile?: string;
  readonly notifySlackWebhookFile?: string;
  readonly githubTokenFile?: string;
  readonly githubRepo?: string;
  readonly githubApiUrl?: string;
  /** Milliseconds. */
  readonly notifyRepeat: number;
  /** Milliseconds. */
  readonly notifyMinInterval: number;
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

/** Whether a URL has anything that may be a credential: a user or password, a path, a query. */
function mayCarryCredential(url: URL): boolean {
  return url.username !== '' || url.password !== '' || url.search !== '' || url.pathname.length > 1;
}

/**
 * The generic webhook URLs, from the flag, the file and the environment together (duplicates
 * once). A bad one is named by its place — value n, line n — never by its text.
 */
async function readWebhooks(
  flags: NotifyFlags,
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ urls: URL[]; warnings: string[] }> {
  const urls: URL[] = [];
  const warnings: string[] = [];
  const add = (text: string, where: string): void => {
    const url = httpUrl(text);
    if (url === undefined) throw usage(`${where}: not an http(s) URL`);
    if (!urls.some((known) => known.href === url.href)) urls.push(url);
  };
  (flags.notifyWebhook ?? []).forEach((text, i) => {
    add(text, `--notify-webhook (value ${i + 1})`);
  });
  if ((flags.notifyWebhook ?? []).some((text) => mayCarryCredential(new URL(text))))
    warnings.push(
      `--notify-webhook puts its URL in the process list (ps, /proc/<pid>/cmdline), readable by every user of the host; a URL that carries a credential belongs in --notify-webhook-file or ${NOTIFY_WEBHOOKS_ENV}`,
    );
  if (flags.notifyWebhookFile !== undefined) {
    const file = resolve(cwd, flags.notifyWebhookFile);
    const lines = await readSecretLines(
      file,
      (code) => `--notify-webhook-file: cannot read ${file}: ${code}`,
      {
        keepEmpty: true,
      },
    );
    let listed = 0;
    lines.forEach((line, i) => {
      if (line === '' || line.startsWith('#')) return;
      listed += 1;
      add(line, `--notify-webhook-file: ${file}:${i + 1}`);
    });
    if (listed === 0) throw usage(`--notify-webhook-file: ${file} holds no URL`);
  }
  const fromEnv = (env[NOTIFY_WEBHOOKS_ENV] ?? '').split(/\s+/).filter((part) => part !== '');
  fromEnv.forEach((text, i) => {
    add(text, `${NOTIFY_WEBHOOKS_ENV} (URL ${i + 1})`);
  });
  return { urls, warnings };
}

/**
 * Reads the secret files and checks the combinations; paths are relative to `cwd`, `env` is
 * the process environment (`EDGESYNC_NOTIFY_WEBHOOKS`).
 */
export async function readNotifySettings(
  flags: NotifyFlags,
  cwd: string,
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<NotifySettings> {
  const { urls: webhooks, warnings } = await readWebhooks(flags, cwd, env);
  if (flags.notifyWebhookSecretFile !== undefined && webhooks.length === 0)
    throw usage(
      `--notify-webhook-secret-file needs --notify-webhook, --notify-webhook-file or ${NOTIFY_WEBHOOKS_ENV}`,
    );
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
    minIntervalMs: flags.notifyMinInterval,
    warnings,
  };
}
