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
 * runs) is shown as information; the memory targets are measured under a memory limit by the
 * scale section (`scale.ts`).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { emulatorSeed, type GeneratedResource, generateRepository } from '../test/helpers/generate.js';
import { git } from '../test/helpers/git.js';
import {
  ACCESS_KEY,
  changeRule,
  type DaemonProcess,
  DEBOUNCE_MS,
  imageNodeOptions,
  type LogLine,
  pushHook,
  sendHook,
  startDaemon,
} from './daemon-process.js';
import { startEmulatorHost } from './emulator-host.js';
import { type BenchSection, count, MB } from './section.js';

/** Trials per way (the section's; a test runs fewer). */
const TRIALS = 20;

/** The latencies of one way, in ms. */
interface LatencyFigures {
  readonly samplesMs: readonly number[];
  readonly p50Ms: number;
  readonly p95Ms: number;
}

/** What the section measured (bench/results.json keeps it). */
interface PushToAppliedFigures {
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

/** Measures both ways against one emulator in sync with a generated repository of `resources`. */
async function runLatencyBench(
  resources: number,
  progress: (line: string) => void,
  trials = TRIALS,
): Promise<PushToAppliedFigures> {
  const root = mkdtempSync(join(tmpdir(), 'edgesync-bench-latency-'));
  const host = startEmulatorHost();
  // Every daemon started, so that a failed trial does not leave one running.
  const daemons: DaemonProcess[] = [];
  const launch = async (configDir: string, stateDir: string, baseUrl: string, extra: string[]) => {
    const daemon = await startDaemon(configDir, stateDir, baseUrl, { extra });
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
          figure: `peak RSS of the daemon managing ${n} resources over its life (cold start, ${f.trials} triggered runs), NODE_OPTIONS="${f.nodeOptions}" (the image's), no memory limit`,
          target: 'information (limits: the scale section)',
          measured: `${(peak / MB).toFixed(0)} MB`,
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
