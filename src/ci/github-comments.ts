/**
 * The pull request's plan comment through GitHub's REST API (issue comments: list, create,
 * update): the one comment that starts with the marker is edited, or one is created. Not
 * `src/api/`: a different peer, with its own undici Agent, closed after use.
 *
 * The token goes into the Authorization header and nowhere else; no reply body is ever
 * quoted in a message.
 */
import { Agent, request } from 'undici';
import { ReconcileError } from '../errors.js';

export interface CommentTarget {
  /** `https://api.github.com`, or a GitHub Enterprise Server's `https://host/api/v3`. */
  readonly apiUrl: string;
  readonly token: string;
  /** `owner/name`. */
  readonly repository: string;
  readonly pullRequest: number;
}

interface IssueComment {
  readonly id: number;
  readonly body?: string | null;
  readonly user?: { readonly type?: string } | null;
}

const TIMEOUT_MS = 20_000;
/** Pages of 100 comments read at most while looking for the marker. */
const MAX_PAGES = 50;

/** The URL of the `rel="next"` link of a Link header, if any. */
function nextLink(link: string | string[] | undefined): string | undefined {
  const text = Array.isArray(link) ? link.join(',') : (link ?? '');
  return /<([^>]+)>\s*;\s*rel="next"/.exec(text)?.[1];
}

async function call(
  agent: Agent,
  target: CommentTarget,
  method: 'GET' | 'POST' | 'PATCH',
  url: string,
  body?: unknown,
): Promise<{ json: unknown; link: string | string[] | undefined }> {
  const what = `${method} ${new URL(url).pathname}`;
  let reply: Awaited<ReturnType<typeof request>>;
  try {
    reply = await request(url, {
      method,
      dispatcher: agent,
      headers: {
        accept: 'application/vnd.github+json',
        authorization: `Bearer ${target.token}`,
        'user-agent': 'edgesync',
        'x-github-api-version': '2022-11-28',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
  } catch (err) {
    const error = err as Error & { code?: string };
    throw new ReconcileError('API_UNAVAILABLE', `GitHub ${what} failed: ${error.code ?? error.name}`);
  }
  if (reply.statusCode < 200 || reply.statusCode >= 300) {
    await reply.body.dump();
    const hint =
      reply.statusCode === 401 || reply.statusCode === 403 || reply.statusCode === 404
        ? ': the token needs `pull-requests: write` on this repository (a pull request from a fork gets a read-only token)'
        : '';
    throw new ReconcileError(
      reply.statusCode === 401 || reply.statusCode === 403 ? 'API_AUTH' : 'API_REJECTED',
      `GitHub ${what} answered ${reply.statusCode}${hint}`,
    );
  }
  return { json: await reply.body.json(), link: reply.headers.link };
}

/** The plan comment already on the pull request: a bot's comment whose body starts with `marker`. */
async function findComment(agent: Agent, target: CommentTarget, marker: string): Promise<number | undefined> {
  let url: string | undefined =
    `${target.apiUrl}/repos/${target.repository}/issues/${target.pullRequest}/comments?per_page=100`;
  for (let page = 0; url !== undefined && page < MAX_PAGES; page += 1) {
    const { json, link }: { json: unknown; link: string | string[] | undefined } = await call(
      agent,
      target,
      'GET',
      url,
    );
    if (!Array.isArray(json))
      throw new ReconcileError('API_BAD_RESPONSE', 'GitHub listed comments that are not a list');
    // A person can paste the marker; only a bot's comment (the workflow's token) is taken as ours.
    const ours = (json as IssueComment[]).find(
      (c) => typeof c.body === 'string' && c.body.startsWith(marker) && c.user?.type === 'Bot',
    );
    if (ours !== undefined) return ours.id;
    url = nextLink(link);
  }
  return undefined;
}

/** Edits the plan comment, or creates it; returns what was done and the comment's id. */
export async function upsertComment(
  target: CommentTarget,
  marker: string,
  body: string,
): Promise<{ action: 'created' | 'updated'; id: number }> {
  const agent = new Agent({ connections: 1, connectTimeout: TIMEOUT_MS });
  try {
    const existing = await findComment(agent, target, marker);
    if (existing !== undefined) {
      await call(
        agent,
        target,
        'PATCH',
        `${target.apiUrl}/repos/${target.repository}/issues/comments/${existing}`,
        {
          body,
        },
      );
      return { action: 'updated', id: existing };
    }
    const { json } = await call(
      agent,
      target,
      'POST',
      `${target.apiUrl}/repos/${target.repository}/issues/${target.pullRequest}/comments`,
      { body },
    );
    return { action: 'created', id: (json as IssueComment).id };
  } finally {
    await agent.close();
  }
}
