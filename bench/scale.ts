/**
 * Growth and memory (docs/performance.md, Method: the scale section): generated repositories of 1,000, 10,000,
 * 30,000 and 100,000 resources (`--scale-sizes` picks others), each measured two ways.
 *
 * - Cold validate as whole processes: `edgesync validate` (the product build, the image's
 *   NODE_OPTIONS) against a `node` process that only reads and parses the same files with
 *   `yaml`, back to back in rounds; per size the median wall time of each and of their ratio.
 * - The daemon as deployed, in a memory cgroup: `edgesync run` in a child process with the
 *   image's NODE_OPTIONS, started inside a cgroup v1 memory limit (the limit a pod would set,
 *   `LIMITS_MIB`), against an emulator in a worker thread of this process that is in sync
 *   with the files. Cold start, then 20 triggered runs alternating a signed push hook (a full
 *   reconcile with nothing to change) and a file edit (one rule changed). Recorded: every
 *   run's result and duration, the process's peak RSS (VmHWM, sampled while it runs), how it
 *   ended if it did not survive (the cgroup's OOM-kill count and failcnt, the exit code or
 *   signal, V8's "heap out of memory" on stderr), and the heap it retains after the runs.
 *
 * The retained heap is read by a probe loaded only into these daemons (`heap-probe.ts`:
 * `--expose-gc`, a collection on SIGUSR2 once every other figure is taken); nothing in the
 * product collects or changes a flag. Where the cgroup cannot be created (not root, cgroup
 * v2, a container), the daemon half is skipped with a message saying why.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  emulatorSeed,
  type GeneratedRepository,
  type GeneratedResource,
  generateRepository,
} from '../test/helpers/generate.js';
import { dockerfileNodeOptions } from '../test/helpers/image.js';
import {
  changeRule,
  type DaemonExit,
  type DaemonProcess,
  imageNodeOptions,
  MAIN,
  pushHook,
  sendHook,
  startDaemon,
} from './daemon-process.js';
import { startEmulatorHost } from './emulator-host.js';
import { type BenchSection, count, type Figure, MB, median, procPeakRssBytes } from './section.js';

/** The sizes of one scale run, smallest first (the first is the per-resource baseline). */
export const SCALE_SIZES = [1_000, 10_000, 30_000, 100_000] as const;
/** Triggered runs after the cold start. */
const TRIGGERED_RUNS = 20;
/** Per-resource time of a bigger size ÷ that of the smallest: the growth target. */
const GROWTH_TARGET = 1.3;
/** Whole-process cold validate ÷ whole-process `yaml` parse, at 10,000: the target. */
const VALIDATE_TARGET = 1.5;
/** Retained heap per resource after a full run: the target, bytes. */
const RETAINED_TARGET = 2 * 1024;
/** From this size on, the whole retained heap per resource is judged too, not only its growth. */
const WHOLE_HEAP_JUDGED_FROM = 100_000;
const CGROUP_ROOT = '/sys/fs/cgroup/memory';
const FLOOR_SCRIPT = fileURLToPath(new URL('./yaml-parse-process.js', import.meta.url));
const HEAP_PROBE = pathToFileURL(fileURLToPath(new URL('./heap-probe.js', import.meta.url))).href;
/**
 * How long to wait for one run of the daemon, ms: 20 ms per resource, at least 600 s (a
 * start-up of 100,000 resources took 148 s on a host with a load average near 10).
 */
const waitMs = (resources: number): number => Math.max(600_000, resources * 20);

/**
 * The memory limit the daemon runs under, per size (MiB): the targets of docs/performance.md
 * at 10,000 (192 MiB) and 100,000 (512 MiB); 1,000 under the smallest, 30,000 under the
 * reliability test's 256 MiB. Other sizes get the limit of the next size up.
 */
function memoryLimitMib(resources: number): number {
  if (resources <= 10_000) return 192;
  if (resources <= 30_000) return 256;
  return 512;
}

/** Whole-process cold validate at one size (ms, medians over the rounds). */
interface ValidateFigures {
  readonly rounds: number;
  readonly validateMs: number;
  readonly floorMs: number;
  /** Median of the rounds' validate ÷ floor, wall time: the target. */
  readonly ratio: number;
  readonly validateCpuMs: number;
  readonly floorCpuMs: number;
  /** The same ratio of CPU times, which the other jobs of a shared host disturb much less. */
  readonly cpuRatio: number;
}

