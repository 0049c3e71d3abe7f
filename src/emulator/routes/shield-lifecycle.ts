/**
 * The Shield routes that create and delete objects (docs/design.md, Lifecycle of Shield objects), and the zone GET that tells a
 * client its plan and limits before it creates anything:
 * `POST /shield/waf/custom-rule`, `DELETE /shield/waf/custom-rule/{id}`,
 * `POST /shield/shield-zone/{sz}/access-lists`, `DELETE /shield/shield-zone/{sz}/access-lists/{id}`,
 * `GET /shield/shield-zone/{sz}`.
 *
 * Plan refusals come back as the real API sends them: **202** with the reason in the body
 * (docs/api-notes.md, Custom WAF rules; docs/api-notes.md, Access lists), which is not a success.
 */
import { sha256Hex } from '../../domain/checksum.js';
import { AccessListAction, ShieldPlanType } from '../../domain/enums.js';
import { customAccessListView } from '../records.js';
import type { Failure, Reply } from '../replies.js';
import {
  envelopeError,
  envelopeOk,
  SHIELD_ENVELOPE_PROFILE,
  SHIELD_PROBLEM_PROFILE,
  SHIELD_RULE_PROFILE,
} from '../replies.js';
import { shieldZoneView, zoneLimits } from '../shield-zone.js';
import { CreateCustomAccessListRequest } from '../validation/access-list.js';
import { check } from '../validation/issues.js';
import { CreateCustomWafRuleRequest, toRuleConfiguration } from '../validation/waf-rule.js';
import type { CustomWafRule } from '../wire.js';
import type { RequestContext, Route } from './types.js';
import { idParam, queryInt, validationFailure } from './types.js';

/** The API's own words for a Basic zone (PHP docs, docs/api-notes.md, Custom WAF rules). */
const BASIC_PLAN_RULE_MESSAGE =
  'We do not support Custom WAF Rule creation on our Free Tier of Bunny Shield, please upgrade to Advanced.';

/** The API's own words past the custom list limit (PHP docs, docs/api-notes.md, Access lists). */
function listLimitMessage(limit: number): string {
  return `Custom Access List limit exceeded. You can have a maximum of ${limit} custom lists. Please upgrade your Bunny Shield tier or contact support for assistance.`;
}

/** No source quotes this one; it is worded after the list limit's message. */
function ruleLimitMessage(limit: number): string {
  return `Custom WAF Rule limit exceeded. You can have a maximum of ${limit} custom WAF rules. Please upgrade your Bunny Shield tier or contact support for assistance.`;
}

/**
 * A refused rule create: 202 with the rule as sent, no id, and the reason in `errorResponse`
 * (the member `CustomWafRule` has for exactly this). The spec names the 202 type
 * `AcceptedResult`, ASP.NET's wrapper, not a body; see the README's divergences.
 */
function refusedRule(body: CreateCustomWafRuleRequest, failure: Failure): Reply {
  const rule: CustomWafRule = {
    id: 0,
    shieldZoneId: body.shieldZoneId,
    userId: null,
    ruleName: body.ruleName,
    ruleDescription: body.ruleDescription,
    ruleJson: null,
    ruleConfiguration: toRuleConfiguration(body.ruleConfiguration),
    errorResponse: envelopeError(failure),
  };
  return { status: 202, body: rule };
}

function createCustomWafRule(ctx: RequestContext): Reply {
  const checked = check(CreateCustomWafRuleRequest, ctx.body, ctx.strict);
  if (!checked.ok) return ctx.fail('invalid', validationFailure(checked.errors));
  const body = checked.value;
  const zone = ctx.state.shieldZone(body.shieldZoneId);
  if (zone === undefined) {
    return ctx.fail('notFound', { status: 404, detail: `Shield Zone ${body.shieldZoneId} was not found.` });
  }
  if (zone.planType === ShieldPlanType.Basic) {
    return refusedRule(body, {
      status: 202,
      detail: BASIC_PLAN_RULE_MESSAGE,
      errorKey: 'invalid_plan_type.custom_waf_rule',
    });
  }
  const limit = zoneLimits(zone).customWafRules;
  if (zone.ruleIds.length >= limit) {
    return refusedRule(body, {
      status: 202,
      detail: ruleLimitMessage(limit),
      errorKey: 'limit_exceeded.custom_waf_rule',
    });
  }
  const rule = ctx.state.addCustomRule({
    id: ctx.state.nextRuleId(),
    shieldZoneId: zone.id,
    userId: 'emulator-user',
    ruleName: body.ruleName,
    ruleDescription: body.ruleDescription,
    ruleJson: null,
    ruleConfiguration: toRuleConfiguration(body.ruleConfiguration),
    errorResponse: envelopeOk(),
  });
  return { status: 200, body: rule };
}

function deleteCustomWafRule(ctx: RequestContext): Reply {
  const id = idParam(ctx, 0, 'id');
  if (typeof id !== 'number') return id;
  if (ctx.state.customRule(id) === undefined) return ctx.fail('notFound', { status: 404 });
  ctx.state.removeCustomRule(id);
  return { status: 200, body: envelopeOk() };
}

