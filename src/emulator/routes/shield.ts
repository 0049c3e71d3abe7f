/**
 * Routes under /shield: E1, E2, E3, E6, E8, E9 and the companion reads (custom-rule listing
 * and GET, access-list listing and GET). Replies are camelCase; Shield envelopes carry
 * `error: {statusCode, success, message, errorKey}`.
 */
import { sha256Hex } from '../../domain/checksum.js';
import { defaultApiGuardianMetrics, defaultBotCategories } from '../defaults.js';
import { accessListDetailsView, customAccessListView } from '../records.js';
import type { Reply } from '../replies.js';
import { envelopeOk, SHIELD_PROBLEM_PROFILE, SHIELD_RULE_PROFILE, STATUS_ONLY_PROFILE } from '../replies.js';
import { zoneLimits } from '../shield-zone.js';
import {
  UpdateAccessListConfigurationRequest,
  UpdateCustomAccessListRequest,
} from '../validation/access-list.js';
import { check } from '../validation/issues.js';
import { toRuleConfiguration, UpdateCustomWafRuleRequest } from '../validation/waf-rule.js';
import type { RequestContext, Route } from './types.js';
import { badIdFailure, idParam, queryInt, validationFailure } from './types.js';

/** perPage bounds of the Shield listings (default 10 per the spec; 1000 is what clients use at most). */
const DEFAULT_PER_PAGE = 10;
const MAX_PER_PAGE = 1000;

function updateCustomWafRule(ctx: RequestContext): Reply {
  const id = idParam(ctx, 0, 'id');
  if (typeof id !== 'number') return id;
  const checked = check(UpdateCustomWafRuleRequest, ctx.body, ctx.strict);
  if (!checked.ok) return ctx.fail('invalid', validationFailure(checked.errors));
  const rule = ctx.state.customRule(id);
  if (rule === undefined) return ctx.fail('notFound', { status: 404 });
  const body = checked.value;
  // Null or omitted keeps the live value, the same reading as E2's documented rules.
  if (body.ruleName !== undefined && body.ruleName !== null) rule.ruleName = body.ruleName;
  if (body.ruleDescription !== undefined && body.ruleDescription !== null)
    rule.ruleDescription = body.ruleDescription;
  if (body.ruleConfiguration !== undefined)
    rule.ruleConfiguration = toRuleConfiguration(body.ruleConfiguration);
  return { status: 200, body: rule };
}

function getCustomWafRule(ctx: RequestContext): Reply {
  const id = idParam(ctx, 0, 'id');
  if (typeof id !== 'number') return id;
  const rule = ctx.state.customRule(id);
  if (rule === undefined) return ctx.fail('notFound', { status: 404 });
  return { status: 200, body: rule };
}

function listCustomWafRules(ctx: RequestContext): Reply {
  const zoneId = idParam(ctx, 0, 'shieldZoneId');
  if (typeof zoneId !== 'number') return zoneId;
  const query = new URLSearchParams(ctx.rawQuery);
  const page = queryInt(query, 'page', 1);
  const perPage = queryInt(query, 'perPage', DEFAULT_PER_PAGE);
  if (page === undefined || page < 1)
    return ctx.fail('invalid', badIdFailure('page', query.get('page') ?? ''));
  if (perPage === undefined || perPage < 1 || perPage > MAX_PER_PAGE) {
    return ctx.fail('invalid', {
      status: 400,
      title: 'One or more validation errors occurred.',
      detail: `perPage must be between 1 and ${MAX_PER_PAGE}.`,
      errors: [{ field: 'perPage', message: `perPage must be between 1 and ${MAX_PER_PAGE}.` }],
    });
  }
  const zone = ctx.state.shieldZone(zoneId);
  if (zone === undefined) return ctx.fail('notFound', { status: 404 });
  const total = zone.ruleIds.length;
  const totalPages = Math.ceil(total / perPage);
  const start = (page - 1) * perPage;
  const data = [];
  for (let i = start; i < Math.min(start + perPage, total); i += 1) {
    data.push(ctx.state.customRule(zone.ruleIds[i] as number));
  }
  return {
    status: 200,
    body: {
      data,
      page: {
        totalCount: total,
        totalPages,
        currentPage: page,
        nextPage: page < totalPages ? page + 1 : null,
        pageSize: perPage,
      },
      error: envelopeOk(),
    },
  };
}

