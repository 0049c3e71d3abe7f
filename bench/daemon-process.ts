/**
 * `edgesync run` as the benchmarks start it: the product build (`dist/src/main.js`) in a child
 * process, as deployed (the `NODE_OPTIONS` of the Dockerfile's image and nothing else), its JSON
 * log lines timestamped as they arrive. The latency and scale sections share it; the scale
 * section also starts it inside a memory cgroup (`cgroup`) and with a heap probe (`nodeArgs`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { signBody } from '../src/daemon/signatures.js';
import type { GeneratedResource } from '../test/helpers/generate.js';
import { imageNodeOptions } from '../test/helpers/image.js';
import { procPeakRssBytes } from './section.js';

export const ACCESS_KEY = 'bench-access-key';
const SECRET = 'bench-webhook-secret';
export const DEBOUNCE_MS = 100;
const ROOT = new URL('../../', import.meta.url);
export const MAIN = fileURLToPath(new URL('dist/src/main.js', ROOT));

export { imageNodeOptions };

export type LogLine = Record<string, unknown>;

/** How the child ended. */
export interface DaemonExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** `edgesync run` in a child process. */
export interface DaemonProcess {
  readonly url: string;
  readonly pid: number;
  /** Resolves with the arrival time of the next line matching `match` (register before acting). */
  next(match: (line: LogLine) => boolean, timeoutMs?: number): Promise<number>;
  /** Resolves once /status says Ready twice, a debounce apart (a skipped follow-up included). */
  idle(): Promise<void>;
  /** Resolves when the start-up reconcile's `reconcile.finished` line arrives. */
  readonly startupFinished: Promise<number>;
  /** Resolves when the child exits. */
  readonly exited: Promise<DaemonExit>;
  /** Every parsed log line so far. */
  lines(): readonly LogLine[];
  /** The child's stderr so far. */
  stderr(): string;
  /** The child's peak RSS so far (VmHWM), bytes; 0 where /proc cannot say. */
  peakRssBytes(): number;
  /** SIGTERM, then waits for the exit; a no-op once the child has exited. */
  stop(): Promise<void>;
  /** Sends `signal` (the failover section's SIGKILL, SIGSTOP, SIGCONT). */
  kill(signal: NodeJS.Signals): void;
}

/** Where and how the daemon runs beyond its flags. */
export interface DaemonOptions {
  /** Flags after `run` beyond the common ones (`--git-pull`). */
  readonly extra?: readonly string[];
  /** Node flags before the script (the scale section's heap probe). */
  readonly nodeArgs?: readonly string[];
  /** A cgroup v1 memory directory the process joins before Node starts (its `cgroup.procs`). */
  readonly cgroup?: string;
  /** State store flags instead of `--state-dir stateDir` (the failover section's `--state-url`). */
  readonly state?: readonly string[];
  /** Variables added to the child's environment (PGPASSWORD). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * How long to wait for what a run logs and for Ready, ms (default 600 s): the scale
   * section's biggest repositories take longer than that on a busy host.
   */
  readonly waitMs?: number;
}

