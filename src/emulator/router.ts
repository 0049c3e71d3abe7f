/**
 * Path matching for the route table: segments compared one by one, routes grouped by
 * segment count so a request only looks at the few patterns of its length.
 */
import type { Route } from './routes/types.js';

/** A request that found its route. */
interface RouteMatch {
  route: Route;
  params: string[];
}

/** Outcome of matching: a route, a path that exists with other methods (405), or nothing (404). */
export type MatchResult =
  | { kind: 'found'; match: RouteMatch }
  | { kind: 'method'; allowed: string[] }
  | { kind: 'none' };

interface CompiledRoute {
  route: Route;
  /** Lower-cased literal per segment; null where the pattern has a parameter. */
  literals: (string | null)[];
}

function splitPath(path: string): string[] {
  let trimmed = path;
  // ASP.NET routing ignores one trailing slash.
  if (trimmed.length > 1 && trimmed.endsWith('/')) trimmed = trimmed.slice(0, -1);
  return trimmed.slice(1).split('/');
}

/** Compiled route table. Among patterns of one length, the first listed wins. */
export class Router {
  readonly #byLength = new Map<number, CompiledRoute[]>();

  constructor(routes: readonly Route[]) {
    for (const route of routes) {
      const literals = splitPath(route.pattern).map((s) => (s.startsWith(':') ? null : s.toLowerCase()));
      const bucket = this.#byLength.get(literals.length) ?? [];
      bucket.push({ route, literals });
      this.#byLength.set(literals.length, bucket);
    }
  }

  /** Matches a path (no query string) for a method. */
  match(method: string, path: string): MatchResult {
    const segments = splitPath(path);
    const bucket = this.#byLength.get(segments.length);
    if (bucket === undefined) return { kind: 'none' };
    let allowed: string[] | undefined;
    for (const compiled of bucket) {
      const params = matchSegments(compiled.literals, segments);
      if (params === undefined) continue;
      if (compiled.route.method === method)
        return { kind: 'found', match: { route: compiled.route, params } };
      allowed ??= [];
      if (!allowed.includes(compiled.route.method)) allowed.push(compiled.route.method);
    }
    return allowed === undefined ? { kind: 'none' } : { kind: 'method', allowed };
  }
}

function matchSegments(
  literals: readonly (string | null)[],
  segments: readonly string[],
): string[] | undefined {
  const params: string[] = [];
  for (let i = 0; i < literals.length; i += 1) {
    const literal = literals[i];
    const segment = segments[i] as string;
    if (literal === null) {
      if (segment === '') return undefined;
      try {
        params.push(decodeURIComponent(segment));
      } catch {
        return undefined;
      }
    } else if (literal !== segment && literal !== segment.toLowerCase()) {
      return undefined;
    }
  }
  return params;
}
