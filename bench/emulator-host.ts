/**
 * Emulators in a worker thread of the benchmark process, driven by messages: start one from a
 * seed (with a `--rate-limit` if asked), read its journal summary and rate-limit counts, read
 * the thread's event-loop utilisation, stop it. The benchmark's clients (the engine and
 * autocannon in the main thread, daemons in child processes) thus never run on the emulator's
 * event loop, and they all meet the very same server thread.
 */
import { Worker } from 'node:worker_threads';
import type { EmulatorSeed, RateLimitCounts, StateCounts } from '../src/emulator/index.js';

/** What one emulator's journal holds, reduced to counts. */
export interface JournalSummary {
  readonly total: number;
  /** Requests whose method is not GET. */
  readonly writes: number;
  readonly byOperation: Readonly<Record<string, number>>;
  readonly byStatus: Readonly<Record<string, number>>;
}

/** Cumulative event-loop time of the emulator thread (ms), from `performance.eventLoopUtilization`. */
interface LoopTime {
  readonly idle: number;
  readonly active: number;
}

/** Messages to the worker; every one is answered by a `HostReply` with the same id. */
export type HostRequest =
  | {
      readonly id: number;
      readonly type: 'start';
      readonly accessKey: string;
      readonly seed: EmulatorSeed;
      readonly journal: boolean;
      readonly rateLimit?: number;
    }
  | { readonly id: number; readonly type: 'journal' | 'rateLimitCounts' | 'stop'; readonly handle: number }
  | { readonly id: number; readonly type: 'utilization' };

/** A request before the host numbers it. */
type Unnumbered<T> = T extends unknown ? Omit<T, 'id'> : never;

/** The worker's answer to one request. */
export type HostReply =
  | { readonly id: number; readonly ok: true; readonly result: unknown }
  | { readonly id: number; readonly ok: false; readonly error: string };

/** One emulator running in the host's worker thread. */
interface HostedEmulator {
  readonly url: string;
  readonly counts: StateCounts;
  journal(): Promise<JournalSummary>;
  /** Requests its `--rate-limit` admitted and refused (429) so far. */
  rateLimitCounts(): Promise<RateLimitCounts>;
  stop(): Promise<void>;
}

/** The worker thread and the emulators in it. */
export interface EmulatorHost {
  start(options: {
    accessKey: string;
    seed: EmulatorSeed;
    journal: boolean;
    rateLimit?: number;
  }): Promise<HostedEmulator>;
  /** The emulator thread's cumulative event-loop time; subtract two to get a window's share. */
  loopTime(): Promise<LoopTime>;
  /** Terminates the worker and every emulator in it. */
  close(): Promise<void>;
}

/** Starts the worker thread (emulators are started in it on demand). */
export function startEmulatorHost(): EmulatorHost {
  const worker = new Worker(new URL('./emulator-host-worker.js', import.meta.url));
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 1;
  worker.on('message', (reply: HostReply) => {
    const waiter = pending.get(reply.id);
    pending.delete(reply.id);
    if (reply.ok) waiter?.resolve(reply.result);
    else waiter?.reject(new Error(`emulator host: ${reply.error}`));
  });
  worker.on('error', (err) => {
    for (const waiter of pending.values()) waiter.reject(err);
    pending.clear();
  });

  function ask<T>(request: Unnumbered<HostRequest>): Promise<T> {
    const id = nextId;
    nextId += 1;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ ...request, id });
    });
  }

  return {
    async start(options) {
      const { handle, url, counts } = await ask<{ handle: number; url: string; counts: StateCounts }>({
        type: 'start',
        ...options,
      });
      return {
        url,
        counts,
        journal: () => ask<JournalSummary>({ type: 'journal', handle }),
        rateLimitCounts: () => ask<RateLimitCounts>({ type: 'rateLimitCounts', handle }),
        stop: () => ask<void>({ type: 'stop', handle }),
      };
    },
    loopTime: () => ask<LoopTime>({ type: 'utilization' }),
    async close() {
      await worker.terminate();
    },
  };
}
