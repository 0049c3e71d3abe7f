/**
 * Event targets: the generic webhook and Slack. Each turns an event into one POST; the
 * notifier queues it. What a target may say about itself in a log (`info.label`) is the URL's
 * origin only: a webhook or Slack URL often carries its credential in the path or the query.
 */
import { signBody } from '../signatures.js';
import type { OutboundRequest, TargetInfo } from './delivery.js';
import { payloadOf } from './payload.js';
import { slackMessage } from './slack-message.js';
import type { NotifyEvent } from './transitions.js';

/** A destination for events. */
export interface EventTarget {
  readonly info: TargetInfo;
  requestFor(event: NotifyEvent): OutboundRequest;
}

/** The parts of a URL that must never be logged: the whole of it, its path and query, its password. */
function urlSecrets(url: URL): string[] {
  return [
    url.href,
    `${url.pathname}${url.search}`,
    url.pathname,
    url.search,
    url.password,
    url.username,
  ].filter((part) => part.length > 1);
}

/**
 * `Authorization: Basic` for a URL's `user:password@` (undici drops userinfo silently), and the
 * URL without it.
 */
function splitUserinfo(url: URL): { href: string; headers: Record<string, string> } {
  if (url.username === '' && url.password === '') return { href: url.href, headers: {} };
  const bare = new URL(url.href);
  bare.username = '';
  bare.password = '';
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return {
    href: bare.href,
    headers: { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` },
  };
}

/**
 * A generic webhook: the payload as JSON, signed `X-Signature: sha256=<hex>` when a secret is
 * set; a `user:password@` in the URL becomes basic authentication.
 */
export function webhookTarget(url: URL, secret: string | undefined, userAgent: string): EventTarget {
  const { href, headers } = splitUserinfo(url);
  return {
    info: {
      name: 'webhook',
      label: url.origin,
      secrets: [...urlSecrets(url), ...Object.values(headers), ...(secret === undefined ? [] : [secret])],
    },
    requestFor(event) {
      const body = JSON.stringify(payloadOf(event));
      return {
        url: href,
        headers: {
          ...headers,
          'user-agent': userAgent,
          'x-edgesync-event': event.event,
          ...(secret === undefined ? {} : { 'x-signature': signBody(secret, body) }),
        },
        body,
      };
    },
  };
}

/** A Slack incoming webhook (the URL is the credential): `text` plus Block Kit blocks. */
export function slackTarget(url: URL, userAgent: string): EventTarget {
  return {
    info: { name: 'slack', label: url.origin, secrets: urlSecrets(url) },
    requestFor(event) {
      return {
        url: url.href,
        headers: { 'user-agent': userAgent },
        body: JSON.stringify(slackMessage(event)),
      };
    },
  };
}
