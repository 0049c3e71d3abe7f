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

/** A generic webhook: the payload as JSON, signed `X-Signature: sha256=<hex>` when a secret is set. */
export function webhookTarget(url: URL, secret: string | undefined, userAgent: string): EventTarget {
  return {
    info: {
      name: 'webhook',
      label: url.origin,
      secrets: [...urlSecrets(url), ...(secret === undefined ? [] : [secret])],
    },
    requestFor(event) {
      const body = JSON.stringify(payloadOf(event));
      return {
        url: url.href,
        headers: {
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
