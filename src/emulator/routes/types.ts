/**
 * The contract between the server and the route modules: a route is data (method, path
 * pattern, operation id, error profile, whether it takes a body) plus a synchronous handler.
 */
import type { OperationId } from '../operations.js';
import type { ErrorProfile, Failure, Reply } from '../replies.js';
import type { EmulatorState } from '../store.js';
import type { Application } from '../wire.js';

/** What a handler gets. `params` are the `:name` segments of the pattern, in order, URL-decoded. */
export interface RequestContext {
  readonly params: readonly string[];
  /** The raw query string (without '?'); parse it only where a route has query parameters. */
  readonly rawQuery: string;
  /** The parsed JSON body; undefined when the route takes none. */
  readonly body: unknown;
  readonly state: EmulatorState;
  /** Unknown body fields are errors (`--strict`) rather than ignored (the real server's way). */
  readonly strict: boolean;
  /** Renders a failure in the shape the route's profile gives that kind of failure. */
  fail(kind: 'invalid' | 'notFound', failure: Failure): Reply;
}

/** One operation on one path. */
export interface Route {
  readonly method: string;
  /** e.g. `/shield/waf/custom-rule/:id`; literal segments match case-insensitively, as ASP.NET routing does. */
  readonly pattern: string;
  readonly operation: OperationId;
  readonly profile: ErrorProfile;
  /** 'required': an empty or non-JSON body is a 400 before the handler runs. */
  readonly body: 'required' | 'none';
  /** Index of the param holding the MC application id, which every ErrorDetails of the route carries as `id`. */
  readonly appIdParam?: number;
  handle(ctx: RequestContext): Reply;
}

/** A non-negative safe integer as the API's integer parameters take it; undefined otherwise. */
function parseInteger(text: string): number | undefined {
  if (!/^\d{1,16}$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** The 400 for a parameter that is not an integer, worded as ASP.NET model binding words it. */
export function badIdFailure(name: string, raw: string): Failure {
  return {
    status: 400,
    title: 'One or more validation errors occurred.',
    detail: `The value '${raw}' is not valid for ${name}.`,
    errors: [{ field: name, message: `The value '${raw}' is not valid.` }],
  };
}

/**
 * The integer path parameter at `index`, or the route's 400 naming it `name`. Callers test
 * `typeof id !== 'number'` and return the reply.
 */
export function idParam(ctx: RequestContext, index: number, name: string): number | Reply {
  const raw = ctx.params[index] as string;
  return parseInteger(raw) ?? ctx.fail('invalid', badIdFailure(name, raw));
}

/** An integer query parameter: `fallback` when absent or empty, undefined when not an integer. */
export function queryInt(query: URLSearchParams, name: string, fallback: number): number | undefined {
  const text = query.get(name);
  if (text === null || text === '') return fallback;
  return parseInteger(text);
}

/** The 400 for a body that failed validation. */
export function validationFailure(errors: Failure['errors']): Failure {
  return {
    status: 400,
    title: 'One or more validation errors occurred.',
    detail: (errors ?? []).map((e) => `${e.field}: ${e.message}`).join(' '),
    errors: errors ?? [],
  };
}

/** The app the route's first parameter names, or the API's 404 for an unknown id. */
export function appOr404(ctx: RequestContext): Application | Reply {
  const appId = ctx.params[0] as string;
  return (
    ctx.state.app(appId) ??
    ctx.fail('notFound', { status: 404, detail: `Application '${appId}' was not found.` })
  );
}

export const isApp = (value: Application | Reply): value is Application => 'containerTemplates' in value;
