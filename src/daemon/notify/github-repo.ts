/**
 * Which GitHub repository gets the commit statuses: `--github-repo owner/name`, or the config
 * repository's `origin` remote in any of git's URL forms — `https://host/owner/name(.git)`
 * (credentials in it are ignored, never kept), `ssh://git@host[:port]/owner/name.git` and
 * scp-like `git@host:owner/name.git`.
 */
import { gitRemoteUrl } from '../../git.js';

/** A repository as the statuses API addresses it. */
export interface GithubRepo {
  readonly owner: string;
  readonly name: string;
}

// GitHub's own rules: owners are alphanumerics and hyphens, names add `.` and `_`.
const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const NAME = /^[A-Za-z0-9._-]{1,100}$/;

/** `owner/name` → the repository; undefined when it is not one. */
export function parseRepoSlug(slug: string): GithubRepo | undefined {
  const [owner = '', name = '', ...rest] = slug.replace(/\.git$/, '').split('/');
  if (rest.length > 0 || !OWNER.test(owner) || !NAME.test(name) || name === '.' || name === '..')
    return undefined;
  return { owner, name };
}

/** The repository of a remote URL (https, ssh or scp-like form); undefined for anything else. */
export function parseRemoteUrl(remote: string): GithubRepo | undefined {
  let path: string | undefined;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(remote)) {
    try {
      const url = new URL(remote);
      if (!['https:', 'http:', 'ssh:', 'git:'].includes(url.protocol)) return undefined;
      path = url.pathname;
    } catch {
      return undefined;
    }
  } else {
    // scp-like: [user@]host:path — no scheme, and the colon comes before any slash.
    path = /^(?:[^@/\s]+@)?[^:/\s]+:(.+)$/.exec(remote)?.[1];
  }
  if (path === undefined) return undefined;
  const segments = path.replace(/^\/+|\/+$/g, '').split('/');
  return segments.length === 2 ? parseRepoSlug(segments.join('/')) : undefined;
}

/** The repository of `origin` in the work tree at `dir`; undefined without one that parses. */
export async function originRepo(dir: string): Promise<GithubRepo | undefined> {
  const remote = await gitRemoteUrl(dir, 'origin');
  return remote === undefined ? undefined : parseRemoteUrl(remote);
}
