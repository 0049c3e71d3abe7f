/**
 * The daemon's HTTP servers (node:http): webhooks, and the operational routes (health,
 * readiness, metrics, status). By default one server (`--listen`) serves both; with
 * `--metrics-listen` the hooks stay on `--listen` and the operational routes move to a
 * server of their own, so only the hooks need to face the internet.
 * Header and request timeouts are short: a hook body is small and a slow client is dropped.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { ReconcileError } from '../errors.js';
import type { Logger } from '../log.js';
import type { DaemonMetrics } from './metrics.js';
import { createRejectionLog } from './rejections.js';
import type { StatusBody } from './status-body.js';
import { PAGE_HEADERS, type PageAsset, type StatusPage } from './status-page.js';
import {
  decideGenericHook,
  decideGithubHook,
  type HookDecision,
  MAX_WEBHOOK_BYTES,
  readBodyLimited,
  type SecretSource,
} from './webhook.js';

/** What a server needs from the daemon. */
export interface HttpServerOptions {
  readonly host: string;
  readonly port: number;
  /** Which routes this server answers: the hooks, the operational routes, or both. */
  readonly serves: { readonly hooks: boolean; readonly operations: boolean };
  readonly logger: Logger;
  readonly metrics: DaemonMetrics;
  /** Undefined: no secret configured, the hook routes answer 404. */
  readonly secrets: SecretSource | undefined;
  /** The branch whose pushes trigger (`--git-branch`). */
  readonly branch: string;
  /** True once the daemon is shutting down: hooks answer 503. */
  stopping(): boolean;
  ready(): boolean;
  /** True while resources are failed or the last run failed (/readyz says so, still 200). */
  degraded(): boolean;
  /** The status document (`createStatusBody`): its tag, and its JSON as the client reads it. */
  readonly statusBody: StatusBody;
  /** The status page served with the operational routes; undefined with `--no-ui`. */
  readonly page?: StatusPage;
  /** Called for an accepted hook, after the 202 is sent. */
  onHook(trigger: Readonly<Record<string, unknown>>): void;
}

/** A listening server. */
export interface DaemonHttpServer {
  /** `http://host:port` as bound (the real port when 0 was asked for). */
  readonly url: string;
  /** Stops accepting, lets requests in flight end (up to CLOSE_GRACE_MS), then drops every connection. */
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

interface Route {
  readonly methods: readonly string[];
  readonly handle: Handler;
}

const JSON_TYPE = 'application/json; charset=utf-8';
/** How long close() lets requests in flight finish before dropping their connections. */
const CLOSE_GRACE_MS = 2000;

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = `${JSON.stringify(body)}\n`;
  res.writeHead(status, {
    'content-type': JSON_TYPE,
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...headers,
  });
  res.end(text);
}

/**
 * 413 without reading the rest: the reply says `Connection: close`, and once it is flushed
 * the socket is ended; anything the client still sends is never read into memory (TCP flow
 * control stops it), and the socket is destroyed shortly after.
 */
function sendTooLarge(req: IncomingMessage, res: ServerResponse): void {
  res.shouldKeepAlive = false;
  sendJson(res, 413, { error: 'payload too large' }, { connection: 'close' });
  res.once('finish', () => {
    const socket = req.socket;
    socket.end();
    setTimeout(() => socket.destroy(), 1000).unref();
  });
}

/** True when the request's `If-None-Match` names `etag` (or `*`). */
function matches(req: IncomingMessage, etag: string): boolean {
  const header = req.headers['if-none-match'];
  if (header === undefined) return false;
  return header.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed === etag || trimmed === `W/${etag}`;
  });
}

function sendAsset(req: IncomingMessage, res: ServerResponse, asset: PageAsset): void {
  const headers = { ...PAGE_HEADERS, etag: asset.etag, 'cache-control': 'no-cache' };
  if (matches(req, asset.etag)) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  res.writeHead(200, {
    ...headers,
    'content-type': asset.type,
    'content-length': String(asset.body.length),
  });
  res.end(req.method === 'HEAD' ? undefined : asset.body);
}

/** Routes of the status page: its files, or a `/` that says the page was not built. */
function pageRoutes(page: StatusPage): Record<string, Route> {
  if (page.kind === 'missing') {
    const text = `The status page is not built (no ${page.dir}): run npm run build.\n`;
    return {
      '/': {
        methods: ['GET', 'HEAD'],
        handle: (_req, res) => {
          res.writeHead(503, {
            ...PAGE_HEADERS,
            'content-type': 'text/plain; charset=utf-8',
            'content-length': String(Buffer.byteLength(text)),
            'cache-control': 'no-store',
          });
          res.end(text);
        },
      },
    };
  }
  const routes: Record<string, Route> = {};
  for (const [path, asset] of page.assets) {
    routes[path] = { methods: ['GET', 'HEAD'], handle: (req, res) => sendAsset(req, res, asset) };
  }
  return routes;
}

/** Parses `--listen` (or `flag`): `host:port`, `[v6]:port` or `:port` (all interfaces). */
export function parseListen(value: string, flag = '--listen'): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(value.trim());
  const port = Number(match?.[3]);
  if (match === null || !Number.isInteger(port) || port > 65535) {
    throw new ReconcileError(
      'USAGE',
      `${flag} ${JSON.stringify(value)} is not HOST:PORT (e.g. 0.0.0.0:8080)`,
    );
  }
  const host = match[1] ?? match[2] ?? '';
  return { host: host === '' ? '0.0.0.0' : host, port };
}