function shieldZoneNotFound(ctx: RequestContext, zoneId: number): Reply {
  return ctx.fail('notFound', { status: 404, detail: `Shield Zone ${zoneId} was not found.` });
}

function listAccessLists(ctx: RequestContext): Reply {
  const zoneId = idParam(ctx, 0, 'shieldZoneId');
  if (typeof zoneId !== 'number') return zoneId;
  const zone = ctx.state.shieldZone(zoneId);
  if (zone === undefined) return shieldZoneNotFound(ctx, zoneId);
  const limits = zoneLimits(zone);
  const records = [...zone.accessLists.values()].sort((a, b) => a.listId - b.listId);
  const customLists = [];
  const managedLists = [];
  let customEntryCount = 0;
  for (const record of records) {
    if (record.kind === 'custom') {
      customLists.push(accessListDetailsView(record));
      customEntryCount += record.entryCount;
    } else {
      managedLists.push(accessListDetailsView(record));
    }
  }
  return {
    status: 200,
    body: {
      managedLists,
      customLists,
      customEntryCount,
      customEntryLimit: limits.customEntries,
      customListCount: customLists.length,
      customListLimit: limits.customLists,
      error: envelopeOk(),
    },
  };
}

function customListNotFound(ctx: RequestContext, zoneId: number, id: number): Reply {
  return ctx.fail('notFound', {
    status: 404,
    detail: `Custom access list ${id} was not found in Shield Zone ${zoneId}.`,
  });
}

function getCustomAccessList(ctx: RequestContext): Reply {
  const zoneId = idParam(ctx, 0, 'shieldZoneId');
  if (typeof zoneId !== 'number') return zoneId;
  const id = idParam(ctx, 1, 'id');
  if (typeof id !== 'number') return id;
  const record = ctx.state.accessList(zoneId, id);
  if (record === undefined || record.kind !== 'custom') return customListNotFound(ctx, zoneId, id);
  return { status: 200, body: { data: customAccessListView(record), error: envelopeOk() } };
}

function updateCustomAccessList(ctx: RequestContext): Reply {
  const zoneId = idParam(ctx, 0, 'shieldZoneId');
  if (typeof zoneId !== 'number') return zoneId;
  const id = idParam(ctx, 1, 'id');
  if (typeof id !== 'number') return id;
  const checked = check(UpdateCustomAccessListRequest, ctx.body, ctx.strict);
  if (!checked.ok) return ctx.fail('invalid', validationFailure(checked.errors));
  const record = ctx.state.accessList(zoneId, id);
  if (record === undefined || record.kind !== 'custom') return customListNotFound(ctx, zoneId, id);
  const body = checked.value;
  const content = body.content ?? record.content;
  if (body.checksum !== undefined && body.checksum !== null) {
    const expected = sha256Hex(content);
    if (body.checksum.toLowerCase() !== expected) {
      const message = `The checksum '${body.checksum}' is not the SHA-256 of the content (expected '${expected}').`;
      return ctx.fail('invalid', {
        status: 400,
        title: 'Checksum mismatch',
        detail: message,
        errors: [{ field: 'checksum', message }],
      });
    }
  }
  // Content is stored exactly as sent, trailing newline included, as the real server does.
  if (body.name !== undefined && body.name !== null) ctx.state.setAccessListName(zoneId, id, body.name);
  ctx.state.setAccessListContent(zoneId, id, content);
  return { status: 200, body: { data: customAccessListView(record), error: envelopeOk() } };
}

function updateAccessListConfiguration(ctx: RequestContext): Reply {
  const zoneId = idParam(ctx, 0, 'shieldZoneId');
  if (typeof zoneId !== 'number') return zoneId;
  const id = idParam(ctx, 1, 'id');
  if (typeof id !== 'number') return id;
  const checked = check(UpdateAccessListConfigurationRequest, ctx.body, ctx.strict);
  if (!checked.ok) return ctx.fail('invalid', validationFailure(checked.errors));
  const record = ctx.state.accessListConfig(zoneId, id);
  if (record === undefined) {
    return ctx.fail('notFound', {
      status: 404,
      detail: `Access list configuration ${id} was not found in Shield Zone ${zoneId}.`,
    });
  }
  const change: { isEnabled?: boolean; action?: number } = {};
  if (checked.value.isEnabled !== undefined && checked.value.isEnabled !== null)
    change.isEnabled = checked.value.isEnabled;
  if (checked.value.action !== undefined) change.action = checked.value.action;
  ctx.state.setConfiguration(zoneId, id, change);
  return {
    status: 200,
    body: { data: { isEnabled: record.isEnabled, action: record.action }, error: envelopeOk() },
  };
}

