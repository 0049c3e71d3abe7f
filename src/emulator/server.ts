/**
 * The HTTP server: plain `node:http`, one request pipeline.
 *
 *   read body (capped) → match route → rate limit → fault decision → auth → body checks → handler → reply → journal
 *
 * The rate limit and faults are decided before auth on purpose: a rate limiter or a failing
 * gateway in front of the real API answers before the application sees the key. The handler is synchronous and
 * the hot path (a GET with faults off) allocates little beyond the reply itself.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { FaultController, FaultDecision } from './faults.js';
import type { RequestJournal } from './journal.js';
import type { OperationId } from './operations.js';
import type { RateLimiter } from './rate-limit.js';
import type { ErrorProfile, Failure, Reply } from './replies.js';
import { failureReply } from './replies.js';
import type { Router } from './router.js';
import type { RequestContext, Route } from './routes/types.js';
import type { EmulatorState } from './store.js';

/** Request bodies above this are refused with 413. */
const MAX_BODY_BYTES = 1024 * 1024;

/** Everything the pipeline needs; built once per emulator. */
export interface ServerDeps {
  router: Router;
  state: EmulatorState;
  journal: RequestJournal;
  faults: FaultController;
  rateLimiter: RateLimiter;
  accessKey: string;
  /** Refuse unknown body fields instead of ignoring them. */
  strict: boolean;
}

/** Unmatched routes and 405s: ASP.NET answers both with an empty body. */
const NO_ROUTE_PROFILE: ErrorProfile = {
  unauthorized: 'empty',
  invalid: 'empty',
  notFound: 'empty',
  fault: 'empty',
};

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Request media types the real API binds as JSON: application/json, text/json, application/*+json. */
function isJsonMediaType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const type = (header.split(';')[0] ?? '').trim().toLowerCase();
  return (
    type === 'application/json' ||
    type === 'text/json' ||
    (type.startsWith('application/') && type.endsWith('+json'))
  );
}

interface Pending {
  readonly started: number;
  readonly method: string;
  readonly path: string;
  readonly rawQuery: string;
  readonly route: Route | undefined;
  readonly params: string[];
  readonly allowed: string[] | undefined;
  readonly operation: OperationId;
  readonly profile: ErrorProfile;
  bodyText: string | undefined;
  tooLarge: boolean;
}

