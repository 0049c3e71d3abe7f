/**
 * `edgesync run` as a real process (`node dist/src/main.js run …`; build first): its JSON log
 * lines parsed, its exit awaited. `useSpawnedDaemons()` checks the build is there and SIGKILLs
 * whatever a test left running.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll } from 'vitest';
import { daemonArgs, type LogLine } from './daemon.js';
import { TEST_KEY } from './emulator.js';

/** The repository's root (the spawned daemon's working directory). */
export const REPO = resolve(import.meta.dirname, '../..');
/** The built binary. */
export const MAIN = join(REPO, 'dist/src/main.js');

/** Fails at once, with the fix, when dist/ is not built (for a beforeAll). */
export function requireBuild(): void {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first (npm test does)`);
}

/** What one `edgesync` command run as its own process printed, and its exit code. */
export interface BinaryRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr as they arrived, interleaved (what a terminal shows). */
  output: string;
}

/**
 * Runs `node dist/src/main.js <args>` to its end, from the repository's root, with only PATH and
 * `env` in its environment (a test adds HOME, NO_COLOR, keys as it needs).
 */
export function runBinary(args: readonly string[], env: Record<string, string> = {}): Promise<BinaryRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], {
      cwd: REPO,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const run: BinaryRun = { code: null, stdout: '', stderr: '', output: '' };
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      run.stdout += chunk;
      run.output += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      run.stderr += chunk;
      run.output += chunk;
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ ...run, code }));
  });
}

const children: ChildProcess[] = [];

/** A spawned daemon. */
export interface Spawned {
  child: ChildProcess;
  lines(): LogLine[];
  events(event: string): LogLine[];
  output(): string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Spawns `edgesync run <args>` with only PATH, HOME and `env` in its environment. With
 * `cgroup` (a cgroup v1 memory directory), a shell joins it and then becomes node, so the
 * daemon starts inside that memory limit and its pid is the child's.
 */
export function spawnRun(
  args: readonly string[],
  env: Record<string, string>,
  options: { readonly cgroup?: string } = {},
): Spawned {
  const node = [process.execPath, MAIN, 'run', ...args];
  const [command, argv] =
    options.cgroup === undefined
      ? [process.execPath, node.slice(1)]
      : ['/bin/sh', ['-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', options.cgroup, ...node]];
  const child = spawn(command, argv, {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  );
  const lines = (): LogLine[] =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
  return {
    child,
    lines,
    events: (event) => lines().filter((line) => line.event === event),
    output: () => stdout + stderr,
    exit,
  };
}

/**
 * Spawns `edgesync run` with the common flags (daemonArgs) of `config`, its state in
 * `root/state`, against the emulator at `baseUrl` with its key, and `extra` flags.
 */
export function spawnDaemon(
  root: string,
  config: string,
  baseUrl: string,
  extra?: readonly string[],
): Spawned {
  return spawnRun(daemonArgs({ config, stateDir: join(root, 'state'), baseUrl, extra }), {
    EDGESYNC_ACCESS_KEY: TEST_KEY,
  });
}

/** SIGKILLs every spawned daemon still running. */
function killSpawned(): void {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
}

/**
 * Registers the hooks of a file that spawns daemons (call it at the file's top level): fail at
 * once, with the fix, when dist/ is not built; after each test, SIGKILL what it left running.
 */
export function useSpawnedDaemons(): void {
  beforeAll(requireBuild);
  afterEach(killSpawned);
}
