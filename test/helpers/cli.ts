/** Runs the CLI in-process and captures what it prints. */
import { type CliIo, runCli } from '../../src/cli/program.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `edgesync <argv>` in-process with the given environment (nothing from process.env). */
export async function cli(
  argv: readonly string[],
  env: Record<string, string> = {},
  cwd = process.cwd(),
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env,
    cwd,
    signal: new AbortController().signal,
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}
