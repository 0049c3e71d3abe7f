/**
 * Runs the CLI in-process (`runCli(argv, io)`) with captured stdout and stderr, the way a
 * user's shell would see them, against an emulator over real loopback HTTP.
 */
import { type CliIo, runCli } from '../../src/cli/program.js';
import type { Emulator } from '../../src/emulator/index.js';
import { TEST_KEY } from './emulator.js';

/** What one CLI run printed and returned. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of `cli`: extra environment, working directory, a TTY stdout. */
export interface CliOptions {
  env?: Record<string, string>;
  cwd?: string;
  tty?: boolean;
}

/** Runs `edgesync <argv>`; the environment holds only what `options.env` gives. */
export async function cli(argv: readonly string[], options: CliOptions = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (s: string) => (stdout += s), isTTY: options.tty === true },
    stderr: { write: (s: string) => (stderr += s) },
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    signal: new AbortController().signal,
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

/** Runs `edgesync <argv> --base-url <emulator>` with the emulator's key in EDGESYNC_ACCESS_KEY. */
export function cliAgainst(
  emu: Emulator,
  argv: readonly string[],
  options: CliOptions & { key?: string } = {},
): Promise<CliRun> {
  return cli([...argv, '--base-url', emu.url], {
    ...options,
    env: { EDGESYNC_ACCESS_KEY: options.key ?? TEST_KEY, ...options.env },
  });
}