function getBotCategorization(ctx: RequestContext): Reply {
  const zoneId = idParam(ctx, 0, 'shieldZoneId');
  if (typeof zoneId !== 'number') return zoneId;
  const zone = ctx.state.shieldZone(zoneId);
  if (zone === undefined) return shieldZoneNotFound(ctx, zoneId);
  zone.botCategories ??= defaultBotCategories();
  return { status: 200, body: { categories: zone.botCategories, error: envelopeOk() } };
}

function getWafPlanSegmentation(ctx: RequestContext): Reply {
  return { status: 200, body: { data: ctx.state.wafCatalog, error: envelopeOk() } };
}

function getApiGuardianMetrics(ctx: RequestContext): Reply {
  const zoneId = idParam(ctx, 0, 'shieldZoneId');
  if (typeof zoneId !== 'number') return zoneId;
  const zone = ctx.state.shieldZone(zoneId);
  if (zone === undefined) return shieldZoneNotFound(ctx, zoneId);
  return {
    status: 200,
    body: { data: zone.apiGuardian ?? defaultApiGuardianMetrics(zone.id), error: envelopeOk() },
  };
}

/** Every /shield route. */
export const SHIELD_ROUTES: readonly Route[] = [
  {
    method: 'PATCH',
    pattern: '/shield/waf/custom-rule/:id',
    operation: 'updateCustomWafRule',
    profile: SHIELD_RULE_PROFILE,
    body: 'required',
    handle: updateCustomWafRule,
  },
  // The real API also has PUT on the E1 path, with the same body and replies (docs/api-notes.md, Custom WAF rules).
  {
    method: 'PUT',
    pattern: '/shield/waf/custom-rule/:id',
    operation: 'updateCustomWafRule',
    profile: SHIELD_RULE_PROFILE,
    body: 'required',
    handle: updateCustomWafRule,
  },
  {
    method: 'GET',
    pattern: '/shield/waf/custom-rule/:id',
    operation: 'getCustomWafRule',
    profile: SHIELD_RULE_PROFILE,
    body: 'none',
    handle: getCustomWafRule,
  },
  {
    method: 'GET',
    pattern: '/shield/waf/custom-rules/:shieldZoneId',
    operation: 'listCustomWafRules',
    profile: SHIELD_RULE_PROFILE,
    body: 'none',
    handle: listCustomWafRules,
  },
  {
    method: 'GET',
    pattern: '/shield/shield-zone/:shieldZoneId/access-lists',
    operation: 'listAccessLists',
    profile: SHIELD_PROBLEM_PROFILE,
    body: 'none',
    handle: listAccessLists,
  },
  {
    method: 'PATCH',
    pattern: '/shield/shield-zone/:shieldZoneId/access-lists/configurations/:id',
    operation: 'updateAccessListConfiguration',
    profile: SHIELD_PROBLEM_PROFILE,
    body: 'required',
    handle: updateAccessListConfiguration,
  },
  {
    method: 'GET',
    pattern: '/shield/shield-zone/:shieldZoneId/access-lists/:id',
    operation: 'getCustomAccessList',
    profile: SHIELD_PROBLEM_PROFILE,
    body: 'none',
    handle: getCustomAccessList,
  },
  {
    method: 'PATCH',
    pattern: '/shield/shield-zone/:shieldZoneId/access-lists/:id',
    operation: 'updateCustomAccessList',
    profile: SHIELD_PROBLEM_PROFILE,
    body: 'required',
    handle: updateCustomAccessList,
  },
  {
    method: 'GET',
    pattern: '/shield/shield-zone/:shieldZoneId/bot-categorization',
    operation: 'getBotCategorization',
    profile: SHIELD_PROBLEM_PROFILE,
    body: 'none',
    handle: getBotCategorization,
  },
  {
    method: 'GET',
    pattern: '/shield/waf/rules/plan-segmentation',
    operation: 'getWafPlanSegmentation',
    profile: STATUS_ONLY_PROFILE,
    body: 'none',
    handle: getWafPlanSegmentation,
  },
  {
    method: 'GET',
    pattern: '/shield/metrics/shield-zone/:shieldZoneId/api-guardian',
    operation: 'getApiGuardianMetrics',
    profile: STATUS_ONLY_PROFILE,
    body: 'none',
    handle: getApiGuardianMetrics,
  },
];
