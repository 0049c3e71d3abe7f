/**
 * `GET /pullzone` (core API, PascalCase): the account's pull zones, for the names and
 * hostnames `inspect zones` shows beside each Shield Zone. Only the listing is emulated.
 */
import type { Reply } from '../replies.js';
import { CORE_PROFILE } from '../replies.js';
import type { RequestContext, Route } from './types.js';
import { queryInt } from './types.js';

/** SPEC-CORE `GET /pullzone`: perPage 5–1000, default 1000. */
const MIN_PER_PAGE = 5;
const MAX_PER_PAGE = 1000;

/**
 * `GET /pullzone?page=&perPage=&search=`. With `page` 0 (the default) the reply is a plain
 * array of every zone; with `page` ≥ 1 it is `{Items, CurrentPage, TotalItems, HasMoreItems}`,
 * as the spec describes.
 */
function listPullZones(ctx: RequestContext): Reply {
  const query = new URLSearchParams(ctx.rawQuery);
  const page = queryInt(query, 'page', 0);
  const perPage = queryInt(query, 'perPage', MAX_PER_PAGE);
  if (
    page === undefined ||
    page < 0 ||
    perPage === undefined ||
    perPage < MIN_PER_PAGE ||
    perPage > MAX_PER_PAGE
  ) {
    return ctx.fail('invalid', {
      status: 400,
      detail: `page must be at least 0 and perPage between ${MIN_PER_PAGE} and ${MAX_PER_PAGE}.`,
    });
  }
  const search = query.get('search')?.toLowerCase();
  const zones = ctx.state
    .pullZones()
    .filter((zone) => search === undefined || search === '' || zone.Name.toLowerCase().includes(search));
  if (page === 0) return { status: 200, body: zones };
  const start = (page - 1) * perPage;
  return {
    status: 200,
    body: {
      Items: zones.slice(start, start + perPage),
      CurrentPage: page,
      TotalItems: zones.length,
      HasMoreItems: start + perPage < zones.length,
    },
  };
}

export const PULL_ZONE_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    pattern: '/pullzone',
    operation: 'listPullZones',
    profile: CORE_PROFILE,
    body: 'none',
    handle: listPullZones,
  },
];
