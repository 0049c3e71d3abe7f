/**
 * Entry of a parse process (`parse-pool.ts` forks it): parses the files it is sent, one
 * message each, with the same function the loader runs in its own thread. Holds no state
 * between messages, and exits as soon as its parent is gone.
 */
import type { LoaderLimits } from './files.js';
import { type FileResult, parseConfigFile } from './parse-file.js';

/** A request to the process: one file. */
export interface WorkerRequest {
  readonly index: number;
  readonly root: string;
  readonly file: string;
  readonly text: string;
  readonly limits: LoaderLimits;
}

/** Its reply: the file's result, or why parsing threw (a bug: parse problems are results). */
export interface WorkerReply {
  readonly index: number;
  readonly result?: FileResult;
  readonly error?: string;
}

function reply(message: WorkerReply): void {
  // A parent gone mid-file (killed, crashed) fails the send with EPIPE: with a callback that
  // is an exit, not an unhandled 'error' event with a stack trace in the parent's log.
  process.send?.(message, undefined, undefined, (err: Error | null) => {
    if (err !== null) process.exit(0);
  });
}

// Without a parent there is no one to parse for: end now rather than finish the queue.
process.on('disconnect', () => process.exit(0));

process.on('message', (request: WorkerRequest) => {
  try {
    reply({
      index: request.index,
      result: parseConfigFile(request.root, request.file, request.text, request.limits),
    });
  } catch (err) {
    reply({ index: request.index, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }
});
