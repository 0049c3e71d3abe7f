/**
 * What a command may touch of the outside world. Commands never use `process` directly, so
 * the whole CLI runs in-process in tests: `runCli(argv, io)` returns the exit code.
 */
interface OutputStream {
  write(chunk: string): unknown;
  /** True when the stream is a terminal (colour, pretty logs). */
  isTTY?: boolean;
}

export interface CliIo {
  stdout: OutputStream;
  stderr: OutputStream;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /**
   * Aborted on SIGTERM/SIGINT/SIGHUP (process; the reason is the signal's name) or by a test,
   * for the long-running commands.
   */
  signal: AbortSignal;
}

/** Resolves once `signal` is aborted (at once if it already is): the long-running commands' main wait. */
export function waitForAbort(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((done) => signal.addEventListener('abort', () => done(), { once: true }));
}

/**
 * One error line of the CLI: `edgesync: CODE: message`. Every error a user sees names its
 * code, so it can be looked up in docs/errors.md.
 */
export function errorLine(code: string, message: string, program = 'edgesync'): string {
  return `${program}: ${code}: ${message}\n`;
}