export async function startDaemon(
  configDir: string,
  stateDir: string,
  baseUrl: string,
  options: DaemonOptions = {},
): Promise<DaemonProcess> {
  const secretFile = join(stateDir, '..', `secret-${Math.random().toString(36).slice(2)}`);
  writeFileSync(secretFile, `${SECRET}\n`);
  const nodeArgs = [
    ...(options.nodeArgs ?? []),
    MAIN,
    'run',
    '--config',
    configDir,
    '--base-url',
    baseUrl,
    ...(options.state ?? ['--state-dir', stateDir]),
    '--listen',
    '127.0.0.1:0',
    '--webhook-secret-file',
    secretFile,
    '--schedule',
    '0 0 1 1 *',
    '--debounce-ms',
    String(DEBOUNCE_MS),
    '--log-format',
    'json',
    '--log-level',
    'info',
    ...(options.extra ?? []),
  ];
  // In a cgroup: a shell joins it and then becomes node (exec), so Node starts inside the
  // limit and reads it (V8 sizes its heap from it), and the pid is the daemon's.
  const [command, args] =
    options.cgroup === undefined
      ? [process.execPath, nodeArgs]
      : [
          '/bin/sh',
          ['-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', options.cgroup, process.execPath, ...nodeArgs],
        ];
  // The image's heap share of the cgroup's limit, as its Node would compute it (image.ts).
  const limit =
    options.cgroup === undefined
      ? undefined
      : Number(readFileSync(join(options.cgroup, 'memory.limit_in_bytes'), 'utf8').trim());
  const child: ChildProcess = spawn(command, args, {
    env: {
      ...process.env,
      ...options.env,
      EDGESYNC_ACCESS_KEY: ACCESS_KEY,
      NODE_OPTIONS: imageNodeOptions(limit),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    if (stderr.length > 1_000_000) stderr = stderr.slice(-100_000);
  });
  const lines: LogLine[] = [];
  const waiters = new Set<{ match(line: LogLine): boolean; resolve(at: number): void }>();
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (text) => {
    const at = performance.now();
    let line: LogLine;
    try {
      line = JSON.parse(text) as LogLine;
    } catch {
      return;
    }
    // Only the lines a section reads back; a change line per resource would pile up.
    if (line.event === 'reconcile.finished' || line.level === 50 || line.level === 60) lines.push(line);
    for (const waiter of waiters) {
      if (waiter.match(line)) {
        waiters.delete(waiter);
        waiter.resolve(at);
      }
    }
  });
  const exited = new Promise<DaemonExit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const waitMs = options.waitMs ?? 600_000;
  const next = (match: (line: LogLine) => boolean, timeoutMs = waitMs): Promise<number> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(
          new Error(
            `the daemon did not log what the benchmark waits for in ${timeoutMs} ms: ${stderr.slice(-500)}`,
          ),
        );
      }, timeoutMs);
      const waiter = {
        match,
        resolve: (at: number) => {
          clearTimeout(timer);
          resolve(at);
        },
      };
      waiters.add(waiter);
      void exited.then(() => {
        if (waiters.delete(waiter)) {
          clearTimeout(timer);
          reject(new Error(`the daemon exited: ${stderr.slice(-500)}`));
        }
      });
    });
  let url = '';
  // Registered before the start line is awaited: both lines may arrive in one chunk.
  const startupFinished = next((line) => line.event === 'reconcile.finished');
  const started = next((line) => {
    if (line.event !== 'daemon.started') return false;
    url = String(line.listen);
    return true;
  });
  try {
    await started;
  } catch (err) {
    startupFinished.catch(() => undefined);
    // The caller gets no handle to stop it with, so it is stopped here.
    child.kill('SIGTERM');
    await exited;
    throw err;
  }
  const ready = async (): Promise<void> => {
    const deadline = performance.now() + waitMs;
    let last: string | undefined;
    while (performance.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`the daemon exited: ${stderr.slice(-500)}`);
      }
      const reply = await fetch(`${url}/status`);
      const doc = (await reply.json()) as { status?: string };
      if (doc.status === 'Ready') return;
      last = doc.status;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`the daemon is still ${last} after ${waitMs / 1000} s: ${stderr.slice(-500)}`);
  };
  return {
    url,
    pid: child.pid as number,
    next,
    startupFinished,
    exited,
    lines: () => lines,
    stderr: () => stderr,
    async idle() {
      await ready();
      await new Promise((resolve) => setTimeout(resolve, DEBOUNCE_MS + 50));
      await ready();
    },
    peakRssBytes: () => (child.pid === undefined ? 0 : (procPeakRssBytes(child.pid) ?? 0)),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
    kill(signal) {
      child.kill(signal);
    },
  };
}

/** The rule's file with its ruleDescription changed: one desired change of one resource. */
export function changeRule(dir: string, rule: GeneratedResource, trial: string): void {
  const path = join(dir, rule.file);
  const text = readFileSync(path, 'utf8');
  const doc = text.indexOf(`  name: ${rule.name}\n`);
  const field = text.indexOf('  ruleDescription: ', doc);
  const end = text.indexOf('\n', field);
  if (doc < 0 || field < 0) throw new Error(`no ruleDescription for ${rule.name} in ${rule.file}`);
  writeFileSync(path, `${text.slice(0, end)} (${trial})${text.slice(end)}`);
}

/** A signed GitHub push hook for `main`, built before the clock starts. */
export function pushHook(sha: string): RequestInit {
  const body = JSON.stringify({
    ref: 'refs/heads/main',
    after: sha,
    repository: { full_name: 'bench/edge' },
  });
  return {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'push',
      'x-hub-signature-256': signBody(SECRET, body),
    },
    body,
  };
}

/** Sends a hook built by `pushHook`; resolves with the status once the reply is read. */
export async function sendHook(url: string, hook: RequestInit): Promise<number> {
  const reply = await fetch(`${url}/hooks/github`, hook);
  await reply.arrayBuffer();
  return reply.status;
}