function createCustomAccessList(ctx: RequestContext): Reply {
  const zoneId = idParam(ctx, 0, 'shieldZoneId');
  if (typeof zoneId !== 'number') return zoneId;
  const checked = check(CreateCustomAccessListRequest, ctx.body, ctx.strict);
  if (!checked.ok) return ctx.fail('invalid', validationFailure(checked.errors));
  const zone = ctx.state.shieldZone(zoneId);
  if (zone === undefined) {
    return ctx.fail('notFound', {
      status: 404,
      detail: `Shield Zone ${zoneId} was not found.`,
      errorKey: 'not_found.shield_zone',
    });
  }
  const body = checked.value;
  const content = body.content ?? '';
  if (body.checksum !== undefined && body.checksum !== null) {
    const expected = sha256Hex(content);
    if (body.checksum.toLowerCase() !== expected) {
      return ctx.fail('invalid', {
        status: 400,
        detail: `The checksum '${body.checksum}' is not the SHA-256 of the content (expected '${expected}').`,
        errorKey: 'checksum_mismatch.access_list',
      });
    }
  }
  let customLists = 0;
  for (const list of zone.accessLists.values()) if (list.kind === 'custom') customLists += 1;
  const limit = zoneLimits(zone).customLists;
  if (customLists >= limit) {
    return {
      status: 202,
      body: {
        error: envelopeError({
          status: 202,
          detail: listLimitMessage(limit),
          errorKey: 'limit_exceeded.access_list',
        }),
      },
    };
  }
  // A new list gets its configuration at once, with the defaults a seeded list gets
  // (enabled, Block); clients set their own through E3 afterwards (docs/api-notes.md, Access lists).
  const record = ctx.state.addAccessList({
    kind: 'custom',
    shieldZoneId: zone.id,
    listId: ctx.state.nextListId(),
    name: body.name,
    description: body.description ?? null,
    type: body.type,
    content,
    isEnabled: true,
    action: AccessListAction.Block,
  });
  return { status: 200, body: { data: customAccessListView(record), error: envelopeOk() } };
}

function deleteCustomAccessList(ctx: RequestContext): Reply {
  const zoneId = idParam(ctx, 0, 'shieldZoneId');
  if (typeof zoneId !== 'number') return zoneId;
  const id = idParam(ctx, 1, 'id');
  if (typeof id !== 'number') return id;
  const record = ctx.state.accessList(zoneId, id);
  // Managed lists cannot be deleted: to this route they do not exist, as to the custom-list GET.
  if (record === undefined || record.kind !== 'custom') {
    return ctx.fail('notFound', {
      status: 404,
      detail: `Custom access list ${id} was not found in Shield Zone ${zoneId}.`,
    });
  }
  ctx.state.removeAccessList(zoneId, id);
  return { status: 200, body: envelopeOk() };
}

function getShieldZone(ctx: RequestContext): Reply {
  const zoneId = idParam(ctx, 0, 'shieldZoneId');
  if (typeof zoneId !== 'number') return zoneId;
  const zone = ctx.state.shieldZone(zoneId);
  if (zone === undefined) {
    return ctx.fail('notFound', { status: 404, detail: `Shield Zone ${zoneId} was not found.` });
  }
  return { status: 200, body: { data: shieldZoneView(zone) } };
}

/** The listing's page size when `perPage` is absent (SPEC-SHIELD), and its largest. */
const ZONES_PER_PAGE = 10;
const MAX_ZONES_PER_PAGE = 1000;

/** `GET /shield/shield-zones?page=&perPage=`: the account's zones in id order, with the spec's PaginationResponse. */
function listShieldZones(ctx: RequestContext): Reply {
  const query = new URLSearchParams(ctx.rawQuery);
  const page = queryInt(query, 'page', 1);
  const perPage = queryInt(query, 'perPage', ZONES_PER_PAGE);
  if (
    page === undefined ||
    page < 1 ||
    perPage === undefined ||
    perPage < 1 ||
    perPage > MAX_ZONES_PER_PAGE
  ) {
    const detail = `page must be at least 1 and perPage between 1 and ${MAX_ZONES_PER_PAGE}.`;
    return ctx.fail('invalid', { status: 400, detail });
  }
  const zones = ctx.state.shieldZones();
  const totalPages = Math.ceil(zones.length / perPage);
  const start = (page - 1) * perPage;
  return {
    status: 200,
    body: {
      data: zones.slice(start, start + perPage).map(shieldZoneView),
      page: {
        totalCount: zones.length,
        totalPages,
        currentPage: page,
        nextPage: page < totalPages ? page + 1 : null,
        pageSize: perPage,
      },
    },
  };
}

/** The create, delete and zone routes. */
export const SHIELD_LIFECYCLE_ROUTES: readonly Route[] = [
  {
    method: 'POST',
    pattern: '/shield/waf/custom-rule',
    operation: 'createCustomWafRule',
    profile: SHIELD_RULE_PROFILE,
    body: 'required',
    handle: createCustomWafRule,
  },
  {
    method: 'DELETE',
    pattern: '/shield/waf/custom-rule/:id',
    operation: 'deleteCustomWafRule',
    profile: SHIELD_RULE_PROFILE,
    body: 'none',
    handle: deleteCustomWafRule,
  },
  {
    method: 'POST',
    pattern: '/shield/shield-zone/:shieldZoneId/access-lists',
    operation: 'createCustomAccessList',
    profile: SHIELD_ENVELOPE_PROFILE,
    body: 'required',
    handle: createCustomAccessList,
  },
  {
    method: 'DELETE',
    pattern: '/shield/shield-zone/:shieldZoneId/access-lists/:id',
    operation: 'deleteCustomAccessList',
    profile: SHIELD_PROBLEM_PROFILE,
    body: 'none',
    handle: deleteCustomAccessList,
  },
  {
    method: 'GET',
    pattern: '/shield/shield-zone/:shieldZoneId',
    operation: 'getShieldZone',
    profile: SHIELD_PROBLEM_PROFILE,
    body: 'none',
    handle: getShieldZone,
  },
  {
    method: 'GET',
    pattern: '/shield/shield-zones',
    operation: 'listShieldZones',
    profile: SHIELD_RULE_PROFILE,
    body: 'none',
    handle: listShieldZones,
  },
];
