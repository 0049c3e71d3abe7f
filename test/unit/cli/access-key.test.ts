/**
 * The access key is read one way for the client and for both emulators (`edgesync emulator`,
 * `run --emulator`): trimmed, so a key written with `echo` into the environment or a file
 * still matches the client's.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CliIo, runCli } from '../../../src/cli/program.js';
import { accessKey, configuredAccessKey } from '../../../src/cli/settings.js';
import { until } from '../../helpers/daemon.js';
import { tempDir } from '../../helpers/temp-dir.js';

function io(
  env: Record<string, string>,
  signal = new AbortController().signal,
): CliIo & { out: () => string } {
  let out = '';
  return {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: () => undefined },
    env,
    cwd: tempDir(),
    signal,
    out: () => out,
  };
}

describe('configuredAccessKey', () => {
  it('trims the environment key as accessKey does', async () => {
    const env = io({ EDGESYNC_ACCESS_KEY: ' the-key\n' });

    expect(await configuredAccessKey({}, env)).toBe('the-key');
    expect(await configuredAccessKey({}, env)).toBe(await accessKey({}, env));
  });

  it('is undefined when neither a key file nor a non-blank variable is given', async () => {
    expect(await configuredAccessKey({}, io({}))).toBeUndefined();
    expect(await configuredAccessKey({}, io({ EDGESYNC_ACCESS_KEY: ' \n' }))).toBeUndefined();
  });

  it('reads a key file, and refuses an empty one instead of falling back', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'key'), 'file-key\n');
    writeFileSync(join(dir, 'empty'), '\n');

    expect(await configuredAccessKey({ accessKeyFile: join(dir, 'key') }, io({}))).toBe('file-key');
    await expect(configuredAccessKey({ accessKeyFile: join(dir, 'empty') }, io({}))).rejects.toThrow(
      `the access key file ${join(dir, 'empty')} is empty`,
    );
  });
});

describe('edgesync emulator', () => {
  it('accepts the trimmed EDGESYNC_ACCESS_KEY, the key the client sends', async () => {
    const controller = new AbortController();
    const cli = io({ EDGESYNC_ACCESS_KEY: 'emulator-key\n' }, controller.signal);

    const running = runCli(['emulator', '--port', '0'], cli);
    await until(() => cli.out().includes('\n'), 'the emulator to listen', 5_000);
    const url = cli.out().trim().replace('listening on ', '');
    const reply = await fetch(`${url}/mc/regions/optimal`, { headers: { AccessKey: 'emulator-key' } });
    controller.abort();

    expect(reply.status).toBe(200);
    expect(await running).toBe(0);
  });
});
