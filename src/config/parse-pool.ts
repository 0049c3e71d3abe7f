/**
 * Runs parseConfigFile over many files: in this process, or spread over parse processes when
 * there is enough new YAML for them to pay for their start-up (~0.1 s each).
 *
 * Parsing YAML with positions is the floor of a load (the `yaml` package does about
 * 1.5 MB/s here), so a cold load of a big repository uses every core: parse processes take
 * files from one queue, largest first, and by default this thread takes from it too.
 *
 * The daemon keeps its thread out of that queue (`threadParsesNew: false`): it then only
 * gathers results and parses the files it can mostly reuse (those with a previous parse),
 * with one process per core instead. Parsing leaves garbage that outlives a few scavenges
 * (each file's YAML tree), so V8 promotes it; half of a 10,000-resource load parsed in the
 * daemon's thread grew its old generation to ~110 MB before V8 collected it, at the start of
 * the reconcile, and the pages stayed committed: the start-up reconcile peaked at 194–244 MB
 * against its 200 MB budget. Parsed in processes only, it starts at ~150 MB and peaks at
 * 179–186. The price, which a one-shot command need not pay: a cold load 5–8 % slower on
 * 2 cores (every result crosses a process boundary), and one more process (~70 MB) alive
 * for the seconds of the load.
 *
 * Child processes, not worker threads: on Node 22 and later, V8 keeps a finished worker's
 * heap pages in a pool shared by the whole process, until the main thread's memory reducer
 * flushes it some seconds later. A cold load of 10,000 resources left ~70 MB that way, and
 * the reconcile that follows at once peaked at 255 MB against the 200 MB budget (Node 24,
 * the Docker image's runtime). A process gives every page back when it exits, on any Node.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { ReconcileError } from '../errors.js';
import type { LoaderLimits } from './files.js';
import { type FileResult, type PreviousParse, parseConfigFile } from './parse-file.js';
import type { WorkerReply, WorkerRequest } from './parse-worker.js';

/** One file to parse. */
export interface ParseJob {
  readonly file: string;
  readonly text: string;
  /** The file's previous parse, if any: its unchanged documents are reused (in this thread only). */
  readonly previous?: PreviousParse;
}

/** Results in the order of the jobs, how many parse processes took part, and how many files this thread parsed. */
export interface ParseOutcome {
  readonly results: readonly FileResult[];
  readonly workers: number;
  readonly inThread: number;
}

/** Most parse processes 'auto' starts: more costs memory (~70 MB each while they run) for little gain. */
const MAX_AUTO_WORKERS = 3;

const WORKER_URL = new URL('./parse-worker.js', import.meta.url);

/**
 * The jobs by who may parse them: new files (largest first, so no process is left with a big
 * file at the end), and files with a previous parse, whose unchanged documents only this
 * thread has to reuse.
 */
interface Split {
  readonly fresh: number[];
  readonly reusable: number[];
}

function splitJobs(jobs: readonly ParseJob[]): Split {
  const fresh: number[] = [];
  const reusable: number[] = [];
  for (const [index, job] of jobs.entries()) (job.previous === undefined ? fresh : reusable).push(index);
  fresh.sort((a, b) => (jobs[b]?.text.length ?? 0) - (jobs[a]?.text.length ?? 0));
  return { fresh, reusable };
}

/** How a batch is spread. */
export interface PoolOptions {
  /** Parse processes: `'auto'` starts them for `thresholdBytes` of new YAML or more. */
  readonly workers: number | 'auto';
  /**
   * How many `'auto'` starts when it does, as given (0: none, this thread parses), in place of
   * its own count: one per core, at most three, less one when this thread parses too. An
   * operator's number: on a host whose cores are not the container's, one per core is too
   * many for its memory.
   */
  readonly autoWorkers?: number;
  readonly thresholdBytes: number;
  /** Whether this thread parses new files beside the processes (default true). */
  readonly threadParsesNew?: boolean;
}

function workerCount(
  jobs: readonly ParseJob[],
  fresh: readonly number[],
  options: PoolOptions,
  threadParsesNew: boolean,
): number {
  const threadTakes = threadParsesNew ? 1 : 0;
  // This thread alone when it would take the only new file.
  if (fresh.length <= threadTakes) return 0;
  // Running from TypeScript sources (the test runner), there is no compiled entry to fork.
  if (!existsSync(fileURLToPath(WORKER_URL))) return 0;
  if (options.workers !== 'auto') return Math.min(options.workers, fresh.length - threadTakes);
  let bytes = 0;
  for (const index of fresh) bytes += jobs[index]?.text.length ?? 0;
  if (bytes < options.thresholdBytes) return 0;
  const wanted = options.autoWorkers ?? Math.min(availableParallelism() - threadTakes, MAX_AUTO_WORKERS);
  return Math.min(wanted, fresh.length - threadTakes);
}

/** Files sent to a parse process ahead of its replies. */
const WORKER_IN_FLIGHT = 2;

/** Parse processes started and not yet exited. */
let alive = 0;
/** One batch at a time: loads are sequential in practice, and this bounds the processes alive. */
let batchLock: Promise<unknown> = Promise.resolve();

/** Parse processes alive now (tests check that every load ends its own). */
export function parseWorkersAlive(): number {
  return alive;
}