/** Starts the server; resolves once it listens. Throws USAGE when the address cannot be bound. */
export async function startHttpServer(options: HttpServerOptions): Promise<DaemonHttpServer> {
  const { logger, metrics } = options;
  const rejections = createRejectionLog(logger);
  function hook(name: 'github' | 'generic', source: SecretSource): Handler {
    return async (req, res) => {
      if (options.stopping()) {
        metrics.countWebhook(name, 'unavailable');
        sendJson(res, 503, { error: 'shutting down' }, { connection: 'close' });
        return;
      }
      // An emptied or deleted secret file turns the hooks off: 404, like no secret at all.
      const secrets = await source.current();
      if (secrets.length === 0) {
        metrics.countWebhook(name, 'disabled');
        sendJson(res, 404, { error: 'not found' });
        return;
      }
      const read = await readBodyLimited(req, MAX_WEBHOOK_BYTES);
      if (read.kind === 'too-large') {
        metrics.countWebhook(name, 'too-large');
        rejections.record(name, 'too-large');
        sendTooLarge(req, res);
        return;
      }
      if (read.kind === 'aborted') {
        metrics.countWebhook(name, 'aborted');
        return;
      }
      const decision: HookDecision =
        name === 'github'
          ? decideGithubHook(req.headers, read.body, secrets, options.branch)
          : decideGenericHook(req.headers, read.body, secrets);
      metrics.countWebhook(name, decision.outcome);
      if (decision.outcome === 'unauthorized' || decision.outcome === 'bad-request') {
        rejections.record(name, decision.outcome);
      } else if (decision.trigger === undefined) {
        logger.debug({ event: 'webhook.ignored', hook: name, outcome: decision.outcome }, 'webhook ignored');
      }
      // A shutdown may have begun while the body streamed in: the trigger would be dropped.
      if (decision.trigger !== undefined && options.stopping()) {
        metrics.countWebhook(name, 'unavailable');
        sendJson(res, 503, { error: 'shutting down' }, { connection: 'close' });
        return;
      }
      sendJson(res, decision.status, decision.body);
      if (decision.trigger !== undefined) options.onHook(decision.trigger);
    };
  }

  // Hook routes do not exist without a secret, whatever the method: 404 like any unknown path.
  const hookRoutes: Record<string, Route> =
    options.secrets === undefined || !options.serves.hooks
      ? {}
      : {
          '/hooks/github': { methods: ['POST'], handle: hook('github', options.secrets) },
          '/hooks/generic': { methods: ['POST'], handle: hook('generic', options.secrets) },
        };
  const operationRoutes: Record<string, Route> = {
    '/healthz': { methods: ['GET', 'HEAD'], handle: (_req, res) => sendJson(res, 200, { status: 'ok' }) },
    // Ready once loaded, for good: an API outage (Degraded) must not take the pod out of the
    // Service, or the webhook of the fix could not reach it. The body tells the two apart.
    '/readyz': {
      methods: ['GET', 'HEAD'],
      handle: (_req, res) => {
        if (!options.ready()) sendJson(res, 503, { status: 'not ready' });
        else sendJson(res, 200, { status: options.degraded() ? 'degraded' : 'ready' });
      },
    },
    '/metrics': {
      methods: ['GET', 'HEAD'],
      handle: async (_req, res) => {
        const text = await metrics.render();
        res.writeHead(200, {
          'content-type': metrics.contentType,
          'content-length': String(Buffer.byteLength(text)),
          'cache-control': 'no-store',
        });
        res.end(text);
      },
    },
    '/status': {
      methods: ['GET', 'HEAD'],
      handle: async (req, res) => {
        // The page polls /status every few seconds: an unchanged document answers 304.
        const etag = options.statusBody.etag();
        if (matches(req, etag)) {
          res.writeHead(304, { etag, 'cache-control': 'no-cache' });
          res.end();
          return;
        }
        res.writeHead(200, {
          'content-type': JSON_TYPE,
          'x-content-type-options': 'nosniff',
          etag,
          'cache-control': 'no-cache',
        });
        if (req.method === 'HEAD') {
          res.end();
          return;
        }
        // A client that goes away mid-document ends the stream; there is nothing to tell it.
        await pipeline(options.statusBody.stream(), res).catch(() => undefined);
      },
    },
    ...(options.page === undefined ? {} : pageRoutes(options.page)),
  };
  const routes: Record<string, Route> = {
    ...hookRoutes,
    ...(options.serves.operations ? operationRoutes : {}),
  };

  const server: Server = createServer(
    {
      // A hook is a few KiB: a client that takes longer than this to send headers or body is dropped.
      headersTimeout: 10_000,
      requestTimeout: 30_000,
      keepAliveTimeout: 5_000,
      connectionsCheckingInterval: 1_000,
      maxHeaderSize: 16 * 1024,
    },
    (req, res) => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const route = Object.hasOwn(routes, path) ? routes[path] : undefined;
      if (route === undefined) {
        sendJson(res, 404, { error: 'not found' });
        return;
      }
      if (!route.methods.includes(req.method ?? '')) {
        sendJson(res, 405, { error: 'method not allowed' }, { allow: route.methods.join(', ') });
        return;
      }
      Promise.resolve(route.handle(req, res)).catch((err: unknown) => {
        logger.error({ err, path }, 'http handler failed');
        if (!res.headersSent) sendJson(res, 500, { error: 'internal error' });
        else res.destroy();
      });
    },
  );
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      reject(
        new ReconcileError(
          'USAGE',
          `cannot listen on ${options.host}:${options.port}: ${err.code ?? err.message}`,
        ),
      );
    };
    server.once('error', onError);
    server.listen(options.port, options.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;

  return {
    url: `http://${shownHost}:${address.port}`,
    close() {
      rejections.flush();
      closing ??= new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
