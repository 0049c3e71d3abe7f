/**
 * The child side of `engine-process.ts`: loads the desired state as the CLI does, reconciles
 * it in `apply` mode with the CLI's client settings (connections: `connectionsFor`), and
 * reports wall time, requests by operation and memory. Not a module to import.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { connectionsFor, createApiClient } from '../src/api/client.js';
import type { RequestEvent } from '../src/api/types.js';
import { loadDesiredState } from '../src/config/loader.js';
import type { DesiredState } from '../src/config/types.js';
import { reconcile } from '../src/engine/reconcile.js';
import { memoryStateStore } from '../src/engine/state.js';
import {
  type EngineReply,
  type EngineRequest,
  type ReconcileJob,
  type ReconcileRun,
  splitWrites,
} from './engine-process.js';
import type { LoadRequest } from './load-tool.js';
import { procPeakRssBytes } from './section.js';

let desired: DesiredState | undefined;
let profiled = 0;
/** Highest RSS seen before the kernel's high-water mark was last reset (see resetPeakRss). */
let lifetimePeakBytes = 0;

/**
 * Resets the kernel's peak RSS to the current RSS (Linux: `5` into /proc/self/clear_refs), so
 * that the peak read after a reconcile is that reconcile's exactly, the load's left out.
 * Resetting also resets getrusage's maxRSS, so the lifetime peak is kept here. False when the
 * platform cannot: the sampled peak stands alone then.
 */
function resetPeakRss(): boolean {
  lifetimePeakBytes = Math.max(
    lifetimePeakBytes,
    procPeakRssBytes('self') ?? 0,
    // maxRSS is in kilobytes (libuv's ru_maxrss).
    process.resourceUsage().maxRSS * 1024,
  );
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * With `BENCH_ENGINE_PROFILE=DIR`, each reconcile (and nothing else: not the load) is CPU
 * profiled into DIR/reconcile-N.cpuprofile, for Chrome DevTools or any .cpuprofile viewer.
 */
async function profile<T>(work: () => Promise<T>): Promise<T> {
  const dir = process.env.BENCH_ENGINE_PROFILE;
  if (dir === undefined || dir === '') return work();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile: result } = await session.post('Profiler.stop');
    profiled += 1;
    writeFileSync(join(dir, `reconcile-${profiled}.cpuprofile`), JSON.stringify(result));
    session.disconnect();
  }
}

function reply(message: EngineReply): void {
  process.send?.(message);
}

async function runJob(job: ReconcileJob): Promise<{ runs: ReconcileRun[]; e1: LoadRequest[] }> {
  if (desired === undefined) throw new Error('load before reconcile');
  let events: RequestEvent[] = [];
  let writeReplyTimes: number[] = [];
  const api = createApiClient({
    baseUrl: job.url,
    accessKey: job.accessKey,
    connections: connectionsFor(job.concurrency),
    onRequest: (event) => {
      events.push(event);
      if (event.method !== 'GET') writeReplyTimes.push(performance.now());
    },
  });
  const state = memoryStateStore();
  const runs: ReconcileRun[] = [];
  const e1: LoadRequest[] = [];
  try {
    for (let run = 0; run < job.runs; run += 1) {
      events = [];
      writeReplyTimes = [];
      let peakRssBytes = process.memoryUsage.rss();
      let peakHeapBytes = getHeapStatistics().used_heap_size;
      // Every 50 ms: reading RSS costs a /proc read, which would show in the figures at 10 ms.
      const sampler = setInterval(() => {
        peakRssBytes = Math.max(peakRssBytes, process.memoryUsage.rss());
        peakHeapBytes = Math.max(peakHeapBytes, getHeapStatistics().used_heap_size);
      }, 50);
      const exactPeak = resetPeakRss();
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      const resources = desired.resources;
      const outcome = await profile(() =>
        reconcile(resources, {
          api,
          state,
          mode: 'apply',
          revision: 'bench',
          trigger: 'bench',
          concurrency: job.concurrency,
          maxChangePercent: 30,
          // Part 3 changes every resource on purpose; the threshold would refuse it.
          force: true,
          driftMode: 'correct',
          signal: new AbortController().signal,
        }),
      );
      const wallMs = performance.now() - started;
      const cpu = process.cpuUsage(cpuBefore);
      clearInterval(sampler);
      peakRssBytes = Math.max(
        peakRssBytes,
        process.memoryUsage.rss(),
        exactPeak ? (procPeakRssBytes('self') ?? 0) : 0,
      );
      const byOperation: Record<string, number> = {};
      let writes = 0;
      let retries = 0;
      for (const event of events) {
        byOperation[event.operation] = (byOperation[event.operation] ?? 0) + 1;
        if (event.method !== 'GET') writes += 1;
        if (event.attempt > 1) retries += 1;
      }
      runs.push({
        writeSplit: splitWrites(writeReplyTimes),
        wallMs,
        cpuMs: (cpu.user + cpu.system) / 1000,
        phases: outcome.phases,
        summary: outcome.plan.summary,
        counts: { ...(outcome.apply?.counts ?? {}) },
        requests: { total: events.length, reads: events.length - writes, writes, retries, byOperation },
        peakRssBytes,
        peakHeapBytes,
      });
      if (job.collectE1 !== undefined && run === 0) {
        // Only as many as the parent replays: the rest would be built and sent over IPC for nothing.
        const sent = outcome.plan.changes
          .flatMap((change) => change.requests)
          .filter((request) => request.operation === 'updateCustomWafRule')
          .slice(0, job.collectE1);
        for (const request of sent) {
          e1.push({
            method: request.method,
            path: request.path,
            body: JSON.stringify(request.body),
            headers: { 'content-type': 'application/json' },
          });
        }
      }
    }
  } finally {
    await api.close();
  }
  return { runs, e1 };
}

async function handle(request: EngineRequest): Promise<void> {
  switch (request.type) {
    case 'load': {
      const started = performance.now();
      desired = await loadDesiredState(request.dir);
      reply({
        type: 'loaded',
        ms: performance.now() - started,
        resources: desired.resources.length,
        rssBytes: process.memoryUsage.rss(),
        node: [process.version, ...process.execArgv].join(' '),
      });
      return;
    }
    case 'reconcile': {
      const { runs, e1 } = await runJob(request);
      reply({ type: 'reconciled', runs, e1 });
      return;
    }
    case 'exit':
      // Folds the high-water mark since the last reset into the lifetime peak.
      resetPeakRss();
      reply({ type: 'exiting', maxRssBytes: lifetimePeakBytes });
      process.disconnect?.();
      return;
  }
}

process.on('message', (request: EngineRequest) => {
  handle(request).catch((err: unknown) => {
    reply({ type: 'failed', error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  });
});