/** How the daemon in its cgroup did at one size. */
interface DaemonFigures {
  readonly limitMib: number;
  /** `survived`, or how it ended: `kernel OOM killer`, `V8 heap out of memory`, `exited …`. */
  readonly outcome: string;
  readonly exit?: DaemonExit;
  /** Runs that finished with result `success` (the cold start counts as one). */
  readonly succeededRuns: number;
  readonly expectedRuns: number;
  readonly startupMs: number;
  /** Median `durationMs` of the full runs with nothing to change (push hooks). */
  readonly noChangeReconcileMs: number;
  /** Median `durationMs` of the runs after a one-rule file edit. */
  readonly oneChangeRunMs: number;
  readonly peakRssBytes: number;
  /**
   * The cgroup's peak of anonymous memory (`rss` of memory.stat, sampled while it runs): what
   * the kernel cannot reclaim, so what decides whether the process fits its limit.
   */
  readonly cgroupPeakAnonBytes: number;
  /** The node options it ran with (the image's, its heap share computed for this limit). */
  readonly nodeOptions: string;
  /** The cgroup's own view: its peak usage (page cache included), failcnt, OOM kills. */
  readonly cgroupMaxUsageBytes: number;
  readonly cgroupFailcnt: number;
  readonly cgroupOomKills: number;
  /** Heap in use after a collection, once the runs are over; undefined if it did not survive. */
  readonly retainedHeapBytes?: number;
}

/** One size's figures. */
interface ScaleSizeFigures {
  readonly resources: number;
  readonly files: number;
  readonly yamlBytes: number;
  readonly validate: ValidateFigures;
  /** Absent when the cgroup could not be created (`skipped` says why). */
  readonly daemon?: DaemonFigures;
}

/** What the section measured. */
interface ScaleFigures {
  readonly nodeOptions: string;
  readonly sizes: readonly ScaleSizeFigures[];
  /** Why the daemon half was skipped, when it was. */
  readonly skipped?: string;
}

/** Creates a cgroup v1 memory group with `limitMib`; undefined and a reason where it cannot. */
function createCgroup(name: string, limitMib: number): { path: string } | { reason: string } {
  const path = join(CGROUP_ROOT, name);
  try {
    if (!existsSync(join(CGROUP_ROOT, 'memory.limit_in_bytes'))) {
      return { reason: `no cgroup v1 memory controller at ${CGROUP_ROOT}` };
    }
    mkdirSync(path);
    writeFileSync(join(path, 'memory.limit_in_bytes'), String(limitMib * MB));
    // No swap to hide in: the limit is all the memory the process has.
    if (existsSync(join(path, 'memory.swappiness'))) writeFileSync(join(path, 'memory.swappiness'), '0');
    return { path };
  } catch (err) {
    return {
      reason: `cannot create the memory cgroup ${path} (${(err as Error).message}); run as root on cgroup v1`,
    };
  }
}

function readCgroupNumber(path: string, file: string): number {
  try {
    return Number(readFileSync(join(path, file), 'utf8').trim());
  } catch {
    return 0;
  }
}

/** The cgroup's anonymous memory now (memory.stat `rss`), bytes; 0 where it cannot say. */
function cgroupAnonBytes(path: string): number {
  try {
    const match = /^rss (\d+)$/m.exec(readFileSync(join(path, 'memory.stat'), 'utf8'));
    return match === null ? 0 : Number(match[1]);
  } catch {
    return 0;
  }
}

function oomKills(path: string): number {
  try {
    const match = /^oom_kill (\d+)$/m.exec(readFileSync(join(path, 'memory.oom_control'), 'utf8'));
    return match === null ? 0 : Number(match[1]);
  } catch {
    return 0;
  }
}

