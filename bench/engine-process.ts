/**
 * The engine under measurement, in a child process of its own (`engine-child.ts`): it loads the
 * desired state once, then runs the reconciles the benchmark asks for against an emulator URL
 * and reports what it measured. A process of its own keeps its peak RSS the engine's alone
 * (the emulator, autocannon and the generator live in the benchmark process) and keeps its
 * event loop free of the server it talks to.
 */
import { type ChildProcess, fork } from 'node:child_process';
import type { PhaseTimings } from '../src/engine/reconcile.js';
import type { PlanSummary } from '../src/engine/types.js';
import type { LoadRequest } from './load-tool.js';

/** Requests one reconcile made, counted by the client's `onRequest` hook (every HTTP exchange). */
export interface RequestCounts {
  readonly total: number;
  readonly reads: number;
  readonly writes: number;
  /** Exchanges that were retries (attempt > 1). */
  readonly retries: number;
  readonly byOperation: Readonly<Record<string, number>>;
}

/** What one `reconcile(…)` call measured. */
export interface ReconcileRun {
  readonly wallMs: number;
  /** CPU time of the engine process (user + system, all its threads) during the reconcile. */
  readonly cpuMs: number;
  /** Read, plan and apply phases of this reconcile. */
  readonly phases: PhaseTimings;
  readonly summary: PlanSummary;
  /** Apply outcomes (applied, unchanged, skipped, failed). */
  readonly counts: Readonly<Record<string, number>>;
  readonly requests: RequestCounts;
  /**
   * Peak RSS during this reconcile, bytes: the kernel's high-water mark, reset just before it
   * (Linux), or the highest of samples every 50 ms elsewhere.
   */
  readonly peakRssBytes: number;
  /** Highest V8 heap in use sampled during this reconcile, bytes. */
  readonly peakHeapBytes: number;
  /** The writes' pace in two parts (`splitWrites`); undefined with fewer than 10 writes. */
  readonly writeSplit?: WriteSplit;
}

/**
 * An apply's writes in two parts, timed by their replies: the first fifth, then the rest. The
 * first fifth is when V8 compiles the request path again after a full collection (or for the
 * first time, in a fresh process); the rest is the pace once it has.
 */
export interface WriteSplit {
  /** Replies after the first one, up to the end of the first fifth, and the ms they took. */
  readonly firstWrites: number;
  readonly firstMs: number;
  /** Replies after that, to the last one, and the ms they took. */
  readonly restWrites: number;
  readonly restMs: number;
}

/** Splits the reply times of an apply's writes (ascending, ms) into `WriteSplit`'s two parts. */
export function splitWrites(replyTimes: readonly number[]): WriteSplit | undefined {
  const n = replyTimes.length;
  if (n < 10) return undefined;
  const fifth = Math.floor(n / 5);
  const first = replyTimes[0] as number;
  const cut = replyTimes[fifth - 1] as number;
  const last = replyTimes[n - 1] as number;
  return { firstWrites: fifth - 1, firstMs: cut - first, restWrites: n - fifth, restMs: last - cut };
}

/** Writes per second of each part of a `WriteSplit`. */
export function splitRates(split: WriteSplit): { readonly first: number; readonly rest: number } {
  return {
    first: split.firstWrites / (split.firstMs / 1000),
    rest: split.restWrites / (split.restMs / 1000),
  };
}

/** A batch of reconciles against one emulator. */
export interface ReconcileJob {
  readonly url: string;
  readonly accessKey: string;
  readonly concurrency: number;
  /** Reconciles in a row, sharing one in-memory state store (the first one starts empty). */
  readonly runs: number;
  /** Return the first this many E1 requests the first run's plan sent, for the load tools to replay. */
  readonly collectE1?: number;
}

/** Messages to the child. */
export type EngineRequest =
  | { readonly type: 'load'; readonly dir: string }
  | ({ readonly type: 'reconcile' } & ReconcileJob)
  | { readonly type: 'exit' };

