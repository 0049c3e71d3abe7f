/**
 * Push-to-applied latency (docs/design.md, Targets): one WAF rule changed among the
 * repository's resources, from the moment the change reaches the daemon to the moment its
 * `change.applied` audit line is out, p50 and p95 over 20 trials, two ways:
 *
 * - file edit: the rule's file is rewritten in the daemon's config directory (what a
 *   git-sync sidecar or an editor does); the clock starts just before the write, so the
 *   watcher's debounce is inside the figure;
 * - webhook: the change is committed and pushed to a bare remote (not timed, that is git's
 *   time), then a signed GitHub `push` hook is sent to a daemon running with `--git-pull`;
 *   the clock starts when the request is sent, so the `git pull --ff-only` is inside it.
 *
 * The daemon is the real `edgesync run` (the product build, `dist/src/main.js`) in a child
 * process, as deployed: the `NODE_OPTIONS` of the Dockerfile's image and nothing else. It talks
 * to the emulator in a worker thread of this process (in sync with the repository, so each
 * trial is one write). Each trial waits for the daemon to be idle again before the next one
 * starts. The peak RSS of each daemon over its life (start-up reconcile and its 20 triggered
 * runs) is the memory target's figure.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { signBody } from '../src/daemon/signatures.js';
import { emulatorSeed, type GeneratedResource, generateRepository } from '../test/helpers/generate.js';
import { git } from '../test/helpers/git.js';
import { startEmulatorHost } from './emulator-host.js';
import { type BenchSection, count, MB, procPeakRssBytes } from './section.js';

const ACCESS_KEY = 'bench-access-key';
const SECRET = 'bench-webhook-secret';
/** Trials per way (the section's; a test runs fewer). */
const TRIALS = 20;
const DEBOUNCE_MS = 100;
const ROOT = new URL('../../', import.meta.url);
const MAIN = fileURLToPath(new URL('dist/src/main.js', ROOT));

/** The image's NODE_OPTIONS, read from the Dockerfile's ENV: the daemon runs as deployed. */
function imageNodeOptions(): string {
  const dockerfile = readFileSync(new URL('Dockerfile', ROOT), 'utf8');
  const match = /NODE_OPTIONS="([^"]*)"/.exec(dockerfile);
  if (match === null) throw new Error('the Dockerfile sets no NODE_OPTIONS="…"');
  return match[1] as string;
}

type LogLine = Record<string, unknown>;

/** The latencies of one way, in ms. */
export interface LatencyFigures {
  readonly samplesMs: readonly number[];
  readonly p50Ms: number;
  readonly p95Ms: number;
}

/** What the section measured (bench/results.json keeps it). */
export interface PushToAppliedFigures {
  readonly resources: number;
  readonly trials: number;
  readonly debounceMs: number;
  readonly fileEdit: LatencyFigures;
  readonly webhook: LatencyFigures;
  /** The daemon's start: load, then a full reconcile of everything (no changes). */
  readonly startupMs: number;
  /** Peak RSS of each daemon process over its life (VmHWM), bytes; 0 where unknown. */
  readonly daemonPeakRssBytes: { readonly fileEdit: number; readonly webhook: number };
  /** The daemons' NODE_OPTIONS (the image's). */
  readonly nodeOptions: string;
}

/** Nearest-rank percentile. */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

function figures(samplesMs: readonly number[]): LatencyFigures {
  return { samplesMs, p50Ms: percentile(samplesMs, 50), p95Ms: percentile(samplesMs, 95) };
}

/** The rule's file with its ruleDescription changed: one desired change of one resource. */
function changeRule(dir: string, rule: GeneratedResource, trial: string): void {
  const path = join(dir, rule.file);
  const text = readFileSync(path, 'utf8');
  const doc = text.indexOf(`  name: ${rule.name}\n`);
  const field = text.indexOf('  ruleDescription: ', doc);
  const end = text.indexOf('\n', field);
  if (doc < 0 || field < 0) throw new Error(`no ruleDescription for ${rule.name} in ${rule.file}`);
  writeFileSync(path, `${text.slice(0, end)} (${trial})${text.slice(end)}`);
}

/** `edgesync run` in a child process, with its JSON log lines timestamped as they arrive. */
interface DaemonProcess {
  readonly url: string;
  /** Resolves with the arrival time of the next line matching `match` (register before acting). */
  next(match: (line: LogLine) => boolean, timeoutMs?: number): Promise<number>;
  /** Resolves once /status says Ready twice, a debounce apart (a skipped follow-up included). */
  idle(): Promise<void>;
  /** Resolves when the start-up reconcile's `reconcile.finished` line arrives. */
  readonly startupFinished: Promise<number>;
  /** The child's peak RSS so far (VmHWM), bytes; 0 where /proc cannot say. */
  peakRssBytes(): number;
  /** SIGTERM, then waits for the exit; a no-op once the child has exited. */
  stop(): Promise<void>;
}