/** A running server plus what `close()` must tear down. */
export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** Starts listening; resolves once the port is bound. */
export async function startServer(deps: ServerDeps, port: number, host: string): Promise<RunningServer> {
  const expectedKey = Buffer.from(deps.accessKey, 'utf8');
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  let closing = false;

  function authorised(req: IncomingMessage): boolean {
    const given = req.headers.accesskey;
    if (typeof given !== 'string') return false;
    const buf = Buffer.from(given, 'utf8');
    return buf.length === expectedKey.length && timingSafeEqual(buf, expectedKey);
  }

  function send(res: ServerResponse, pending: Pending, reply: Reply, rawBody?: string): void {
    const headers: Record<string, string | number> = { ...reply.headers };
    let payload: string | undefined;
    if (rawBody !== undefined) payload = rawBody;
    else if (reply.body !== undefined) payload = JSON.stringify(reply.body);
    if (payload !== undefined) {
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
        headers['content-type'] = JSON_CONTENT_TYPE;
      headers['content-length'] = Buffer.byteLength(payload);
    } else {
      headers['content-length'] = 0;
    }
    if (pending.tooLarge) headers.connection = 'close';
    res.writeHead(reply.status, headers);
    res.end(payload);
    record(pending, reply.status, payload);
  }

  function record(pending: Pending, status: number, replyText: string | undefined): void {
    if (!deps.journal.enabled) return;
    deps.journal.record({
      method: pending.method,
      path: pending.path,
      rawQuery: pending.rawQuery,
      operation: pending.operation,
      status,
      requestText: pending.bodyText,
      replyText,
      durationMs: performance.now() - pending.started,
      receivedAt: performance.timeOrigin + pending.started,
    });
  }

  /** Renders a failure in the route's shape; MC routes get their app id here, for every handler. */
  function fail(pending: Pending, shape: keyof ErrorProfile, failure: Failure): Reply {
    const appIdParam = pending.route?.appIdParam;
    const id = appIdParam === undefined ? undefined : pending.params[appIdParam];
    return failureReply(
      pending.profile[shape],
      id === undefined ? failure : { ...failure, id },
      pending.path,
    );
  }

  function handle(req: IncomingMessage, pending: Pending): Reply {
    if (pending.route === undefined) {
      if (pending.allowed !== undefined)
        return { status: 405, headers: { allow: pending.allowed.join(', ') } };
      return { status: 404 };
    }
    if (!authorised(req)) {
      return fail(pending, 'unauthorized', {
        status: 401,
        detail: 'The AccessKey header is missing or invalid.',
      });
    }
    if (pending.tooLarge) {
      return fail(pending, 'fault', {
        status: 413,
        detail: `Request bodies are limited to ${MAX_BODY_BYTES} bytes.`,
      });
    }
    let body: unknown;
    if (pending.route.body === 'required') {
      if (pending.bodyText === undefined || pending.bodyText.trim() === '') {
        return fail(pending, 'invalid', {
          status: 400,
          title: 'One or more validation errors occurred.',
          detail: 'A non-empty request body is required.',
          errors: [{ field: '$', message: 'A non-empty request body is required.' }],
        });
      }
      if (!isJsonMediaType(req.headers['content-type'])) {
        return fail(pending, 'fault', {
          status: 415,
          detail: 'Send the body as application/json, text/json or application/*+json.',
        });
      }
      try {
        body = JSON.parse(pending.bodyText);
      } catch (err) {
        const message = `The request body is not valid JSON: ${err instanceof Error ? err.message : String(err)}`;
        return fail(pending, 'invalid', {
          status: 400,
          title: 'One or more validation errors occurred.',
          detail: message,
          errors: [{ field: '$', message }],
        });
      }
    }
    const ctx: RequestContext = {
      params: pending.params,
      rawQuery: pending.rawQuery,
      body,
      state: deps.state,
      strict: deps.strict,
      fail: (kind, failure) => fail(pending, kind, failure),
    };
    return pending.route.handle(ctx);
  }

  function act(req: IncomingMessage, res: ServerResponse, pending: Pending, decision: FaultDecision): void {
    if (closing) {
      res.destroy();
      return;
    }
    switch (decision.kind) {
      case 'drop':
        record(pending, 0, undefined);
        req.socket.destroy();
        return;
      case 'drop-after': {
        // The change is made; only the reply is lost. The journal keeps the handler's status.
        const reply = safeHandle(req, pending);
        record(pending, reply.status, reply.body === undefined ? undefined : JSON.stringify(reply.body));
        req.socket.destroy();
        return;
      }
      case 'scripted': {
        const { body } = decision;
        const reply: Reply = { status: decision.status, headers: decision.headers };
        if (typeof body === 'string') {
          send(res, pending, reply, body);
        } else {
          if (body !== undefined) reply.body = body;
          send(res, pending, reply);
        }
        return;
      }
      case 'error': {
        const reply = fail(pending, 'fault', { status: decision.status });
        if (decision.retryAfterSeconds !== undefined) {
          reply.headers = { ...reply.headers, 'retry-after': String(decision.retryAfterSeconds) };
        }
        send(res, pending, reply);
        return;
      }
      case 'none':
        send(res, pending, safeHandle(req, pending));
        return;
    }
  }

  function safeHandle(req: IncomingMessage, pending: Pending): Reply {
    try {
      return handle(req, pending);
    } catch (err) {
      // An emulator bug must still produce an answer the client can classify, and be visible.
      process.emitWarning(
        `edgesync emulator: handler failed: ${err instanceof Error ? err.stack : String(err)}`,
      );
      return fail(pending, 'fault', { status: 500, detail: 'The emulator failed to handle the request.' });
    }
  }

  /** The limiter's 429, in the route's fault shape (the same shape as an injected 429). */
  function rateLimited(res: ServerResponse, pending: Pending, retryAfterSeconds: number): void {
    const reply = fail(pending, 'fault', {
      status: 429,
      detail: 'Too many requests; the rate limit has been exceeded.',
    });
    reply.headers = { ...reply.headers, 'retry-after': String(retryAfterSeconds) };
    send(res, pending, reply);
  }

  function proceed(req: IncomingMessage, res: ServerResponse, pending: Pending): void {
    if (closing) {
      res.destroy();
      return;
    }
    const key = req.headers.accesskey;
    const limit = deps.rateLimiter.take(typeof key === 'string' ? key : '');
    if (limit.limited) {
      rateLimited(res, pending, limit.retryAfterSeconds);
      return;
    }
    const decision = deps.faults.decide(pending.operation, pending.method, pending.path);
    if (decision.delayMs <= 0) {
      act(req, res, pending, decision);
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      act(req, res, pending, decision);
    }, decision.delayMs);
    timers.add(timer);
  }

  function onRequest(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const rawQuery = q === -1 ? '' : url.slice(q + 1);
    const result = deps.router.match(method, path);
    const route = result.kind === 'found' ? result.match.route : undefined;
    const pending: Pending = {
      started,
      method,
      path,
      rawQuery,
      route,
      params: result.kind === 'found' ? result.match.params : [],
      allowed: result.kind === 'method' ? result.allowed : undefined,
      operation: route?.operation ?? 'unknown',
      profile: route?.profile ?? NO_ROUTE_PROFILE,
      bodyText: undefined,
      tooLarge: false,
    };
    const length = req.headers['content-length'];
    if ((length === undefined || length === '0') && req.headers['transfer-encoding'] === undefined) {
      proceed(req, res, pending);
      return;
    }
    // Read the whole body even past the cap, so the 413 reaches a client that is still sending.
    const chunks: Buffer[] = [];
    let size = 0;
    if (length !== undefined && Number(length) > MAX_BODY_BYTES) pending.tooLarge = true;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) pending.tooLarge = true;
      if (!pending.tooLarge) chunks.push(chunk);
    });
    req.on('end', () => {
      if (!pending.tooLarge && size > 0) pending.bodyText = Buffer.concat(chunks, size).toString('utf8');
      proceed(req, res, pending);
    });
    req.on('error', () => {
      res.destroy();
    });
  }

  const server = createServer({ keepAlive: true }, onRequest);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // Silence per-socket errors from clients that go away mid-request (dropped-connection tests).
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    url: `http://${urlHost}:${address.port}`,
    async close(): Promise<void> {
      if (closing) return;
      closing = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
