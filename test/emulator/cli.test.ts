import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/program.js';
import { runCli } from '../../src/cli/program.js';

interface Captured {
  io: CliIo;
  out: () => string;
  err: () => string;
  abort: () => void;
}

function capture(env: Record<string, string> = {}): Captured {
  let out = '';
  let err = '';
  const controller = new AbortController();
  return {
    io: {
      stdout: { write: (s: string) => (out += s) },
      stderr: { write: (s: string) => (err += s) },
      env,
      cwd: process.cwd(),
      signal: controller.signal,
    },
    out: () => out,
    err: () => err,
    abort: () => controller.abort(),
  };
}

async function waitFor(predicate: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('edgesync emulator', () => {
  it('prints the URL, serves the seed with the key from the environment, and stops on abort', async () => {
    const key = 'cli-secret-key';
    const cli = capture({ EDGESYNC_ACCESS_KEY: key });

    const running = runCli(['emulator', '--port', '0', '--seed', 'src/emulator/examples/seed.yaml'], cli.io);
    await waitFor(() => cli.out().includes('\n'));
    const url = /^listening on (http:\/\/127\.0\.0\.1:\d+)\n$/.exec(cli.out())?.[1];
    const ok = await fetch(`${url}/dnszone/12345`, { headers: { AccessKey: key } });
    const refused = await fetch(`${url}/dnszone/12345`, { headers: { AccessKey: 'other' } });
    cli.abort();
    const code = await running;

    expect(url).toBeDefined();
    expect(ok.status).toBe(200);
    expect(refused.status).toBe(401);
    expect(code).toBe(0);
    expect(cli.out() + cli.err()).not.toContain(key);
    await expect(fetch(`${url}/dnszone/12345`)).rejects.toThrow();
  });

  it('takes the key from --access-key-file and fault flags', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'edgesync-cli-'));
    await writeFile(join(dir, 'key'), 'file-key\n');
    const cli = capture();

    const running = runCli(
      ['emulator', '--port', '0', '--access-key-file', join(dir, 'key'), '--fail-rate-503', '1'],
      cli.io,
    );
    await waitFor(() => cli.out().includes('\n'));
    const url = cli.out().trim().replace('listening on ', '');
    const result = await fetch(`${url}/mc/regions/optimal`, { headers: { AccessKey: 'file-key' } });
    cli.abort();

    expect(result.status).toBe(503);
    expect(await running).toBe(0);
  });

  it('exits 1 with one clear line when no key is configured', async () => {
    const cli = capture();

    const code = await runCli(['emulator', '--port', '0'], cli.io);

    expect(code).toBe(1);
    expect(cli.out()).toBe('');
    expect(cli.err()).toBe(
      'edgesync emulator: USAGE: no access key configured: set EDGESYNC_ACCESS_KEY, or pass --access-key-file or --access-key\n',
    );
  });

  it('exits 1 on an invalid seed, naming file and line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'edgesync-cli-'));
    const seed = join(dir, 'seed.yaml');
    await writeFile(seed, 'apps: 1\n');
    const cli = capture({ EDGESYNC_ACCESS_KEY: 'k' });

    const code = await runCli(['emulator', '--port', '0', '--seed', seed], cli.io);

    expect(code).toBe(1);
    expect(cli.err()).toContain(`${seed}:1:7:`);
  });

  it('refuses a fault rate outside [0, 1]', async () => {
    const cli = capture({ EDGESYNC_ACCESS_KEY: 'k' });

    const code = await runCli(['emulator', '--port', '0', '--drop-rate', '2'], cli.io);

    expect(code).toBe(1);
    expect(cli.err()).toContain('--drop-rate');
  });

  it('limits requests per key with --rate-limit N (429 + Retry-After past the burst)', async () => {
    const cli = capture({ EDGESYNC_ACCESS_KEY: 'k' });

    // One token a second: three requests at once cannot all find one.
    const running = runCli(['emulator', '--port', '0', '--rate-limit', '1'], cli.io);
    await waitFor(() => cli.out().includes('\n'));
    const url = cli.out().trim().replace('listening on ', '');
    const replies = await Promise.all(
      [1, 2, 3].map(() => fetch(`${url}/mc/regions/optimal`, { headers: { AccessKey: 'k' } })),
    );
    cli.abort();

    expect(replies.map((r) => r.status)).toContain(200);
    expect(replies.map((r) => r.status)).toContain(429);
    expect(replies.find((r) => r.status === 429)?.headers.get('retry-after')).toBe('1');
    expect(await running).toBe(0);
  });

  it('refuses a --rate-limit that is not a positive number', async () => {
    const cli = capture({ EDGESYNC_ACCESS_KEY: 'k' });

    const code = await runCli(['emulator', '--port', '0', '--rate-limit', '0'], cli.io);

    expect(code).toBe(1);
    expect(cli.err()).toContain("option '--rate-limit <n>' argument '0' is invalid");
  });

  it('--strict refuses unknown body fields; without it they are ignored', async () => {
    const cli = capture({ EDGESYNC_ACCESS_KEY: 'k' });

    const running = runCli(
      ['emulator', '--port', '0', '--strict', '--seed', 'src/emulator/examples/seed.yaml'],
      cli.io,
    );
    await waitFor(() => cli.out().includes('\n'));
    const url = cli.out().trim().replace('listening on ', '');
    const result = await fetch(`${url}/shield/shield-zone/42/access-lists/configurations/19001`, {
      method: 'PATCH',
      headers: { AccessKey: 'k', 'content-type': 'application/json' },
      body: JSON.stringify({ isEnabled: true, junk: 1 }),
    });
    cli.abort();

    expect(result.status).toBe(400);
    expect(await result.json()).toMatchObject({ errors: { junk: [expect.any(String)] } });
    expect(await running).toBe(0);
  });
});
