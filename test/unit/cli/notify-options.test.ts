/**
 * The notification flags of `edgesync run`: bad values end the command at once with one line
 * on stderr that names the flag (and the file) but never repeats a secret the file holds.
 */
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { duration } from '../../../src/cli/notify-options.js';
import { cli } from '../../helpers/cli.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';

const SLACK_SECRET = 'hooks.slack.example/services/T0/B0/never-print-this';

describe('--notify-repeat', () => {
  it.each([
    ['30m', 1_800_000],
    ['1h', 3_600_000],
    ['90s', 90_000],
    ['250ms', 250],
  ])('%s is %d ms', (text, expected) => {
    expect(duration(text)).toBe(expected);
  });

  it.each(['soon', '30', '0s', '-5m', ''])('%j is refused', (text) => {
    expect(() => duration(text)).toThrow('not a duration with a unit');
  });
});

describe('edgesync run notification flags', () => {
  let root = '';
  beforeEach(() => {
    root = tempDir();
    writeTree(root, {
      'config/README.md': 'empty',
      'slack-two-lines': `https://${SLACK_SECRET}\nhttps://${SLACK_SECRET}\n`,
      'slack-not-url': `ftp://${SLACK_SECRET}\n`,
      'token-empty': '\n',
      'secret-empty': '\n',
      'hooks-bad': `# receivers\n\nhttps://a.example/hook\nftp://${SLACK_SECRET}\n`,
      'hooks-comments': '# none yet\n\n',
    });
  });
  const run = (...flags: string[]) => runWith({}, ...flags);
  const runWith = (env: Record<string, string>, ...flags: string[]) =>
    cli(['run', '--config', join(root, 'config'), '--listen', '127.0.0.1:0', ...flags], {
      env: { EDGESYNC_ACCESS_KEY: 'k', ...env },
      cwd: root,
    });

  it.each([
    [['--notify-webhook', `ftp://${SLACK_SECRET}`], '--notify-webhook (value 1): not an http(s) URL'],
    [
      ['--notify-webhook', 'https://a.example/', '--notify-webhook', 'not a url never-print-this'],
      '--notify-webhook (value 2): not an http(s) URL',
    ],
    [['--notify-webhook-file', 'missing'], '--notify-webhook-file: cannot read /'],
    [['--notify-webhook-file', 'hooks-bad'], 'hooks-bad:4: not an http(s) URL'],
    [['--notify-webhook-file', 'hooks-comments'], 'hooks-comments holds no URL'],
    [
      ['--notify-repeat', 'often'],
      "option '--notify-repeat <duration>' argument 'often' is invalid. not a duration with a unit",
    ],
    [
      ['--notify-webhook-secret-file', 'secret-empty'],
      '--notify-webhook-secret-file needs --notify-webhook, --notify-webhook-file or EDGESYNC_NOTIFY_WEBHOOKS',
    ],
    [
      ['--notify-webhook', 'https://example.com/h', '--notify-webhook-secret-file', 'secret-empty'],
      'holds no secret',
    ],
    [['--notify-slack-webhook-file', 'missing'], '--notify-slack-webhook-file: cannot read /'],
    [
      ['--notify-slack-webhook-file', 'slack-two-lines'],
      'slack-two-lines must hold exactly one line with no spaces',
    ],
    [['--notify-slack-webhook-file', 'slack-not-url'], 'slack-not-url does not hold an http(s) URL'],
    [['--github-token-file', 'token-empty'], 'token-empty must hold exactly one line with no spaces'],
    [['--github-repo', 'acme/edge'], '--github-repo needs --github-token-file'],
    [
      ['--github-repo', 'acme', '--github-token-file', 'slack-not-url'],
      '--github-repo: "acme" is not owner/name',
    ],
  ])('%j → %s', async (flags, message) => {
    const result = await run(...flags);

    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(message);
    expect(result.stdout + result.stderr).not.toContain('never-print-this');
  });

  it('names a bad URL of EDGESYNC_NOTIFY_WEBHOOKS by its place, never by its text', async () => {
    const result = await runWith(
      { EDGESYNC_NOTIFY_WEBHOOKS: `https://a.example/hook\n  ftp://${SLACK_SECRET}` },
      '--notify-min-interval',
      '1s',
    );

    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('EDGESYNC_NOTIFY_WEBHOOKS (URL 2): not an http(s) URL');
    expect(result.stdout + result.stderr).not.toContain('never-print-this');
  });

  it('refuses a --notify-min-interval without a unit', async () => {
    const result = await run('--notify-min-interval', '60');

    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("option '--notify-min-interval <duration>' argument '60' is invalid");
  });
});
