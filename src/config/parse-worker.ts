/**
 * Worker-thread entry of the parse pool: parses the files it is sent, one message each, with
 * the same function the loader runs in its own thread. Holds no state between messages.
 */
import { parentPort } from 'node:worker_threads';
import type { LoaderLimits } from './files.js';
import { parseConfigFile } from './parse-file.js';

/** A request to the worker: one file. */
export interface WorkerRequest {
  readonly index: number;
  readonly root: string;
  readonly file: string;
  readonly text: string;
  readonly limits: LoaderLimits;
}

parentPort?.on('message', (request: WorkerRequest) => {
  try {
    const result = parseConfigFile(request.root, request.file, request.text, request.limits);
    parentPort?.postMessage({ index: request.index, result });
  } catch (err) {
    parentPort?.postMessage({
      index: request.index,
      error: err instanceof Error ? (err.stack ?? err.message) : String(err),
    });
  }
});
