/**
 * A throwaway `node:http` server on port 0 for tests that speak real HTTP (no mocked fetch,
 * no nock). It records every request (method, path, headers, body, arrival time) and answers
 * through a handler the test can swap at any time. Handlers for the common cases (JSON reply,
 * a sequence of replies, a hang, a dropped connection) are below.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';

/** One request as the server saw it. */
export interface RecordedRequest {
  /** 0-based arrival order. */
  index: number;
  method: string;
  /** Path with query, exactly as sent. */
  path: string;
  /** Header names are lower-case (Node's parser). */
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** The body parsed as JSON; the raw text when it is not JSON; undefined when empty. */
  body: unknown;
  /** Monotonic arrival time (`performance.now()`), for measuring gaps. */
  at: number;
  /** Wall-clock arrival time (`Date.now()`), for comparing with HTTP dates. */
  wallClock: number;
}

/** Answers one request. It may answer later, never, or drop the connection. */
export type Handler = (request: RecordedRequest, res: ServerResponse) => void | Promise<void>;

/** A running test server and its request journal. */
export interface TestServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string;
  readonly port: number;
  /** Every request so far, in arrival order. */
  readonly requests: RecordedRequest[];
  /** Replaces the handler for the requests that follow. */
  setHandler(handler: Handler): void;
  /** Closes the server and every open connection, hanging ones included. */
  close(): Promise<void>;
}

/** Starts a server on 127.0.0.1 with a free port. */
export async function startTestServer(handler: Handler = reply(200, {})): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  let current = handler;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = {
        index: requests.length,
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        rawBody,
        body: parseBody(rawBody),
        at: performance.now(),
        wallClock: Date.now(),
      };
      requests.push(recorded);
      Promise.resolve(current(recorded, res)).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(599, { 'content-type': 'text/plain' });
        res.end(`test handler threw: ${String(error)}`);
      });
    });
  });
  // Clients in tests use short keep-alives; the server must not outlive them by much either.
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    setHandler(next) {
      current = next;
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

/** An undici Agent with a short keep-alive, so tests neither leak sockets nor wait on them. */
export function testAgent(): Agent {
  return new Agent({ keepAliveTimeout: 100, keepAliveMaxTimeout: 100, connections: 8 });
}

/** Answers with `status` and `body`: objects, arrays and numbers as JSON, strings as they are. */
export function reply(status: number, body?: unknown, headers: Record<string, string> = {}): Handler {
  return (_request, res) => send(res, status, body, headers);
}

/** Answers the n-th request with the n-th handler; the last one answers everything after. */
export function sequence(...handlers: Handler[]): Handler {
  let calls = 0;
  return (request, res) => {
    const handler = handlers[Math.min(calls, handlers.length - 1)];
    calls += 1;
    if (handler === undefined) throw new Error('sequence() needs at least one handler');
    return handler(request, res);
  };
}

/** Never answers; the connection stays open until the client gives up or the server closes. */
export function hang(): Handler {
  return () => undefined;
}

/** Destroys the connection after reading the request: the client sees the socket close. */
export function dropConnection(): Handler {
  return (_request, res) => {
    res.socket?.destroy();
  };
}

/** Writes a reply. Strings go out verbatim (so tests can send malformed JSON). */
export function send(
  res: ServerResponse,
  status: number,
  body?: unknown,
  headers: Record<string, string> = {},
): void {
  if (body === undefined) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const contentType = typeof body === 'string' ? 'text/plain' : 'application/json; charset=utf-8';
  res.writeHead(status, { 'content-type': contentType, ...headers });
  res.end(text);
}

function parseBody(raw: string): unknown {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
