/**
 * The delivery queues against a real `node:http` receiver: retries after 5xx with backoff,
 * no retry of a final 4xx, order kept per target, errors logged without the target's secrets,
 * a bounded close.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BackoffBounds } from '../../../src/backoff.js';
import {
  createDelivery,
  type DeliveryResult,
  scrub,
  type TargetInfo,
} from '../../../src/daemon/notify/delivery.js';
import { NO_COUNTS } from '../../../src/daemon/notify/run-summary.js';
import { webhookTarget } from '../../../src/daemon/notify/targets.js';
import type { NotifyEvent } from '../../../src/daemon/notify/transitions.js';
import { createLogger } from '../../../src/log.js';
import { until } from '../../helpers/daemon.js';
import { hang, reply, sequence, startTestServer, type TestServer } from '../../helpers/http-server.js';

const SECRET_PATH = '/services/T000/B000/XXXXsecretXXXX';
const APPLIED: NotifyEvent = {
  event: 'reconcile.applied',
  revision: 'config:0123456789ab',
  trigger: 'schedule',
  startedAt: '2026-01-01T00:00:00.000Z',
  durationMs: 1,
  result: 'reconciled',
  counts: { ...NO_COUNTS, applied: 1 },
  subjects: [{ subject: 'A/a', outcome: 'applied' }],
  failingTotal: 0,
};

const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function receiver(...handlers: Parameters<typeof sequence>): Promise<TestServer> {
  const server = await startTestServer(sequence(...handlers));
  servers.push(server);
  return server;
}

function setup(
  options: { attempts?: number; timeoutMs?: number; backoff?: BackoffBounds; random?: () => number } = {},
) {
  const lines: Record<string, unknown>[] = [];
  const counts: [string, DeliveryResult][] = [];
  const logger = createLogger({
    level: 'debug',
    destination: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  const delivery = createDelivery({
    logger,
    count: (target, result) => counts.push([target, result]),
    backoff: { baseMs: 50, maxMs: 100 },
    ...options,
  });
  return { delivery, lines, counts, output: () => JSON.stringify(lines) };
}

function target(server: TestServer, name = 'slack'): TargetInfo {
  const url = new URL(`${server.url}${SECRET_PATH}`);
  return { name, label: url.origin, secrets: [url.href, url.pathname] };
}

describe('notification delivery', () => {
  it('retries a 500 with backoff and counts one success', async () => {
    const server = await receiver(reply(500), reply(503), reply(200, {}));
    const { delivery, counts } = setup();

    delivery.send(target(server), { url: `${server.url}${SECRET_PATH}`, headers: {}, body: '{"n":1}' });
    await until(() => counts.length > 0, 'the delivery to end');

    expect(server.requests.map((r) => [r.method, r.path, r.rawBody])).toEqual([
      ['POST', SECRET_PATH, '{"n":1}'],
      ['POST', SECRET_PATH, '{"n":1}'],
      ['POST', SECRET_PATH, '{"n":1}'],
    ]);
    expect(server.requests[0]?.headers['content-type']).toBe('application/json');
    // Equal jitter: the first retry waits at least half of the 50 ms base (the next test pins the waits).
    for (let i = 1; i < 3; i += 1) {
      const gap = (server.requests[i]?.at ?? 0) - (server.requests[i - 1]?.at ?? 0);
      expect(gap).toBeGreaterThanOrEqual(20);
    }
    expect(counts).toEqual([['slack', 'success']]);
    await delivery.close(1000);
  });

  it.each([
    [0, [50, 75]],
    [0.999, [100, 150]],
  ])(
    'spaces the retries by equal jitter: random() = %s waits %j ms (half to all of min(max, base × 2^n))',
    async (draw, waits) => {
      const server = await receiver(reply(500), reply(503), reply(200, {}));
      const { delivery, counts, lines } = setup({ backoff: { baseMs: 100, maxMs: 150 }, random: () => draw });

      delivery.send(target(server), { url: `${server.url}${SECRET_PATH}`, headers: {}, body: '{}' });
      await until(() => counts.length > 0, 'the delivery to end');

      expect(lines.filter((l) => l.event === 'notify.retry').map((l) => l.delayMs)).toEqual(waits);
      for (const [i, wait] of waits.entries()) {
        const gap = (server.requests[i + 1]?.at ?? 0) - (server.requests[i]?.at ?? 0);
        expect(gap).toBeGreaterThanOrEqual(wait - 5);
      }
      expect(counts).toEqual([['slack', 'success']]);
      await delivery.close(1000);
    },
  );

  it('gives up after 3 attempts and logs the failure without the URL path', async () => {
    const server = await receiver(reply(500, `echo ${SECRET_PATH}`));
    const { delivery, counts, lines, output } = setup();

    delivery.send(target(server), { url: `${server.url}${SECRET_PATH}`, headers: {}, body: '{}' });
    await until(() => counts.length > 0, 'the delivery to end');

    expect(server.requests).toHaveLength(3);
    expect(counts).toEqual([['slack', 'failed']]);
    expect(lines.filter((l) => l.event === 'notify.failed')).toEqual([
      expect.objectContaining({ target: 'slack', destination: server.url, attempts: 3, error: 'HTTP 500' }),
    ]);
    expect(output()).not.toContain('XXXXsecretXXXX');
    await delivery.close(1000);
  });

  it('does not retry a final 4xx', async () => {
    const server = await receiver(reply(404));
    const { delivery, counts } = setup();

    delivery.send(target(server, 'github'), { url: `${server.url}/x`, headers: {}, body: '{}' });
    await until(() => counts.length > 0, 'the delivery to end');

    expect(server.requests).toHaveLength(1);
    expect(counts).toEqual([['github', 'failed']]);
    await delivery.close(1000);
  });

  it('keeps the order of one target while the first message is retried', async () => {
    const server = await receiver(reply(500), reply(200));
    const { delivery, counts } = setup();

    for (const n of [1, 2, 3]) delivery.send(target(server), { url: server.url, headers: {}, body: `${n}` });
    await until(() => counts.length === 3, 'three deliveries to end');

    expect(server.requests.map((r) => r.rawBody)).toEqual(['1', '1', '2', '3']);
    expect(counts.map(([, result]) => result)).toEqual(['success', 'success', 'success']);
    await delivery.close(1000);
  });

  it('ends a hanging request on close (its 60 s timeout would outlast the test)', async () => {
    const server = await receiver(hang());
    const { delivery, counts, output } = setup({ timeoutMs: 60_000 });

    delivery.send(target(server), { url: `${server.url}${SECRET_PATH}`, headers: {}, body: '{}' });
    await until(() => server.requests.length === 1, 'the request to arrive');
    await delivery.close(100);

    expect(counts).toEqual([['slack', 'failed']]);
    expect(output()).not.toContain('XXXXsecretXXXX');
  });

  it('bounds an attempt whose receiver answers 200 and then drips its body: counted, logged, not resent, the queue moves on', async () => {
    const drips: NodeJS.Timeout[] = [];
    const server = await receiver((_request, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      drips.push(setInterval(() => res.write('x'), 50));
    }, reply(200));
    const { delivery, counts, lines, output } = setup({ timeoutMs: 300 });

    delivery.send(target(server), { url: `${server.url}${SECRET_PATH}`, headers: {}, body: '1' });
    delivery.send(target(server), { url: `${server.url}${SECRET_PATH}`, headers: {}, body: '2' });
    await until(() => counts.length === 2, 'both deliveries to end');
    for (const drip of drips) clearInterval(drip);

    expect(counts).toEqual([
      ['slack', 'timeout'],
      ['slack', 'success'],
    ]);
    // The receiver said 200: it has the first one, which is not sent again.
    expect(server.requests.map((r) => r.rawBody)).toEqual(['1', '2']);
    expect(lines.filter((l) => l.event === 'notify.timeout')).toEqual([
      expect.objectContaining({
        target: 'slack',
        destination: server.url,
        phase: 'body',
        timeoutMs: 300,
        error: 'HTTP 200, then the reply did not end within 300 ms',
      }),
    ]);
    expect(lines.filter((l) => l.event === 'notify.failed')).toEqual([
      expect.objectContaining({ result: 'timeout', attempts: 1 }),
    ]);
    expect(output()).not.toContain('XXXXsecretXXXX');
    await delivery.close(1000);
  });

  it('retries a receiver that sends no status line within the deadline, then counts a timeout', async () => {
    const server = await receiver(hang());
    const { delivery, counts, lines } = setup({ timeoutMs: 200 });

    delivery.send(target(server, 'webhook'), { url: `${server.url}${SECRET_PATH}`, headers: {}, body: '{}' });
    await until(() => counts.length > 0, 'the delivery to end');

    expect(server.requests).toHaveLength(3);
    expect(counts).toEqual([['webhook', 'timeout']]);
    expect(lines.filter((l) => l.event === 'notify.timeout').map((l) => [l.attempt, l.phase])).toEqual([
      [1, 'reply'],
      [2, 'reply'],
      [3, 'reply'],
    ]);
    await delivery.close(1000);
  });

  it("sends a webhook URL's user:password as basic authentication, never in the request line", async () => {
    const server = await receiver(reply(200));
    const { delivery, counts } = setup();
    const url = new URL(server.url);
    url.username = 'edge';
    url.password = 'p@ss:word';
    url.pathname = '/hook';
    const hook = webhookTarget(url, undefined, 'edgesync/test');

    delivery.send(hook.info, hook.requestFor(APPLIED));
    await until(() => counts.length > 0, 'the delivery to end');

    expect(server.requests[0]?.path).toBe('/hook');
    expect(server.requests[0]?.headers.authorization).toBe(
      `Basic ${Buffer.from('edge:p@ss:word').toString('base64')}`,
    );
    expect(hook.info.label).toBe(server.url);
    await delivery.close(1000);
  });

  it('scrubs every secret of the target from an error text, the longest first', () => {
    const url = `https://hooks.example${SECRET_PATH}`;

    expect(scrub(`connect ECONNREFUSED ${url} (${SECRET_PATH})`, [SECRET_PATH, url])).toBe(
      'connect ECONNREFUSED [redacted] ([redacted])',
    );
  });
});