async function startDaemon(
  configDir: string,
  stateDir: string,
  baseUrl: string,
  extra: string[],
): Promise<DaemonProcess> {
  const secretFile = join(stateDir, '..', `secret-${Math.random().toString(36).slice(2)}`);
  writeFileSync(secretFile, `${SECRET}\n`);
  const child: ChildProcess = spawn(
    process.execPath,
    [
      MAIN,
      'run',
      '--config',
      configDir,
      '--base-url',
      baseUrl,
      '--state-dir',
      stateDir,
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
      ...extra,
    ],
    {
      env: { ...process.env, EDGESYNC_ACCESS_KEY: ACCESS_KEY, NODE_OPTIONS: imageNodeOptions() },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const waiters = new Set<{ match(line: LogLine): boolean; resolve(at: number): void }>();
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (text) => {
    const at = performance.now();
    let line: LogLine;
    try {
      line = JSON.parse(text) as LogLine;
    } catch {
      return;
    }
    for (const waiter of waiters) {
      if (waiter.match(line)) {
        waiters.delete(waiter);
        waiter.resolve(at);
      }
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const next = (match: (line: LogLine) => boolean, timeoutMs = 120_000): Promise<number> =>
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
    const deadline = performance.now() + 120_000;
    let last: string | undefined;
    while (performance.now() < deadline) {
      const reply = await fetch(`${url}/status`);
      const doc = (await reply.json()) as { status?: string };
      if (doc.status === 'Ready') return;
      last = doc.status;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`the daemon is still ${last} after 120 s: ${stderr.slice(-500)}`);
  };
  return {
    url,
    next,
    startupFinished,
    async idle() {
      await ready();
      await new Promise((resolve) => setTimeout(resolve, DEBOUNCE_MS + 50));
      await ready();
    },
    peakRssBytes: () => (child.pid === undefined ? 0 : (procPeakRssBytes(child.pid) ?? 0)),
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A signed GitHub push hook for `main`, built before the clock starts. */
function pushHook(sha: string): RequestInit {
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
async function sendHook(url: string, hook: RequestInit): Promise<number> {
  const reply = await fetch(`${url}/hooks/github`, hook);
  await reply.arrayBuffer();
  return reply.status;
}

/** Measures both ways against one emulator in sync with a generated repository of `resources`. */
export async function runLatencyBench(
  resources: number,
  progress: (line: string) => void,
  trials = TRIALS,
): Promise<PushToAppliedFigures> {
  const root = mkdtempSync(join(tmpdir(), 'edgesync-bench-latency-'));
  const host = startEmulatorHost();
  // Every daemon started, so that a failed trial does not leave one running.
  const daemons: DaemonProcess[] = [];
  const launch = async (configDir: string, stateDir: string, baseUrl: string, extra: string[]) => {
    const daemon = await startDaemon(configDir, stateDir, baseUrl, extra);
    daemons.push(daemon);
    return daemon;
  };
  try {
    const repoDir = join(root, 'repo');
    mkdirSync(repoDir);
    const repo = generateRepository(repoDir, { resources, reportOnlyShare: 0 });
    const emulator = await host.start({
      accessKey: ACCESS_KEY,
      seed: emulatorSeed(repo).seed,
      journal: false,
    });
    const rules = repo.resources.filter((r) => r.kind === 'WafCustomRule');
    // Trials spread over the zones and files, a different rule each time.
    const ruleFor = (trial: number): GeneratedResource =>
      rules[(trial * 7919) % rules.length] as GeneratedResource;
    const applied = (rule: GeneratedResource) => (line: LogLine) =>
      line.event === 'change.applied' && line.subject === `WafCustomRule/${rule.name}`;

    // File edits, in a plain directory.
    progress(`latency: file edits, ${count(resources)} resources`);
    const bootAt = performance.now();
    const fileDaemon = await launch(repoDir, join(root, 'state-file'), emulator.url, []);
    await fileDaemon.startupFinished;
    const startupMs = performance.now() - bootAt;
    await fileDaemon.idle();
    const fileSamples: number[] = [];
    for (let trial = 0; trial < trials; trial += 1) {
      const rule = ruleFor(trial);
      const done = fileDaemon.next(applied(rule));
      const sentAt = performance.now();
      changeRule(repoDir, rule, `file trial ${trial}`);
      fileSamples.push((await done) - sentAt);
      await fileDaemon.idle();
    }
    const fileRss = fileDaemon.peakRssBytes();
    await fileDaemon.stop();

    // Webhooks: the repository becomes a remote; the daemon reads a clone and pulls.
    progress('latency: webhooks with --git-pull');
    git(repoDir, 'init', '--quiet', '-b', 'main');
    git(repoDir, 'add', '.');
    git(repoDir, 'commit', '--quiet', '-m', 'desired state');
    git(root, 'clone', '--quiet', '--bare', 'repo', 'remote.git');
    git(repoDir, 'remote', 'add', 'origin', join(root, 'remote.git'));
    git(root, 'clone', '--quiet', 'remote.git', 'config');
    const hookDaemon = await launch(join(root, 'config'), join(root, 'state-hook'), emulator.url, [
      '--git-pull',
    ]);
    await hookDaemon.startupFinished;
    await hookDaemon.idle();
    const hookSamples: number[] = [];
    for (let trial = 0; trial < trials; trial += 1) {
      const rule = ruleFor(trials + trial);
      changeRule(repoDir, rule, `webhook trial ${trial}`);
      git(repoDir, 'commit', '--quiet', '-am', `trial ${trial}`);
      git(repoDir, 'push', '--quiet', 'origin', 'main');
      const hook = pushHook(git(repoDir, 'rev-parse', 'HEAD'));
      const done = hookDaemon.next(applied(rule));
      const sentAt = performance.now();
      const status = await sendHook(hookDaemon.url, hook);
      if (status !== 202) throw new Error(`the push hook was answered ${status}`);
      hookSamples.push((await done) - sentAt);
      await hookDaemon.idle();
    }
    const hookRss = hookDaemon.peakRssBytes();
    await hookDaemon.stop();
    await emulator.stop();
    return {
      resources: repo.resources.length,
      trials,
      debounceMs: DEBOUNCE_MS,
      fileEdit: figures(fileSamples),
      webhook: figures(hookSamples),
      startupMs,
      daemonPeakRssBytes: { fileEdit: fileRss, webhook: hookRss },
      nodeOptions: imageNodeOptions(),
    };
  } finally {
    await Promise.all(daemons.map((daemon) => daemon.stop()));
    await host.close();
    rmSync(root, { recursive: true, force: true });
  }
}

const ms = (value: number): string => `${value.toFixed(0)} ms`;

/** Push-to-applied latency and the daemon's peak RSS, as deployed. */
export const latencySection: BenchSection = {
  name: 'latency',
  async run(context) {
    const f = await runLatencyBench(context.size, context.progress);
    const n = count(f.resources);
    const row = (way: string, l: LatencyFigures) => ({
      figure: `push-to-applied, one rule changed among ${n}, by ${way}: p50 (p95), ${f.trials} trials`,
      target: 'p50 ≤ 300 ms',
      measured: `${ms(l.p50Ms)} (${ms(l.p95Ms)})`,
      pass: l.p50Ms <= 300,
    });
    const rss = f.daemonPeakRssBytes;
    const peak = Math.max(rss.fileEdit, rss.webhook);
    return {
      figures: [
        row(`file edit (debounce ${f.debounceMs} ms included)`, f.fileEdit),
        row('GitHub webhook (git pull --ff-only included)', f.webhook),
        {
          figure: `peak RSS of the daemon managing ${n} resources over its life (cold start, ${f.trials} triggered runs), NODE_OPTIONS="${f.nodeOptions}" (the image's)`,
          target: '≤ 256 MB',
          measured: `${(peak / MB).toFixed(0)} MB`,
          pass: peak > 0 && peak <= 256 * MB,
        },
      ],
      details: [
        `latency: ${n} resources, daemon start (load + full reconcile) ${ms(f.startupMs)}`,
        `  file edit samples (ms): ${f.fileEdit.samplesMs.map((s) => s.toFixed(0)).join(' ')}`,
        `  webhook samples (ms): ${f.webhook.samplesMs.map((s) => s.toFixed(0)).join(' ')}`,
        `  daemon peak RSS over its life: file-edit daemon ${(rss.fileEdit / MB).toFixed(0)} MB, webhook daemon ${(rss.webhook / MB).toFixed(0)} MB (Node ${process.version}, NODE_OPTIONS="${f.nodeOptions}")`,
      ],
      data: f,
    };
  },
};
