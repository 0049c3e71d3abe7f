/**
 * `edgesync run`'s settings errors, in-process: each ends the command at once with exit code
 * 1 and one clear line, before anything is started.
 */
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { writeDaemonConfig } from '../helpers/daemon.js';
import { TEST_KEY } from '../helpers/emulator.js';
import { tempDir } from '../helpers/temp-dir.js';

/** `edgesync run <args>` in-process, with the test key in the environment unless `env` is given. */
function run(args: readonly string[], env: Record<string, string> = { EDGESYNC_ACCESS_KEY: TEST_KEY }) {
  return cli(['run', ...args], { env });
}

describe('edgesync run: bad settings', () => {
  const config = (): string => writeDaemonConfig(join(tempDir(), 'config'));

  it.each([
    [['--schedule', 'every minute'], 'edgesync: USAGE: --schedule "every minute" is not a cron expression'],
    [['--listen', 'localhost'], 'is not HOST:PORT'],
    [['--debounce-ms', '-1'], "option '--debounce-ms <ms>' argument '-1' is invalid"],
    [['--shutdown-timeout', 'soon'], "option '--shutdown-timeout <seconds>' argument 'soon' is invalid"],
    [['--emulator', '--base-url', 'http://127.0.0.1:1'], '--emulator and --base-url cannot be used together'],
  ])('%j → exit 1', async (args, message) => {
    const result = await run(['--config', config(), ...args]);

    expect(result.code).toBe(1);
    // The message leads (commander's usage may follow), and nothing was started or logged.
    expect(result.stderr.split('\n')[0]).toContain(message);
    expect(result.stdout).toBe('');
  });

  it('no access key → exit 1', async () => {
    const result = await run(['--config', config(), '--base-url', 'http://127.0.0.1:1'], {});

    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'edgesync: USAGE: no access key: set EDGESYNC_ACCESS_KEY or pass --access-key-file FILE\n',
    );
    expect(result.stdout).toBe('');
  });

  it('an unreadable webhook secret file → exit 1', async () => {
    const missing = join(tempDir(), 'nope');
    const result = await run([
      ...['--config', config(), '--base-url', 'http://127.0.0.1:1', '--listen', '127.0.0.1:0'],
      ...['--webhook-secret-file', missing],
    ]);

    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`edgesync: USAGE: cannot read the webhook secret file ${missing}: ENOENT\n`);
    expect(result.stdout).toBe('');
  });

  it('an address in use → exit 1', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;

    const result = await run([
      '--config',
      config(),
      '--base-url',
      'http://127.0.0.1:1',
      '--listen',
      `127.0.0.1:${port}`,
    ]);
    await new Promise((resolve) => blocker.close(resolve));

    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`edgesync: USAGE: cannot listen on 127.0.0.1:${port}: EADDRINUSE\n`);
    expect(result.stdout).toBe('');
  });
});