/** Removes the cgroup once its processes are gone (the kernel refuses earlier; a few tries). */
async function removeCgroup(path: string): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    try {
      rmdirSync(path);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** A whole process's wall time and CPU time (user + system, its children included), ms. */
interface ProcessTimes {
  readonly wallMs: number;
  readonly cpuMs: number;
}

/** `1m2.345s` (bash's `times`) in ms. */
function bashSeconds(text: string): number {
  const match = /^(\d+)m([\d.]+)s$/.exec(text);
  return match === null ? Number.NaN : (Number(match[1]) * 60 + Number(match[2])) * 1000;
}

/**
 * Runs `node args` to its end under bash, whose `times` then gives the CPU time it used: on a
 * shared host the wall time carries the other jobs' load, the CPU time much less of it.
 * Throws on a non-zero exit.
 */
function timeProcess(args: readonly string[], env: NodeJS.ProcessEnv): Promise<ProcessTimes> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      '/bin/bash',
      ['-c', '"$@" >/dev/null || exit $?; times >&2', 'time', process.execPath, ...args],
      {
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      const wallMs = performance.now() - started;
      // `times`: the shell's own user and system time, then its children's.
      const children = stderr.trim().split('\n').at(-1)?.split(/\s+/) ?? [];
      const cpuMs = bashSeconds(children[0] ?? '') + bashSeconds(children[1] ?? '');
      if (code === 0) resolve({ wallMs, cpuMs });
      else reject(new Error(`${args.join(' ')} ended with ${code ?? signal}: ${stderr.slice(-500)}`));
    });
  });
}

/** Cold validate of the repository in `dir` as whole processes, against the `yaml` floor. */
async function measureValidate(
  dir: string,
  listFile: string,
  rounds: number,
  warmUp: boolean,
): Promise<ValidateFigures> {
  // No memory limit here: the image's heap share of none is no cap (image.ts).
  const env = { ...process.env, NODE_OPTIONS: imageNodeOptions() };
  const floorArgs = [FLOOR_SCRIPT, dir, listFile];
  const validateArgs = [MAIN, 'validate', '--config', dir];
  // Warm-up: the file cache for both sides alike (the big repositories were just written, so
  // theirs is warm already, and a round there takes minutes).
  if (warmUp) {
    await timeProcess(floorArgs, env);
    await timeProcess(validateArgs, env);
  }
  const floor: ProcessTimes[] = [];
  const validate: ProcessTimes[] = [];
  for (let round = 0; round < rounds; round += 1) {
    floor.push(await timeProcess(floorArgs, env));
    validate.push(await timeProcess(validateArgs, env));
  }
  const ratios = (of: (t: ProcessTimes) => number) =>
    median(validate.map((times, round) => of(times) / of(floor[round] as ProcessTimes)));
  return {
    rounds,
    validateMs: median(validate.map((t) => t.wallMs)),
    floorMs: median(floor.map((t) => t.wallMs)),
    ratio: ratios((t) => t.wallMs),
    validateCpuMs: median(validate.map((t) => t.cpuMs)),
    floorCpuMs: median(floor.map((t) => t.cpuMs)),
    cpuRatio: ratios((t) => t.cpuMs),
  };
}

/** How a daemon that did not survive ended, from its exit and the cgroup's counters. */
function describeEnd(exit: DaemonExit, stderr: string, kills: number): string {
  if (kills > 0 && exit.signal === 'SIGKILL') return 'kernel OOM killer (SIGKILL)';
  if (/heap out of memory/i.test(stderr))
    return `V8 heap out of memory (${exit.signal ?? `exit ${exit.code}`})`;
  return `exited (${exit.signal ?? `exit ${exit.code}`})`;
}

/** The last `reconcile.finished` line's duration and result. */
function lastRun(daemon: DaemonProcess): { durationMs: number; ok: boolean } {
  const runs = daemon.lines().filter((line) => line.event === 'reconcile.finished');
  const last = runs[runs.length - 1];
  return { durationMs: Number(last?.durationMs ?? Number.NaN), ok: last?.result === 'success' };
}

