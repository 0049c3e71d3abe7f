/**
 * The HTTP client edgesync is built on, alone: undici's `dispatch` (the call the engine's
 * transport makes) with the client's pool settings and, like it, undici's own request timers
 * off (the transport has its deadline), sending the E1 requests the engine sent,
 * at the same concurrency, each reply collected and JSON-parsed, nothing else (no retry
 * policy, no schema check, no plan, no state). It runs in a child process like the engine,
 * and tells how much of autocannon's rate a Node client on undici reaches on this machine:
 * the ceiling the engine's apply throughput is measured under.
 *
 * The first `WARM_UP` requests are sent before the clock starts: the engine process has
 * already run reads and earlier rounds when it is measured, and autocannon takes about a
 * second to reach its pace, so a cold client here would understate the ceiling (the first
 * version, cold and through `agent.request`, cost 141–173 µs of CPU per request; warm,
 * through `dispatch`, about half that: the README's table has the figure of the last run).
 *
 *   node dist/bench/raw-client.js URL REQUESTS_JSON COUNT CONCURRENCY ACCESS_KEY
 * prints {"requestsPerSecond":…, "cpuMicrosPerRequest":…}
 */
import { readFileSync } from 'node:fs';
import { Agent } from 'undici';
import { connectionsFor } from '../src/api/client.js';
import type { LoadRequest } from './load-tool.js';

/** What one run printed. */
export interface RawClientResult {
  readonly requestsPerSecond: number;
  readonly cpuMicrosPerRequest: number;
}

const WARM_UP = 2000;

/** One request through `agent.dispatch`; resolves with the status once the body is parsed. */
function send(
  agent: Agent,
  origin: string,
  request: LoadRequest,
  headers: Record<string, string>,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let status = 0;
    agent.dispatch(
      {
        origin,
        path: request.path,
        method: request.method as 'PATCH',
        body: request.body ?? null,
        headers,
        headersTimeout: 0,
        bodyTimeout: 0,
      },
      {
        // Its presence marks the handler as undici's current (controller) kind.
        onRequestStart() {},
        onResponseStart(_controller, statusCode) {
          status = statusCode;
        },
        onResponseData(_controller, chunk) {
          chunks.push(chunk);
        },
        onResponseEnd() {
          JSON.parse(Buffer.concat(chunks).toString('utf8'));
          resolve(status);
        },
        onResponseError(_controller, error) {
          reject(error);
        },
      },
    );
  });
}

async function main(): Promise<void> {
  const [url, file, countArg, concurrencyArg, accessKey] = process.argv.slice(2);
  if (url === undefined || file === undefined || accessKey === undefined) {
    throw new Error('usage: raw-client URL REQUESTS_JSON COUNT CONCURRENCY ACCESS_KEY');
  }
  const requests = JSON.parse(readFileSync(file, 'utf8')) as LoadRequest[];
  const count = Number(countArg);
  const concurrency = Number(concurrencyArg);
  const origin = new URL(url).origin;
  const headers = { AccessKey: accessKey, accept: 'application/json', 'content-type': 'application/json' };
  // The same pool as the engine's client (connectionsFor).
  const agent = new Agent({ connections: connectionsFor(concurrency) });
  async function run(total: number): Promise<void> {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < total) {
        const request = requests[next % requests.length] as LoadRequest;
        next += 1;
        const status = await send(agent, origin, request, headers);
        if (status !== 200) throw new Error(`${request.method} ${request.path}: ${status}`);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }
  await run(WARM_UP);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await run(count);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  await agent.close();
  const result: RawClientResult = {
    requestsPerSecond: count / seconds,
    cpuMicrosPerRequest: (cpu.user + cpu.system) / count,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
