/**
 * Webhook receivers: read the body under a cap, verify the HMAC over the raw bytes, decide.
 * A hook never reconciles inline; an accepted one only asks for a run and is answered 202 at
 * once (flux's notification receiver). Replies say what happened in one word and nothing an
 * attacker could use: no reason for a signature failure, no configured branch, no revision.
 */
import { stat } from 'node:fs/promises';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Logger } from '../log.js';
import { readSecretFile, verifySignature } from './signatures.js';

/** Largest body a hook accepts (GitHub caps payloads at 25 MB, but pushes are far smaller). */
export const MAX_WEBHOOK_BYTES = 1024 * 1024;

/** A body read under a cap. */
export type BodyRead =
  | { readonly kind: 'ok'; readonly body: Buffer }
  | { readonly kind: 'too-large' }
  | { readonly kind: 'aborted' };

/**
 * Reads `req`'s body, at most `limit` bytes. A declared Content-Length over the limit is
 * refused before a byte is read; otherwise bytes are counted as they stream and reading stops
 * at the first chunk past the limit (the request is paused, never buffered whole).
 */
export function readBodyLimited(req: IncomingMessage, limit: number): Promise<BodyRead> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return Promise.resolve({ kind: 'too-large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    function settle(result: BodyRead): void {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('close', onClose);
      resolve(result);
    }
    function onData(chunk: Buffer): void {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        chunks.length = 0;
        settle({ kind: 'too-large' });
        return;
      }
      chunks.push(chunk);
    }
    function onEnd(): void {
      settle({ kind: 'ok', body: Buffer.concat(chunks, size) });
    }
    function onAbort(): void {
      settle({ kind: 'aborted' });
    }
    function onClose(): void {
      if (!req.complete) settle({ kind: 'aborted' });
    }
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onAbort);
    req.on('close', onClose);
  });
}

/** What a hook decided: the reply, a one-word outcome for the metric and, when accepted, the trigger. */
export interface HookDecision {
  readonly status: number;
  readonly body: Readonly<Record<string, unknown>>;
  /** `accepted`, `ignored`, `pong`, `unauthorized`, `bad-request`. */
  readonly outcome: string;
  /** Present when a reconcile should be requested; safe to log (no secrets, no body). */
  readonly trigger?: Readonly<Record<string, unknown>>;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

const UNAUTHORIZED: HookDecision = {
  status: 401,
  body: { error: 'unauthorized' },
  outcome: 'unauthorized',
};
const BAD_REQUEST: HookDecision = { status: 400, body: { error: 'bad request' }, outcome: 'bad-request' };

/** A GitHub delivery id is a UUID; anything else is not echoed into logs. */
function deliveryId(headers: IncomingHttpHeaders): string | undefined {
  const id = header(headers, 'x-github-delivery');
  return id !== undefined && /^[0-9a-f-]{1,64}$/i.test(id) ? id : undefined;
}

/** The push payload, sent as JSON or as `payload=` in a form body (GitHub offers both). */
function parsePush(
  headers: IncomingHttpHeaders,
  body: Buffer,
): { ref?: unknown; after?: unknown } | undefined {
  try {
    const type = header(headers, 'content-type') ?? '';
    const text = body.toString('utf8');
    const json = type.startsWith('application/x-www-form-urlencoded')
      ? new URLSearchParams(text).get('payload')
      : text;
    if (json === null) return undefined;
    const parsed: unknown = JSON.parse(json);
    return typeof parsed === 'object' && parsed !== null ? (parsed as { ref?: unknown }) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `POST /hooks/github`: `X-Hub-Signature-256` must verify under one of `secrets`. `ping` is
 * answered 200; a `push` to `refs/heads/<branch>` is accepted (202 and a trigger); a push to
 * another ref or any other event is answered 202 with a note and triggers nothing.
 */
export function decideGithubHook(
  headers: IncomingHttpHeaders,
  body: Buffer,
  secrets: readonly string[],
  branch: string,
): HookDecision {
  if (!verifySignature(secrets, body, header(headers, 'x-hub-signature-256'))) return UNAUTHORIZED;
  const event = header(headers, 'x-github-event');
  const delivery = deliveryId(headers);
  if (event === 'ping') return { status: 200, body: { ok: true, event: 'ping' }, outcome: 'pong' };
  if (event !== 'push') {
    return { status: 202, body: { accepted: false, note: 'event ignored' }, outcome: 'ignored' };
  }
  const push = parsePush(headers, body);
  if (push === undefined || typeof push.ref !== 'string') return BAD_REQUEST;
  if (push.ref !== `refs/heads/${branch}`) {
    return { status: 202, body: { accepted: false, note: 'ref not tracked' }, outcome: 'ignored' };
  }
  const after =
    typeof push.after === 'string' && /^[0-9a-f]{40,64}$/.test(push.after) ? push.after : undefined;
  return {
    status: 202,
    body: { accepted: true },
    outcome: 'accepted',
    trigger: {
      hook: 'github',
      githubEvent: 'push',
      ref: push.ref,
      ...(after === undefined ? {} : { after }),
      ...(delivery === undefined ? {} : { delivery }),
    },
  };
}

/** `POST /hooks/generic`: `X-Signature: sha256=<hex>` over the raw body; accepted → 202 and a trigger. */
export function decideGenericHook(
  headers: IncomingHttpHeaders,
  body: Buffer,
  secrets: readonly string[],
): HookDecision {
  if (!verifySignature(secrets, body, header(headers, 'x-signature'))) return UNAUTHORIZED;
  return { status: 202, body: { accepted: true }, outcome: 'accepted', trigger: { hook: 'generic' } };
}

/** The webhook secrets, re-read when the file changes (rotation without a restart). */
export interface SecretSource {
  /** The current secrets; none (the hooks answer 404) while the file is unreadable, gone or empty. */
  current(): Promise<readonly string[]>;
}

/**
 * Reads `file` now (throws USAGE when it is unreadable or holds no secret) and again whenever
 * its inode, size or modification time change — a Kubernetes Secret volume swaps a symlink,
 * so a rotated secret arrives without a restart. A file that later is emptied, deleted or
 * unreadable disables the hooks until it holds a secret again: an operator who empties it
 * means "no more hooks", and a revoked secret must never keep working.
 */
export async function createSecretSource(file: string, logger: Logger): Promise<SecretSource> {
  async function fingerprint(): Promise<string | undefined> {
    try {
      const s = await stat(file);
      return `${s.ino}:${s.size}:${s.mtimeMs}`;
    } catch {
      return undefined;
    }
  }
  let secrets: readonly string[] = await readSecretFile(file);
  let seen = await fingerprint();
  return {
    async current() {
      const now = await fingerprint();
      if (now === seen) return secrets;
      seen = now;
      try {
        secrets = await readSecretFile(file);
        logger.info({ event: 'webhook.secrets.reloaded', count: secrets.length }, 'webhook secrets reloaded');
      } catch {
        secrets = [];
        logger.warn(
          { event: 'webhook.secrets.unreadable' },
          'webhook secret file unreadable, gone or empty; the hooks answer 404 until it holds a secret',
        );
      }
      return secrets;
    },
  };
}
