/**
 * Loading a validated seed into a fresh state: Shield Zones with their rules and lists (ids
 * and configuration ids checked across the seed), apps built with E4's own code (so a seeded
 * app is exactly what a PATCH would have produced), DNS zones. Cross-object problems come
 * back as issues with paths, so the caller can point at the YAML line.
 */
import type { z } from 'zod';
import { createApp } from './app-patch.js';
import type { ZoneLimitOverrides } from './records.js';
import { envelopeOk } from './replies.js';
import type { CustomAccessListSeed, ManagedAccessListSeed, ParsedSeed } from './seed-schema.js';
import type { EmulatorState } from './store.js';
import { toRuleConfiguration } from './validation/waf-rule.js';
import type { ApiGuardianMetrics, BotCategorizationGroup } from './wire.js';

/** A problem found while populating, at a path of the seed document. */
export interface RawIssue {
  path: PropertyKey[];
  message: string;
}

function zoneLimitOverrides(zone: ParsedSeed['shieldZones'][number]): ZoneLimitOverrides {
  const limits: ZoneLimitOverrides = {};
  if (zone.customWafRulesLimit !== undefined) limits.customWafRules = zone.customWafRulesLimit;
  if (zone.customListLimit !== undefined) limits.customLists = zone.customListLimit;
  if (zone.customEntryLimit !== undefined) limits.customEntries = zone.customEntryLimit;
  if (zone.rateLimitRulesLimit !== undefined) limits.rateLimitRules = zone.rateLimitRulesLimit;
  return limits;
}

/**
 * Loads a validated seed into `state`; returns the cross-object problems (duplicate ids,
 * apps that do not build) instead of throwing, so they can be reported with positions.
 */