/** Messages from the child, one per request. */
export type EngineReply =
  | {
      readonly type: 'loaded';
      readonly ms: number;
      readonly resources: number;
      readonly rssBytes: number;
      /** The engine's Node version and flags (`BENCH_ENGINE_NODE` and `_ARGS` may change both). */
      readonly node: string;
    }
  | {
      readonly type: 'reconciled';
      readonly runs: readonly ReconcileRun[];
      readonly e1: readonly LoadRequest[];
    }
  | { readonly type: 'exiting'; readonly maxRssBytes: number }
  | { readonly type: 'failed'; readonly error: string };

/** The parent's handle on one engine process. */
export interface EngineProcess {
  /** Loads and validates the desired state; resolves with the load time, resource count and RSS after it. */
  load(dir: string): Promise<{ ms: number; resources: number; rssBytes: number; node: string }>;
  reconcile(job: ReconcileJob): Promise<{ runs: readonly ReconcileRun[]; e1: readonly LoadRequest[] }>;
  /** Ends the process; resolves with its peak RSS over its whole life, the load included. */
  exit(): Promise<number>;
}

/**
 * The Node binary and flags that edgesync's processes run on in the benchmark: the engine
 * child and the latency section's daemons. `BENCH_ENGINE_NODE_ARGS` adds Node flags to them
 * only (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the engine, or the Docker image's
 * heap flag); `BENCH_ENGINE_NODE` runs them on another Node binary (e.g. the image's Node 24)
 * while the emulator and the load tools stay on this one.
 */
export function engineNode(): { readonly execPath: string; readonly args: readonly string[] } {
  const execPath = process.env.BENCH_ENGINE_NODE;
  return {
    execPath: execPath === undefined || execPath === '' ? process.execPath : execPath,
    args: nodeArgs(process.env.BENCH_ENGINE_NODE_ARGS),
  };
}

/** Node flags written as one space-separated string (an environment variable, a CLI option). */
export function nodeArgs(text: string | undefined): string[] {
  return (text ?? '').split(' ').filter((arg) => arg !== '');
}

/**
 * Forks `engine-child.js` on `engineNode()`; the child waits for requests. `childScript` runs
 * another build's child instead, and `extraArgs` go after `engineNode()`'s flags (`ab.ts`
 * compares two builds, or two settings of one).
 */
export function startEngineProcess(
  childScript: URL = new URL('./engine-child.js', import.meta.url),
  extraArgs: readonly string[] = [],
): EngineProcess {
  const node = engineNode();
  const child: ChildProcess = fork(childScript, [], {
    execArgv: [...node.args, ...extraArgs],
    execPath: node.execPath,
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });

  function ask(request: EngineRequest): Promise<EngineReply> {
    return new Promise((resolve, reject) => {
      function onExit(code: number | null): void {
        reject(new Error(`engine process exited (${code}) before answering ${request.type}`));
      }
      child.once('exit', onExit);
      child.once('message', (reply: EngineReply) => {
        child.off('exit', onExit);
        if (reply.type === 'failed') reject(new Error(`engine process: ${reply.error}`));
        else resolve(reply);
      });
      // With a callback, a send to a process already gone rejects here instead of emitting an
      // 'error' event nobody listens to (which would crash the benchmark and hide why it died).
      child.send(request, (err) => {
        if (err !== null) reject(new Error(`engine process gone, cannot ${request.type}: ${err.message}`));
      });
    });
  }

  return {
    async load(dir) {
      const reply = await ask({ type: 'load', dir });
      if (reply.type !== 'loaded') throw new Error(`unexpected reply ${reply.type}`);
      return { ms: reply.ms, resources: reply.resources, rssBytes: reply.rssBytes, node: reply.node };
    },
    async reconcile(job) {
      const reply = await ask({ type: 'reconcile', ...job });
      if (reply.type !== 'reconciled') throw new Error(`unexpected reply ${reply.type}`);
      return { runs: reply.runs, e1: reply.e1 };
    },
    async exit() {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      const reply = await ask({ type: 'exit' });
      await exited;
      if (reply.type !== 'exiting') throw new Error(`unexpected reply ${reply.type}`);
      return reply.maxRssBytes;
    },
  };
}
