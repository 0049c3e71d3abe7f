/**
 * The comparison `apply FILE` makes (engine/saved-plan.ts): a saved plan is the fresh plan only
 * when every live digest and every change's requests are the same; secrets compare by their
 * reference, never by value.
 */
import { describe, expect, it } from 'vitest';
import { SensitiveValue } from '../../../src/domain/sensitive.js';
import {
  bindSavedPlan,
  checkSavedRevision,
  parseSavedPlan,
  serializeSavedPlan,
} from '../../../src/engine/saved-plan.js';
import type { Plan, PlannedChange } from '../../../src/engine/types.js';

function change(value: string | SensitiveValue): PlannedChange {
  return {
    subject: 'ContainerApp/shop',
    kind: 'ContainerApp',
    name: 'shop',
    source: { file: 'shop.yaml', line: 1, col: 1 },
    action: 'update',
    cause: 'unknown',
    diffs: [{ path: 'x', live: 1, desired: 2 }],
    requests: [
      {
        operation: 'patchApp',
        method: 'PATCH',
        path: '/mc/apps/a1',
        body: { containerTemplates: [{ name: 'web', environmentVariables: [{ name: 'DB', value }] }] },
      } as unknown as PlannedChange['requests'][number],
    ],
    digest: 'd',
  };
}

function plan(value: string | SensitiveValue): Plan {
  return {
    version: 1,
    revision: 'abc',
    createdAt: '2026-11-28T00:00:00.000Z',
    changes: [change(value)],
    summary: { resources: 1, toUpdate: 1, unchanged: 0, skipped: 0, errors: 0, destructive: 0 },
  };
}

const ORIGIN = { revision: 'abc', configDigest: 'f'.repeat(64) };
const OPTIONS = { prune: false, force: false, driftMode: 'correct', maxChangePercent: 30 } as const;

function saved(value: string | SensitiveValue, live: Record<string, string>) {
  return parseSavedPlan(serializeSavedPlan(plan(value), ORIGIN, OPTIONS, live), 'plan.json');
}

describe('saved plans', () => {
  it('binds the fresh plan when digests and requests are the same, a secret by its reference', () => {
    const file = saved(new SensitiveValue('s3cret-then', 'env:EDGESYNC_SECRET_DB'), {
      'ContainerApp/shop': 'd1',
    });
    const fresh = plan(new SensitiveValue('s3cret-now', 'env:EDGESYNC_SECRET_DB'));

    expect(bindSavedPlan(file, fresh, { 'ContainerApp/shop': 'd1' })).toBe(fresh);
    expect(JSON.stringify(file)).not.toContain('s3cret');
  });

  it('refuses when only a live digest differs (the requests would be the same)', () => {
    const file = saved('plain', { 'ContainerApp/shop': 'd1', 'DnsZone/z': 'd2' });

    expect(() =>
      bindSavedPlan(file, plan('plain'), { 'ContainerApp/shop': 'd1', 'DnsZone/z': 'changed' }),
    ).toThrow(
      'live state changed since the plan was made: DnsZone/z; nothing was sent: plan again and review',
    );
  });

  it('refuses when a request differs, or a secret now comes from another source', () => {
    const file = saved(new SensitiveValue('v', 'env:EDGESYNC_SECRET_DB'), {});

    expect(() => bindSavedPlan(file, plan('literal now'), {})).toThrow('ContainerApp/shop');
    expect(() => bindSavedPlan(file, plan(new SensitiveValue('v', 'file:db')), {})).toThrow(
      'ContainerApp/shop',
    );
  });

  it('refuses another revision or another config digest at the same revision', () => {
    const file = saved('plain', {});

    expect(() => checkSavedRevision(file, { ...ORIGIN, revision: 'def' })).toThrow(
      'the saved plan was made at revision abc, but the config is now at revision def; nothing was sent: plan again',
    );
    expect(() => checkSavedRevision(file, { ...ORIGIN, configDigest: 'e'.repeat(64) })).toThrow(
      'the saved plan was made at revision abc, but the files changed since (config digest ffffffffffff then, eeeeeeeeeeee now)',
    );
    expect(() => checkSavedRevision(file, ORIGIN)).not.toThrow();
  });

  it('refuses a plan read from another API', () => {
    const file = parseSavedPlan(
      serializeSavedPlan(plan('plain'), { ...ORIGIN, api: 'https://staging.example' }, OPTIONS, {}),
      'plan.json',
    );

    expect(() => checkSavedRevision(file, { ...ORIGIN, api: 'https://api.bunny.net' })).toThrow(
      'the saved plan was made against the API at https://staging.example, not https://api.bunny.net; nothing was sent',
    );
  });
});
