/**
 * The notification flags of `edgesync run` (docs/design.md, Notifications; docs/daemon.md "Notifications"). The
 * secret ones take files: a flag value would show in `ps`. `--notify-webhook` takes a URL for
 * receivers without a credential in it; `--notify-webhook-file` (or `EDGESYNC_NOTIFY_WEBHOOKS`)
 * for the rest.
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import ms from 'ms';
import {
  DEFAULT_GITHUB_API_URL,
  DEFAULT_NOTIFY_MIN_INTERVAL,
  DEFAULT_NOTIFY_REPEAT,
  httpUrl,
  NOTIFY_WEBHOOKS_ENV,
} from '../daemon/notify/settings.js';

/** `30m`, `1h`, `90s`, `1d` (the `ms` package's syntax) → milliseconds > 0. */
export function duration(value: string): number {
  // `ms` takes a bare number as milliseconds; a duration flag without a unit is more likely a mistake.
  const parsed = /[a-z]\s*$/i.test(value) ? ms(value as ms.StringValue) : undefined;
  if (parsed === undefined || !Number.isFinite(parsed) || parsed <= 0)
    throw new InvalidArgumentError('not a duration with a unit (e.g. "30m", "1h", "90s").');
  return parsed;
}

/** Collected only: the URL may carry a token, and commander's own error would repeat it. */
function webhookUrl(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function apiUrl(value: string): string {
  if (httpUrl(value) === undefined) throw new InvalidArgumentError('not an http(s) URL.');
  return value;
}

/** Adds the notification flags to `run`. */
export function addNotifyOptions(command: Command): Command {
  return command
    .option(
      '--notify-webhook <url>',
      `POST a JSON event to this URL on each transition (repeatable; visible in ps: a URL with a credential belongs in --notify-webhook-file or env ${NOTIFY_WEBHOOKS_ENV})`,
      webhookUrl,
    )
    .option(
      '--notify-webhook-file <file>',
      'file of webhook URLs to POST events to, one per line (# comments)',
    )
    .option('--notify-webhook-secret-file <file>', 'sign --notify-webhook bodies: X-Signature: sha256=<hmac>')
    .option('--notify-slack-webhook-file <file>', 'file holding a Slack incoming-webhook URL')
    .option('--github-token-file <file>', 'file holding a GitHub token: commit statuses on the revision')
    .option('--github-repo <owner/name>', "commit statuses' repository (default: the config's origin remote)")
    .option(
      '--github-api-url <url>',
      'GitHub API base URL (GitHub Enterprise: https://host/api/v3)',
      apiUrl,
      DEFAULT_GITHUB_API_URL,
    )
    .addOption(
      new Option('--notify-repeat <duration>', 'tell an unchanged failure again at most this often')
        .argParser(duration)
        .default(duration(DEFAULT_NOTIFY_REPEAT), DEFAULT_NOTIFY_REPEAT),
    )
    .addOption(
      new Option(
        '--notify-min-interval <duration>',
        'at most one notification per target this often; the latest state held back is sent when it ends',
      )
        .argParser(duration)
        .default(duration(DEFAULT_NOTIFY_MIN_INTERVAL), DEFAULT_NOTIFY_MIN_INTERVAL),
    );
}
