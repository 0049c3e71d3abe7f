/**
 * The engine as the CLI runs it, in the benchmark's main thread (the emulator is in a worker
 * thread): one API client with the CLI's pool for the concurrency, one in-memory state store,
 * `reconcile(mode: 'apply')`, and what it sent, counted by the client's `onRequest` hook.
 */
import { connectionsFor, createApiClient } from '../src/api/client.js';
import type { PaceReading } from '../src/api/pacer.js';
import type { RequestEvent } from '../src/api/types.js';
import type { DesiredState } from '../src/config/types.js';
import { type ReconcileOutcome, reconcile } from '../src/engine/reconcile.js';
import { memoryStateStore, type StateStore } from '../src/engine/state.js';
import type { LoadRequest } from './load-tool.js';

type Plan = ReconcileOutcome['plan'];

/** Requests one reconcile made (every HTTP exchange, retries included). */
interface RequestCounts {
  readonly total: number;
  readonly writes: number;
  /** Exchanges answered 429. */
  readonly throttled: number;
  readonly byOperation: Readonly<Record<string, number>>;
}

/** What one reconcile measured. */
export interface EngineRun {
  readonly wallMs: number;
  /**
   * From the first write sent to the last write answered: the apply phase as the API saw it,
   * measured here from the client's request events rather than by the engine.
   */
  readonly writesMs: number;
  /** Change outcomes by name (`applied`, `failed`, …). */
  readonly counts: Readonly<Record<string, number>>;
  readonly requests: RequestCounts;
  /** The client's pace when the run ended. */
  readonly pace: PaceReading;
  readonly plan: Plan;
}

/** An engine against one API: `run()` reconciles once; runs share the client and the state. */
export interface BenchEngine {
  run(): Promise<EngineRun>;
  close(): Promise<void>;
}

export function benchEngine(
  desired: DesiredState,
  api: { url: string; accessKey: string; concurrency: number },
): BenchEngine {
  let events: RequestEvent[] = [];
  let firstWriteSent = Number.POSITIVE_INFINITY;
  let lastWriteAnswered = Number.NEGATIVE_INFINITY;
  const client = createApiClient({
    baseUrl: api.url,
    accessKey: api.accessKey,
    connections: connectionsFor(api.concurrency),
    onRequest: (event) => {
      events.push(event);
      if (event.method === 'GET') return;
      const now = performance.now();
      firstWriteSent = Math.min(firstWriteSent, now - event.durationMs);
      lastWriteAnswered = Math.max(lastWriteAnswered, now);
    },
  });
  const state: StateStore = memoryStateStore();
  return {
    async run() {
      events = [];
      firstWriteSent = Number.POSITIVE_INFINITY;
      lastWriteAnswered = Number.NEGATIVE_INFINITY;
      const started = performance.now();
      const outcome = await reconcile(desired.resources, {
        api: client,
        state,
        selection: { revision: 'bench' },
        write: {
          mode: 'apply',
          driftMode: 'correct',
          concurrency: api.concurrency,
          maxChangePercent: 30,
          force: true,
          signal: new AbortController().signal,
        },
        report: { trigger: 'bench' },
      });
      const wallMs = performance.now() - started;
      const byOperation: Record<string, number> = {};
      for (const event of events) byOperation[event.operation] = (byOperation[event.operation] ?? 0) + 1;
      return {
        wallMs,
        writesMs: Math.max(0, lastWriteAnswered - firstWriteSent),
        counts: { ...(outcome.apply?.counts ?? {}) },
        requests: {
          total: events.length,
          writes: events.filter((event) => event.method !== 'GET').length,
          throttled: events.filter((event) => event.status === 429).length,
          byOperation,
        },
        pace: client.pacing(),
        plan: outcome.plan,
      };
    },
    close: () => client.close(),
  };
}

/** The first `count` E1 requests of a plan, as autocannon replays them. */
export function e1Requests(plan: Plan, count: number): LoadRequest[] {
  return plan.changes
    .flatMap((change) => change.requests)
    .filter((request) => request.operation === 'updateCustomWafRule')
    .slice(0, count)
    .map((request) => ({
      method: request.method,
      path: request.path,
      body: JSON.stringify(request.body),
      headers: { 'content-type': 'application/json' },
    }));
}

/** `op n, op n, …` for the detail lines. */
export function operations(byOperation: Readonly<Record<string, number>>): string {
  return Object.entries(byOperation)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([op, n]) => `${op} ${n}`)
    .join(', ');
}

export function seconds(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`;
}