/** The daemon at one size, cold start + TRIGGERED_RUNS runs, inside `cgroup`. */
async function measureDaemon(
  root: string,
  repo: GeneratedRepository,
  cgroup: string,
  limitMib: number,
  progress: (line: string) => void,
): Promise<DaemonFigures> {
  const host = startEmulatorHost();
  let daemon: DaemonProcess | undefined;
  let peak = 0;
  let peakAnon = 0;
  const sampler = setInterval(() => {
    if (daemon !== undefined) peak = Math.max(peak, procPeakRssBytes(daemon.pid) ?? 0);
    peakAnon = Math.max(peakAnon, cgroupAnonBytes(cgroup));
  }, 200);
  let succeeded = 0;
  let startupMs = Number.NaN;
  const noChange: number[] = [];
  const oneChange: number[] = [];
  let retained: number | undefined;
  let failure: unknown;
  try {
    const emulator = await host.start({
      accessKey: 'bench-access-key',
      seed: emulatorSeed(repo).seed,
      journal: false,
    });
    const { dir: repoDir, resources } = repo;
    const rules = resources.filter((r) => r.kind === 'WafCustomRule');
    const bootAt = performance.now();
    daemon = await startDaemon(repoDir, join(root, 'state'), emulator.url, {
      cgroup,
      nodeArgs: ['--expose-gc', '--import', HEAP_PROBE],
      waitMs: waitMs(resources.length),
    });
    const running = daemon;
    try {
      startupMs = (await running.startupFinished) - bootAt;
      if (lastRun(running).ok) succeeded += 1;
      await running.idle();
      for (let trial = 0; trial < TRIGGERED_RUNS; trial += 1) {
        const finished = running.next((line) => line.event === 'reconcile.finished');
        if (trial % 2 === 0) {
          const status = await sendHook(running.url, pushHook('0'.repeat(40)));
          if (status !== 202) throw new Error(`the push hook was answered ${status}`);
        } else {
          changeRule(repoDir, rules[(trial * 7919) % rules.length] as GeneratedResource, `scale ${trial}`);
        }
        await finished;
        const run = lastRun(running);
        if (run.ok) succeeded += 1;
        (trial % 2 === 0 ? noChange : oneChange).push(run.durationMs);
        await running.idle();
        progress(`scale: ${count(resources.length)} run ${trial + 1}/${TRIGGERED_RUNS} ${run.durationMs} ms`);
      }
      peak = Math.max(peak, running.peakRssBytes());
      process.kill(running.pid, 'SIGUSR2');
      const deadline = performance.now() + 60_000;
      while (retained === undefined && performance.now() < deadline) {
        const match = /\{"retainedHeapBytes":(\d+)\}/.exec(running.stderr());
        if (match !== null) retained = Number(match[1]);
        else await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } catch (err) {
      failure = err;
    }
    await emulator.stop();
  } finally {
    clearInterval(sampler);
    await daemon?.stop();
    await host.close();
  }
  const exit = daemon === undefined ? undefined : await daemon.exited;
  const kills = oomKills(cgroup);
  const survived = failure === undefined && retained !== undefined;
  const outcome = survived
    ? 'survived'
    : exit !== undefined && (exit.signal !== 'SIGTERM' || kills > 0)
      ? describeEnd(exit, daemon?.stderr() ?? '', kills)
      : `failed: ${String((failure as Error | undefined)?.message ?? failure).slice(0, 300)}`;
  return {
    limitMib,
    outcome,
    ...(exit === undefined ? {} : { exit }),
    succeededRuns: succeeded,
    expectedRuns: TRIGGERED_RUNS + 1,
    startupMs,
    noChangeReconcileMs: noChange.length === 0 ? Number.NaN : median(noChange),
    oneChangeRunMs: oneChange.length === 0 ? Number.NaN : median(oneChange),
    peakRssBytes: peak,
    cgroupPeakAnonBytes: peakAnon,
    nodeOptions: imageNodeOptions(limitMib * MB),
    cgroupMaxUsageBytes: readCgroupNumber(cgroup, 'memory.max_usage_in_bytes'),
    cgroupFailcnt: readCgroupNumber(cgroup, 'memory.failcnt'),
    cgroupOomKills: kills,
    ...(retained === undefined ? {} : { retainedHeapBytes: retained }),
  };
}

/** Measures every size in `sizes`, smallest first. */
async function runScaleBench(
  sizes: readonly number[],
  progress: (line: string) => void,
): Promise<ScaleFigures> {
  const figures: ScaleSizeFigures[] = [];
  let skipped: string | undefined;
  for (const size of [...sizes].sort((a, b) => a - b)) {
    const root = mkdtempSync(join(tmpdir(), 'edgesync-bench-scale-'));
    try {
      const repoDir = join(root, 'repo');
      mkdirSync(repoDir);
      progress(`scale: generating ${count(size)} resources`);
      const repo = generateRepository(repoDir, { resources: size, reportOnlyShare: 0 });
      const listFile = join(root, 'files.txt');
      writeFileSync(listFile, `${repo.yamlFiles.join('\n')}\n`);
      progress(`scale: cold validate, ${count(size)} resources, whole processes`);
      const rounds = size <= 10_000 ? 5 : size <= 30_000 ? 2 : 1;
      const validate = await measureValidate(repoDir, listFile, rounds, size <= 10_000);
      const limitMib = memoryLimitMib(size);
      const group = createCgroup(`edgesync-bench-scale-${process.pid}-${size}`, limitMib);
      let daemon: DaemonFigures | undefined;
      if ('reason' in group) {
        skipped = group.reason;
        progress(`scale: daemon in a memory cgroup skipped: ${group.reason}`);
      } else {
        progress(`scale: daemon, ${count(size)} resources, in ${limitMib} MiB`);
        try {
          daemon = await measureDaemon(root, repo, group.path, limitMib, progress);
        } finally {
          await removeCgroup(group.path);
        }
      }
      figures.push({
        resources: repo.resources.length,
        files: repo.yamlFiles.length,
        yamlBytes: repo.yamlBytes,
        validate,
        ...(daemon === undefined ? {} : { daemon }),
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
  return {
    nodeOptions: dockerfileNodeOptions(),
    sizes: figures,
    ...(skipped === undefined ? {} : { skipped }),
  };
}

const ms = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(0)} ms` : '—');
const mib = (bytes: number): string => `${(bytes / MB).toFixed(0)} MiB`;
const perResourceUs = (value: number, resources: number): string =>
  `${((value * 1000) / resources).toFixed(1)} µs`;

/** The table rows: memory per size, growth against the smallest size, the 10,000 ratio. */
function scaleRows(f: ScaleFigures): Figure[] {
  const rows: Figure[] = [];
  const base = f.sizes[0];
  for (const s of f.sizes) {
    const n = count(s.resources);
    const d = s.daemon;
    if (d !== undefined) {
      const ok = d.outcome === 'survived' && d.succeededRuns === d.expectedRuns;
      rows.push({
        figure: `daemon with ${n} resources in a ${d.limitMib} MiB cgroup: cold start + ${d.expectedRuns - 1} triggered runs, peak RSS`,
        target: `all runs succeed, alive`,
        measured: `${d.succeededRuns}/${d.expectedRuns} ok, ${d.outcome}, peak RSS ${mib(d.peakRssBytes)} (anonymous in the cgroup ${mib(d.cgroupPeakAnonBytes)})`,
        pass: ok,
      });
      if (d.retainedHeapBytes !== undefined) {
        // The target is what each resource adds, against the next smaller size measured: the
        // heap also holds about 28 MB that no resource adds (code, schemas, libraries), which
        // divided by 1,000 resources alone is 28 KB each. From 100,000 on, the size design.md
        // names, the whole heap per resource is judged too (the fixed part is a tenth of it
        // there); a smaller size measured alone has no slope and is shown, not judged.
        const per = d.retainedHeapBytes / s.resources;
        const smaller = f.sizes
          .slice(0, f.sizes.indexOf(s))
          .findLast((o) => o.daemon?.retainedHeapBytes !== undefined);
        const added =
          smaller?.daemon?.retainedHeapBytes === undefined
            ? undefined
            : {
                since: smaller.resources,
                perResource:
                  (d.retainedHeapBytes - smaller.daemon.retainedHeapBytes) /
                  (s.resources - smaller.resources),
              };
        const whole = `${mib(d.retainedHeapBytes)} in all, ${(per / 1024).toFixed(2)} KB per resource`;
        const judgesWhole = s.resources >= WHOLE_HEAP_JUDGED_FROM;
        const passes = [
          ...(added === undefined ? [] : [added.perResource <= RETAINED_TARGET]),
          ...(judgesWhole ? [per <= RETAINED_TARGET] : []),
        ];
        rows.push({
          figure: `retained heap after the runs, ${n} resources: what each resource adds${judgesWhole ? ', and the whole heap per resource' : ''}`,
          target: '≤ 2 KB',
          measured:
            added === undefined
              ? `— (no smaller size; ${whole})`
              : `${(added.perResource / 1024).toFixed(2)} KB per resource added since ${count(added.since)} (${whole})`,
          ...(passes.length === 0 ? {} : { pass: passes.every(Boolean) }),
        });
      }
    }
    if (base !== undefined && s !== base) {
      const growth = (value: number, baseValue: number): number =>
        value / s.resources / (baseValue / base.resources);
      const validateGrowth = growth(s.validate.validateMs, base.validate.validateMs);
      rows.push({
        figure: `cold validate (whole process) per resource, ${n} ÷ ${count(base.resources)}`,
        target: `≤ ${GROWTH_TARGET}`,
        measured: `${validateGrowth.toFixed(2)} (${perResourceUs(s.validate.validateMs, s.resources)} ÷ ${perResourceUs(base.validate.validateMs, base.resources)})`,
        pass: validateGrowth <= GROWTH_TARGET,
      });
      if (d !== undefined && base.daemon !== undefined) {
        const reconcileGrowth = growth(d.noChangeReconcileMs, base.daemon.noChangeReconcileMs);
        rows.push({
          figure: `no-change reconcile (daemon) per resource, ${n} ÷ ${count(base.resources)}`,
          target: `≤ ${GROWTH_TARGET}`,
          measured: Number.isFinite(reconcileGrowth)
            ? `${reconcileGrowth.toFixed(2)} (${perResourceUs(d.noChangeReconcileMs, s.resources)} ÷ ${perResourceUs(base.daemon.noChangeReconcileMs, base.resources)})`
            : '—',
          pass: reconcileGrowth <= GROWTH_TARGET,
        });
      }
    }
    if (s.resources === 10_000) {
      rows.push({
        figure: `cold validate of ${n} resources, whole \`edgesync validate\` process ÷ whole \`node\` process parsing with \`yaml\``,
        target: `≤ ${VALIDATE_TARGET.toFixed(2)}`,
        measured: `${s.validate.ratio.toFixed(2)} (medians ${ms(s.validate.validateMs)} ÷ ${ms(s.validate.floorMs)}; CPU time ${s.validate.cpuRatio.toFixed(2)})`,
        pass: s.validate.ratio <= VALIDATE_TARGET,
      });
    }
  }
  if (f.skipped !== undefined) {
    rows.push({
      figure: 'daemon in a memory cgroup (peak RSS, runs, retained heap)',
      target: 'measured',
      measured: `skipped: ${f.skipped}`,
    });
  }
  return rows;
}