/**
 * Parses every job; results come back in job order. Failures of a parse process are INTERNAL
 * errors.
 *
 * The processes are started for the batch and end with it. A warm one would parse a later
 * batch faster (a fresh one runs the YAML parser cold for its first second or so), but each
 * holds its own V8 heap, about 50 MB after parsing 10,000 resources, which would stay through
 * the reconcile that follows: that alone took the daemon past its 200 MB budget. The daemon's
 * later loads are incremental (one changed file parses in this thread), so only a big
 * reload, such as a branch switch, pays for starting them again.
 */
export async function parseFiles(
  jobs: readonly ParseJob[],
  root: string,
  limits: LoaderLimits,
  options: PoolOptions,
): Promise<ParseOutcome> {
  const threadParsesNew = options.threadParsesNew !== false;
  const split = splitJobs(jobs);
  const count = workerCount(jobs, split.fresh, options, threadParsesNew);
  if (count <= 0) {
    return {
      results: jobs.map((job) => parseConfigFile(root, job.file, job.text, limits, job.previous)),
      workers: 0,
      inThread: jobs.length,
    };
  }
  const run = batchLock.then(() => parseInPool(jobs, split, root, limits, count, threadParsesNew));
  batchLock = run.catch(() => undefined);
  return run;
}

/**
 * Starts one parse process. It gets the environment (NODE_OPTIONS included) but none of this
 * process's command-line flags: those can hold `-e CODE`, which would run the caller's script
 * again in the child, itself forking again, or an inspector port the two would fight over.
 * Its stdout is not ours (the daemon logs JSON lines there).
 */
function startParseProcess(): ChildProcess {
  const child = fork(WORKER_URL, [], {
    serialization: 'advanced',
    execArgv: [],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  // No pid: the spawn failed, and only 'error' will follow (the batch fails on it), no 'exit'.
  if (child.pid === undefined) return child;
  alive += 1;
  child.once('exit', () => {
    alive -= 1;
  });
  return child;
}

/** Ends `child` and resolves once it has exited (its memory is then the system's again). */
function stopParseProcess(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill();
  return exited;
}

async function parseInPool(
  jobs: readonly ParseJob[],
  split: Split,
  root: string,
  limits: LoaderLimits,
  count: number,
  threadParsesNew: boolean,
): Promise<ParseOutcome> {
  const results: (FileResult | undefined)[] = new Array(jobs.length);
  // Consumed as the batch runs (the split is this batch's own).
  const queue = split.fresh;
  const reusable = split.reusable;
  let inThread = 0;
  const children = Array.from({ length: count }, startParseProcess);
  // Set by the first failure: the batch is lost, so no process takes another file, nor this thread.
  let batchFailed = false;
  try {
    const childrenDone = children.map(
      (child) =>
        new Promise<void>((resolve, reject) => {
          let inFlight = 0;
          const fail = (error: ReconcileError): void => {
            batchFailed = true;
            reject(error);
          };
          const sendNext = (): void => {
            // A lost batch sends nothing more, to this process or any other.
            if (batchFailed) return;
            const index = queue.shift();
            if (index === undefined) {
              if (inFlight === 0) resolve();
              return;
            }
            const job = jobs[index] as ParseJob;
            const request: WorkerRequest = { index, root, file: job.file, text: job.text, limits };
            inFlight += 1;
            try {
              child.send(request);
            } catch (err) {
              // A request that cannot be serialised (a bug) fails here, before it is sent.
              fail(
                new ReconcileError('INTERNAL', `config parse process failed: ${String(err)}`, { cause: err }),
              );
            }
          };
          child.on('message', (reply: WorkerReply) => {
            if (reply.error !== undefined || reply.result === undefined) {
              fail(new ReconcileError('INTERNAL', `config parse process failed: ${reply.error}`));
              return;
            }
            results[reply.index] = reply.result;
            inFlight -= 1;
            sendNext();
          });
          // 'on', not 'once': a send to a process already gone is a second 'error' event.
          child.on('error', (err) => {
            // A send to a process that has just died: its 'exit', which follows, names the
            // signal or code, the cause worth reporting.
            const code = (err as NodeJS.ErrnoException).code;
            if (code === 'EPIPE' || code === 'ERR_IPC_CHANNEL_CLOSED') return;
            fail(new ReconcileError('INTERNAL', 'config parse process failed', { cause: err }));
          });
          child.once('exit', (code, signal) => {
            if (inFlight > 0 || queue.length > 0) {
              fail(
                new ReconcileError(
                  'INTERNAL',
                  `config parse process exited (${signal ?? `code ${code}`}) before its files were parsed`,
                ),
              );
            }
          });
          // With a second file queued a process never waits for this thread to take its reply
          // (this thread may be parsing a file of its own, or reading another process's
          // reply). With one in flight, a process sat idle a fifth of a cold load.
          for (let i = 0; i < WORKER_IN_FLIGHT; i += 1) sendNext();
        }),
    );
    // Handled from now on: a process may fail while this thread is still parsing, and a
    // rejection nobody awaits yet would end the process as an unhandled rejection.
    const allDone = Promise.all(childrenDone);
    allDone.catch(() => undefined);
    // This thread parses the files it can reuse, then (unless kept free) takes new ones from
    // the same queue, yielding between files so replies get handled.
    const own = (): number | undefined => reusable.shift() ?? (threadParsesNew ? queue.shift() : undefined);
    for (let index = own(); index !== undefined && !batchFailed; index = own()) {
      const job = jobs[index] as ParseJob;
      results[index] = parseConfigFile(root, job.file, job.text, limits, job.previous);
      inThread += 1;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await allDone;
  } finally {
    await Promise.all(children.map(stopParseProcess));
  }
  return { results: results as FileResult[], workers: count, inThread };
}
