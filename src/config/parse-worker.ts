/**
 * Entry of a parse process (`parse-pool.ts` forks it): parses the files it is sent, one
 * message each, with the same function the loader runs in its own thread. Holds no state
 * between messages, and ends when its parent disconnects.
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
  process.send?.(message);
}

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
