/**
 * The HTTP client edgesync is built on, alone: undici with the client's pool settings sending
 * the E1 requests the engine sent, at the same concurrency, each reply read and JSON-parsed,
 * nothing else (no plan, no schema check, no state). It runs in a child process like the
 * engine, and tells how much of autocannon's rate a Node client on undici reaches at all on
 * this machine: the ceiling the engine's apply throughput is measured under.
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

async function main(): Promise<void> {
  const [url, file, countArg, concurrencyArg, accessKey] = process.argv.slice(2);
  if (url === undefined || file === undefined || accessKey === undefined) {
    throw new Error('usage: raw-client URL REQUESTS_JSON COUNT CONCURRENCY ACCESS_KEY');
  }
  const requests = JSON.parse(readFileSync(file, 'utf8')) as LoadRequest[];
  const count = Number(countArg);
  const origin = new URL(url).origin;
  // The same pool as the engine's client (connectionsFor).
  const agent = new Agent({ connections: connectionsFor(Number(concurrencyArg)) });
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const request = requests[next % requests.length] as LoadRequest;
      next += 1;
      const reply = await agent.request({
        origin,
        path: request.path,
        method: request.method as 'PATCH',
        body: request.body,
        headers: { AccessKey: accessKey, accept: 'application/json', 'content-type': 'application/json' },
      });
      JSON.parse(await reply.body.text());
      if (reply.statusCode !== 200) throw new Error(`${request.method} ${request.path}: ${reply.statusCode}`);
    }
  };
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: Number(concurrencyArg) }, worker));
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
