/**
 * The worker-thread side of `emulator-host.ts`: runs emulators on its own event loop, so the
 * client being measured (autocannon, the engine, a daemon in a child process) never shares a thread
 * with the server it talks to. Answers one message per request, tagged with the request's id.
 */
import { performance } from 'node:perf_hooks';
import { parentPort } from 'node:worker_threads';
import { type Emulator, startEmulator } from '../src/emulator/index.js';
import type { HostReply, HostRequest, JournalSummary } from './emulator-host.js';

const running = new Map<number, Emulator>();
let nextHandle = 1;

function summarise(emu: Emulator): JournalSummary {
  const byOperation: Record<string, number> = {};
  const byStatus: Record<string, number> = {};
  let writes = 0;
  for (const entry of emu.journal.entries()) {
    byOperation[entry.operation] = (byOperation[entry.operation] ?? 0) + 1;
    byStatus[entry.status] = (byStatus[entry.status] ?? 0) + 1;
    if (entry.method !== 'GET') writes += 1;
  }
  return { total: emu.journal.count(), writes, byOperation, byStatus };
}

function emulator(handle: number): Emulator {
  const emu = running.get(handle);
  if (emu === undefined) throw new Error(`no emulator ${handle}`);
  return emu;
}

async function answer(request: HostRequest): Promise<unknown> {
  switch (request.type) {
    case 'start': {
      const emu = await startEmulator({
        accessKey: request.accessKey,
        seed: request.seed,
        journal: request.journal,
        ...(request.rateLimit === undefined ? {} : { rateLimit: request.rateLimit }),
      });
      const handle = nextHandle;
      nextHandle += 1;
      running.set(handle, emu);
      return { handle, url: emu.url, counts: emu.state.counts() };
    }
    case 'journal':
      return summarise(emulator(request.handle));
    case 'rateLimitCounts':
      return emulator(request.handle).rateLimiter.counts();
    case 'utilization': {
      // This thread's own event-loop utilisation: how busy the emulator was, apart from the client.
      const { idle, active } = performance.eventLoopUtilization();
      return { idle, active };
    }
    case 'stop': {
      await emulator(request.handle).close();
      running.delete(request.handle);
      return undefined;
    }
  }
}

parentPort?.on('message', (request: HostRequest) => {
  answer(request).then(
    (result) => parentPort?.postMessage({ id: request.id, ok: true, result } satisfies HostReply),
    (err: unknown) =>
      parentPort?.postMessage({
        id: request.id,
        ok: false,
        error: err instanceof Error ? (err.stack ?? err.message) : String(err),
      } satisfies HostReply),
  );
});