/** One line per size: the figures behind the rows. */
function scaleDetails(f: ScaleFigures): string[] {
  const lines = [
    `scale: the image's NODE_OPTIONS="${f.nodeOptions}", Node ${process.version} (a Node without --max-old-space-size-percentage gets the size it computes: test/helpers/image.ts)`,
  ];
  for (const s of f.sizes) {
    const v = s.validate;
    lines.push(
      `  ${count(s.resources)} resources, ${s.files} files, ${(s.yamlBytes / 1e6).toFixed(1)} MB of YAML: validate ${ms(v.validateMs)}, yaml-only process ${ms(v.floorMs)}, ratio ${v.ratio.toFixed(2)}; CPU time ${ms(v.validateCpuMs)} ÷ ${ms(v.floorCpuMs)} = ${v.cpuRatio.toFixed(2)} (${v.rounds} rounds)`,
    );
    const d = s.daemon;
    if (d !== undefined) {
      lines.push(
        `    daemon in ${d.limitMib} MiB (NODE_OPTIONS="${d.nodeOptions}"): ${d.outcome}; runs ok ${d.succeededRuns}/${d.expectedRuns}; start-up ${ms(d.startupMs)}; no-change reconcile ${ms(d.noChangeReconcileMs)}; one-change run ${ms(d.oneChangeRunMs)}; peak RSS ${mib(d.peakRssBytes)}, anonymous in the cgroup ${mib(d.cgroupPeakAnonBytes)}; retained heap ${d.retainedHeapBytes === undefined ? '—' : mib(d.retainedHeapBytes)}; cgroup max usage ${mib(d.cgroupMaxUsageBytes)}, failcnt ${d.cgroupFailcnt}, OOM kills ${d.cgroupOomKills}${d.exit === undefined ? '' : `, exit ${d.exit.signal ?? d.exit.code}`}`,
      );
    }
  }
  return lines;
}

/** Growth from 1,000 to 100,000 resources and the daemon's memory in a cgroup. */
export const scaleSection: BenchSection = {
  name: 'scale',
  async run(context) {
    const f = await runScaleBench(context.scaleSizes, context.progress);
    return { figures: scaleRows(f), details: scaleDetails(f), data: f };
  },
};
