/**
 * Runs parseConfigFile over many files: in this thread, or spread over worker threads when
 * there is enough YAML for them to pay for their start-up (~0.1 s each).
 *
 * Parsing YAML with positions is the floor of a load (the `yaml` package does about
 * 1.5 MB/s here), so a cold load of a big repository uses every core: this thread parses
 * too, and takes files from the same queue as the workers, largest first.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ReconcileError } from '../errors.js';
import type { LoaderLimits } from './files.js';
import { type FileResult, type PreviousParse, parseConfigFile } from './parse-file.js';
import type { WorkerRequest } from './parse-worker.js';

/** One file to parse. */
export interface ParseJob {
  readonly file: string;
  readonly text: string;
  /** The file's previous parse, if any: its unchanged documents are reused (in this thread only). */
  readonly previous?: PreviousParse;
}

/** Results in the order of the jobs, and how many worker threads took part. */
export interface ParseOutcome {
  readonly results: readonly FileResult[];
  readonly workers: number;
}

/** Most worker threads 'auto' starts: more costs memory (the daemon's budget) for little gain. */
const MAX_AUTO_WORKERS = 3;

const WORKER_URL = new URL('./parse-worker.js', import.meta.url);

function workerCount(jobs: readonly ParseJob[], workers: number | 'auto', thresholdBytes: number): number {
  if (jobs.length < 2) return 0;
  // Running from TypeScript sources (the test runner), there is no compiled worker to start.
  if (!existsSync(fileURLToPath(WORKER_URL))) return 0;
  if (workers !== 'auto') return Math.min(workers, jobs.length - 1);
  let bytes = 0;
  for (const job of jobs) bytes += job.text.length;
  if (bytes < thresholdBytes) return 0;
  return Math.min(availableParallelism() - 1, MAX_AUTO_WORKERS, jobs.length - 1);
}

/** Files sent to a worker ahead of its replies. */
const WORKER_IN_FLIGHT = 2;

/** Worker threads started and not yet exited. */
let alive = 0;
/** One batch at a time: loads are sequential in practice, and this bounds the threads alive. */
let batchLock: Promise<unknown> = Promise.resolve();

/** Parse worker threads alive now (tests check that every load ends its own). */
export function parseWorkersAlive(): number {
  return alive;
}

/**
 * Parses every job; results come back in job order. Worker failures are INTERNAL errors.
 *
 * The worker threads are started for the batch and end with it. A warm worker would parse a
 * later batch faster (a fresh one runs the YAML parser cold for its first second or so), but
 * each holds its own V8 heap, about 50 MB after parsing 10,000 resources, which would stay in
 * the process through the reconcile that follows: that alone took the daemon past its 200 MB
 * budget. The daemon's later loads are incremental (one changed file parses in this thread),
 * so only a big reload, such as a branch switch, pays for starting workers again.
 */
export async function parseFiles(
  jobs: readonly ParseJob[],
  root: string,
  limits: LoaderLimits,
  workers: number | 'auto',
  thresholdBytes = 1024 * 1024,
): Promise<ParseOutcome> {
  const count = workerCount(jobs, workers, thresholdBytes);
  if (count <= 0) {
    return {
      results: jobs.map((job) => parseConfigFile(root, job.file, job.text, limits, job.previous)),
      workers: 0,
    };
  }
  const run = batchLock.then(() => parseInPool(jobs, root, limits, count));
  batchLock = run.catch(() => undefined);
  return run;
}

async function parseInPool(
  jobs: readonly ParseJob[],
  root: string,
  limits: LoaderLimits,
  count: number,
): Promise<ParseOutcome> {
  const results: (FileResult | undefined)[] = new Array(jobs.length);
  // Largest first, so no thread is left with a big file at the end.
  const queue = jobs
    .map((_, index) => index)
    .sort((a, b) => (jobs[b]?.text.length ?? 0) - (jobs[a]?.text.length ?? 0));
  const workers = Array.from({ length: count }, () => {
    const worker = new Worker(WORKER_URL);
    alive += 1;
    worker.once('exit', () => {
      alive -= 1;
    });
    return worker;
  });
  try {
    const workersDone = workers.map(
      (worker) =>
        new Promise<void>((resolve, reject) => {
          let inFlight = 0;
          const sendNext = (): void => {
            const index = queue.shift();
            if (index === undefined) {
              if (inFlight === 0) resolve();
              return;
            }
            const job = jobs[index] as ParseJob;
            const request: WorkerRequest = { index, root, file: job.file, text: job.text, limits };
            inFlight += 1;
            worker.postMessage(request);
          };
          worker.on('message', (reply: { index: number; result?: FileResult; error?: string }) => {
            if (reply.error !== undefined || reply.result === undefined) {
              reject(new ReconcileError('INTERNAL', `config parse worker failed: ${reply.error}`));
              return;
            }
            results[reply.index] = reply.result;
            inFlight -= 1;
            sendNext();
          });
          worker.once('error', (err) =>
            reject(new ReconcileError('INTERNAL', 'config parse worker crashed', { cause: err })),
          );
          // Replies are only handled between this thread's own files: a worker with one file
          // in flight sat idle a fifth of a cold load waiting for the next. With a second one
          // queued it always has work.
          for (let i = 0; i < WORKER_IN_FLIGHT; i += 1) sendNext();
        }),
    );
    // Handled from now on: a worker may fail while this thread is still parsing, and a
    // rejection nobody awaits yet would end the process as an unhandled rejection.
    const allDone = Promise.all(workersDone);
    allDone.catch(() => undefined);
    // This thread takes from the same queue, yielding between files so replies get handled.
    for (let index = queue.shift(); index !== undefined; index = queue.shift()) {
      const job = jobs[index] as ParseJob;
      results[index] = parseConfigFile(root, job.file, job.text, limits, job.previous);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await allDone;
  } finally {
    // Resolves once the threads are gone, their heaps with them.
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
  return { results: results as FileResult[], workers: count };
}