export function populate(seed: ParsedSeed, state: EmulatorState): RawIssue[] {
  const issues: RawIssue[] = [];
  const ruleIds = new Set<number>();
  if (seed.optimalRegion !== undefined) state.optimalRegion = seed.optimalRegion;
  if (seed.regions !== undefined) state.regions = seed.regions;
  if (seed.rollout !== undefined) {
    state.rollout.progressingMs = seed.rollout.progressingMs;
    for (const tag of seed.rollout.failingImageTags) state.rollout.failingImageTags.add(tag);
  }
  if (seed.registries !== undefined) state.registries = seed.registries;
  if (seed.wafCatalog !== undefined) state.wafCatalog = seed.wafCatalog;

  for (const [zi, zone] of seed.shieldZones.entries()) {
    const at = (...rest: PropertyKey[]): PropertyKey[] => ['shieldZones', zi, ...rest];
    if (state.shieldZone(zone.id) !== undefined) {
      issues.push({ path: at('id'), message: `duplicate shield zone id ${zone.id}` });
      continue;
    }
    const record = state.addShieldZone({
      id: zone.id,
      pullZoneId: zone.pullZoneId ?? zone.id,
      planType: zone.planType,
      limits: zoneLimitOverrides(zone),
    });
    if (zone.botCategories !== undefined) {
      // Each bot repeats its group's category, as the real reply does.
      record.botCategories = zone.botCategories.map(
        (group): BotCategorizationGroup => ({
          category: group.category,
          categoryAction: group.categoryAction,
          bots: group.bots.map((bot) => ({ ...bot, category: group.category })),
        }),
      );
    }
    if (zone.apiGuardian !== undefined) record.apiGuardian = zone.apiGuardian as ApiGuardianMetrics;

    for (const [r, rule] of zone.customRules.entries()) {
      if (ruleIds.has(rule.id)) {
        issues.push({ path: at('customRules', r, 'id'), message: `duplicate custom rule id ${rule.id}` });
        continue;
      }
      ruleIds.add(rule.id);
      state.addCustomRule({
        id: rule.id,
        shieldZoneId: zone.id,
        userId: rule.userId ?? 'emulator-user',
        ruleName: rule.ruleName,
        ruleDescription: rule.ruleDescription ?? null,
        ruleJson: rule.ruleJson ?? null,
        ruleConfiguration: toRuleConfiguration(rule.ruleConfiguration),
        errorResponse: envelopeOk(),
      });
    }

    const lists = [
      ...zone.customAccessLists.map((list, i) => ({
        kind: 'custom' as const,
        list,
        path: at('customAccessLists', i),
      })),
      ...zone.managedAccessLists.map((list, i) => ({
        kind: 'managed' as const,
        list,
        path: at('managedAccessLists', i),
      })),
    ];
    // Explicit configuration ids first, so generated ones never collide with them.
    const explicit = new Set<number>();
    for (const { list, path } of lists) {
      if (list.configurationId === undefined) continue;
      if (explicit.has(list.configurationId)) {
        issues.push({
          path: [...path, 'configurationId'],
          message: `duplicate configurationId ${list.configurationId}`,
        });
      }
      explicit.add(list.configurationId);
    }
    const reserved = new Set<number>();
    for (const entry of lists) {
      if (record.accessLists.has(entry.list.id)) {
        issues.push({
          path: [...entry.path, 'id'],
          message: `duplicate access list id ${entry.list.id} in this zone`,
        });
        continue;
      }
      let configurationId = entry.list.configurationId;
      if (configurationId === undefined) {
        do configurationId = state.nextNumber();
        while (explicit.has(configurationId) || reserved.has(configurationId));
      } else if (reserved.has(configurationId)) {
        continue;
      }
      reserved.add(configurationId);
      if (entry.kind === 'custom') {
        const list = entry.list as z.output<typeof CustomAccessListSeed>;
        if (list.content !== undefined && list.entries !== undefined) {
          issues.push({ path: [...entry.path, 'entries'], message: 'give content or entries, not both' });
          continue;
        }
        state.addAccessList({
          kind: 'custom',
          shieldZoneId: zone.id,
          listId: list.id,
          configurationId,
          name: list.name,
          description: list.description ?? null,
          type: list.type,
          content: list.content ?? (list.entries ?? []).join('\n'),
          isEnabled: list.isEnabled,
          action: list.action,
        });
      } else {
        const list = entry.list as z.output<typeof ManagedAccessListSeed>;
        state.addAccessList({
          kind: 'managed',
          shieldZoneId: zone.id,
          listId: list.id,
          configurationId,
          name: list.name,
          description: list.description ?? null,
          type: list.type,
          entryCount: list.entryCount,
          isEnabled: list.isEnabled,
          action: list.action,
          category: list.category,
          requiredPlan: list.requiredPlan,
          updateFrequency: list.updateFrequency,
        });
      }
    }
  }

  for (const [a, app] of seed.apps.entries()) {
    if (state.app(app.id) !== undefined) {
      issues.push({ path: ['apps', a, 'id'], message: `duplicate app id '${app.id}'` });
      continue;
    }
    const pinned = app.containerTemplates
      .map((t) => t.id)
      .filter((id): id is string => typeof id === 'string');
    if (new Set(pinned).size !== pinned.length) {
      issues.push({
        path: ['apps', a, 'containerTemplates'],
        message: 'container template ids must be unique',
      });
      continue;
    }
    const input: Parameters<typeof createApp>[0] = {
      id: app.id,
      name: app.name,
      containerTemplates: app.containerTemplates,
    };
    if (app.status !== undefined) input.status = app.status;
    if (app.runtimeType !== undefined) {
      const runtime = app.runtimeType.toLowerCase();
      if (runtime !== 'shared' && runtime !== 'reserved') {
        issues.push({ path: ['apps', a, 'runtimeType'], message: 'runtimeType must be shared or reserved' });
        continue;
      }
      input.runtimeType = runtime;
    }
    if (app.autoScaling !== undefined) input.autoScaling = app.autoScaling;
    if (app.regionSettings !== undefined) input.regionSettings = app.regionSettings;
    if (app.volumes !== undefined) input.volumes = app.volumes;
    const outcome = createApp(input, state);
    if (!outcome.ok) {
      for (const error of outcome.errors) {
        issues.push({ path: ['apps', a, ...pathSegments(error.field)], message: error.message });
      }
      continue;
    }
    state.setApp(outcome.app, outcome.nodeSelectors);
  }

  for (const [d, zone] of seed.dnsZones.entries()) {
    if (state.dnsZoneRecord(zone.id) !== undefined) {
      issues.push({ path: ['dnsZones', d, 'id'], message: `duplicate DNS zone id ${zone.id}` });
      continue;
    }
    state.addDnsZone(zone);
  }

  const pullZoneIds = new Set<number>();
  for (const [p, zone] of seed.pullZones.entries()) {
    if (pullZoneIds.has(zone.id)) {
      issues.push({ path: ['pullZones', p, 'id'], message: `duplicate pull zone id ${zone.id}` });
      continue;
    }
    pullZoneIds.add(zone.id);
    state.addPullZone(zone);
  }
  return issues;
}

/** `a[0].b` → ['a', 0, 'b'] (the inverse of fieldPath). */
function pathSegments(field: string): PropertyKey[] {
  const out: PropertyKey[] = [];
  for (const part of field.split('.')) {
    const match = /^([^[]*)((?:\[\d+\])*)$/.exec(part);
    if (match === null) {
      out.push(part);
      continue;
    }
    if (match[1] !== '') out.push(match[1] as string);
    for (const index of (match[2] ?? '').matchAll(/\[(\d+)\]/g)) out.push(Number(index[1]));
  }
  return out;
}
