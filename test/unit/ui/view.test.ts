/**
 * The status page's view data (ui/view.ts): health, overview, filters, runs and the generic
 * tables, from /status documents written out here.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { StatusDocument } from '../../../src/daemon/status.js';
import type { ResourceShape, StatusShape } from '../../../ui/status-shape.js';
import {
  filterOptionsOf,
  filterResources,
  genericTable,
  healthOf,
  NO_FILTER,
  overviewOf,
  relativeTime,
  runItemsOf,
  shortRevision,
} from '../../../ui/view.js';

const NOW = Date.parse('2026-11-28T12:00:00.000Z');

function resource(subject: string, fields: Partial<ResourceShape> = {}): ResourceShape {
  const [kind = '', name = ''] = subject.split('/');
  return {
    subject,
    kind,
    name,
    source: `${kind}.yaml:1:1`,
    zone: null,
    state: 'in-sync',
    drift: null,
    lastError: null,
    lastAppliedAt: null,
    lastCheckedAt: null,
    ...fields,
  };
}

const RESOURCES: ResourceShape[] = [
  resource('AccessList/office-ips', { zone: '4242', source: 'shield/zone-4242/lists.yaml:5:1' }),
  resource('DnsZone/example-com', { source: 'dns/zones.yaml:1:1' }),
  resource('WafCustomRule/block-sqli', {
    zone: '4242',
    state: 'report-only',
    drift: {
      cause: 'out-of-band',
      fields: ['ruleName'],
      diffs: [{ path: 'ruleName', live: '"Old"', desired: '"New"' }],
    },
  }),
  resource('WafCustomRule/geo-block', {
    zone: '5310',
    state: 'failed',
    lastError: {
      code: 'API_NOT_FOUND',
      message: 'custom rule 77 does not exist',
      at: '2026-11-28T11:59:00Z',
    },
  }),
];

function doc(fields: Partial<StatusShape> = {}): StatusShape {
  return {
    status: 'Ready',
    ready: true,
    degraded: false,
    revision: 'config:abc',
    lastAttemptedRevision: 'config:abc',
    lastAppliedRevision: 'config:abc',
    lastError: null,
    issues: [],
    retry: null,
    settleHold: null,
    lastSuccessAt: '2026-11-28T11:58:00.000Z',
    runs: [],
    counts: { pending: 0, 'in-sync': 2, suspended: 0, 'report-only': 1, failed: 1 },
    resources: RESOURCES,
    ...fields,
  };
}

describe('healthOf', () => {
  it('is Standby for a standby, before anything else', () => {
    expect(healthOf(doc({ role: 'standby', degraded: true })).label).toBe('Standby');
    expect(
      healthOf(doc({ role: 'standby', leader: { pid: 7, host: 'pod-a', since: '2026-11-28T11:00:00Z' } }))
        .detail,
    ).toBe(
      'Another edgesync leads the state store (pid 7 on host pod-a since 2026-11-28T11:00:00Z); this one writes nothing until it leads.',
    );
    expect(healthOf(doc({ role: 'standby', leader: null })).detail).toBe(
      'Another edgesync leads the state store; this one writes nothing until it leads.',
    );
  });

  it('is Stalled while the config does not validate, naming how many problems', () => {
    const health = healthOf(
      doc({ status: 'Stalled', issues: [{ location: 'a.yaml:1:1', message: 'bad' }], degraded: true }),
    );
    expect([health.label, health.tone, health.detail]).toEqual([
      'Stalled',
      'bad',
      'The desired state does not validate (1 problem); nothing is written until the files change.',
    ]);
  });

  it('is Degraded with the failed count, or the last run’s error code when none is failed', () => {
    expect(healthOf(doc({ degraded: true })).detail).toBe('1 resource is failed.');
    expect(
      healthOf(
        doc({
          degraded: true,
          counts: { failed: 0 },
          lastError: { code: 'API_UNAVAILABLE', message: 'x' },
        }),
      ).detail,
    ).toBe('The last run failed: API_UNAVAILABLE.');
  });

  it('is Ready when nothing is failed, says what differs unwritten, and when a run is in progress', () => {
    const health = healthOf(doc({ status: 'Reconciling', counts: { 'in-sync': 3, 'report-only': 1 } }));
    expect([health.label, health.reconciling, health.detail]).toEqual([
      'Ready',
      true,
      'Nothing is failed; 1 resource differs from the YAML and edgesync does not write it (report-only or suspended).',
    ]);
    expect(healthOf(doc({ counts: { 'in-sync': 4 } })).detail).toBe('Nothing is failed.');
    expect(healthOf(doc({ ready: false, revision: null })).label).toBe('Starting');
  });
});

describe('overviewOf', () => {
  it('lists revisions, last success, settle hold and retry, and the counts in page order', () => {
    const overview = overviewOf(
      doc({
        lastAttemptedRevision: '0123456789abcdef0123456789abcdef01234567',
        retry: { attempt: 2, at: '2026-11-28T12:00:30.000Z', code: 'API_UNAVAILABLE' },
        settleHold: {
          trigger: 'file-change',
          revision: 'config:abc',
          since: '2026-11-28T11:59:50.000Z',
          settleAt: '2026-11-28T12:00:05.000Z',
          deferrals: 1,
          deletions: [{ subject: 'WafCustomRule/old', action: 'delete', fields: [] }],
          deletionsOmitted: 2,
        },
      }),
      NOW,
    );

    expect(overview.items.map((item) => [item.label, item.value])).toEqual([
      ['Revision applied', 'config:abc'],
      ['Revision attempted', '0123456789ab'],
      ['Last success', '2 min ago'],
      ['Settle hold', 'deletions wait, settle run in 5 s'],
      ['Retry', 'attempt 2 in 30 s after API_UNAVAILABLE'],
    ]);
    expect(overview.counts.map((c) => [c.state, c.count])).toEqual([
      ['in-sync', 2],
      ['pending', 0],
      ['report-only', 1],
      ['suspended', 0],
      ['failed', 1],
    ]);
    expect(overview.held).toEqual(['WafCustomRule/old (delete)', '… 2 more']);
    const withRun = overviewOf(
      doc({
        runs: [
          {
            revision: 'config:abc',
            trigger: 'webhook',
            startedAt: '2026-11-28T11:59:30.000Z',
            durationMs: 80,
            result: 'failed',
            counts: {},
          },
        ],
      }),
      NOW,
    );
    expect(withRun.items[2]).toEqual({
      label: 'Last run',
      value: 'failed, webhook, 30 s ago',
      at: '2026-11-28T11:59:30.000Z',
      tone: 'bad',
    });
    expect(overview.total).toBe(4);
  });
});

describe('resource filters', () => {
  it('offers the kinds, states and zones present, states in page order, zones numerically', () => {
    expect(filterOptionsOf(RESOURCES)).toEqual({
      kinds: ['AccessList', 'DnsZone', 'WafCustomRule'],
      states: [
        { value: 'in-sync', label: 'In sync' },
        { value: 'report-only', label: 'Report only' },
        { value: 'failed', label: 'Failed' },
      ],
      zones: ['4242', '5310'],
    });
  });

  it('filters by kind, state and zone together, and searches subject, source and error', () => {
    const subjects = (filter: Partial<typeof NO_FILTER>) =>
      filterResources(RESOURCES, { ...NO_FILTER, ...filter }).map((r) => r.subject);

    expect(subjects({})).toHaveLength(4);
    expect(subjects({ kind: 'WafCustomRule' })).toEqual([
      'WafCustomRule/block-sqli',
      'WafCustomRule/geo-block',
    ]);
    expect(subjects({ kind: 'WafCustomRule', zone: '5310' })).toEqual(['WafCustomRule/geo-block']);
    expect(subjects({ state: 'report-only' })).toEqual(['WafCustomRule/block-sqli']);
    expect(subjects({ zone: '4242', state: 'failed' })).toEqual([]);
    expect(subjects({ text: 'zone-4242' })).toEqual(['AccessList/office-ips']);
    expect(subjects({ text: 'NOT_FOUND' })).toEqual(['WafCustomRule/geo-block']);
    expect(subjects({ text: 'waf  sqli' })).toEqual(['WafCustomRule/block-sqli']);
  });
});

describe('runItemsOf', () => {
  it('keeps /status order, words the non-zero counts, and carries changes and errors', () => {
    const items = runItemsOf([
      {
        revision: 'config:b',
        trigger: 'file-change',
        startedAt: '2026-11-28T11:59:00.000Z',
        durationMs: 1540,
        result: 'failed',
        counts: { applied: 1, unchanged: 0, skipped: 0, failed: 1 },
        changes: [
          {
            subject: 'WafCustomRule/geo-block',
            action: 'update',
            outcome: 'failed',
            error: { code: 'API_NOT_FOUND', message: 'gone' },
          },
        ],
        changesOmitted: 3,
      },
      {
        revision: 'config:a',
        trigger: 'startup',
        startedAt: '2026-11-28T11:50:00.000Z',
        durationMs: 310,
        result: 'success',
        counts: { applied: 0, unchanged: 4 },
      },
    ]);

    expect(items.map((run) => [run.trigger, run.result, run.tone, run.duration, run.counts])).toEqual([
      ['file-change', 'failed', 'bad', '1.5 s', '1 applied, 1 failed'],
      ['startup', 'success', 'ok', '310 ms', '4 unchanged'],
    ]);
    expect(items[0]?.changes[0]?.error?.code).toBe('API_NOT_FOUND');
    expect(items[0]?.changesOmitted).toBe(3);
    expect(items[1]?.changes).toEqual([]);
  });
});

describe('small formatting', () => {
  it('relative times, short revisions and generic tables', () => {
    expect(relativeTime('2026-11-28T11:59:58.000Z', NOW)).toBe('2 s ago');
    expect(relativeTime('2026-11-28T14:00:00.000Z', NOW)).toBe('in 2 h');
    expect(relativeTime(null, NOW)).toBe('—');
    expect(shortRevision('config:abcdef')).toBe('config:abcdef');
    expect(
      genericTable([{ reason: 'prune off', kind: 'WafCustomRule', id: 7, extra: { a: 1 } }], ['kind', 'id']),
    ).toEqual({
      columns: ['kind', 'id', 'reason', 'extra'],
      rows: [['WafCustomRule', '7', 'prune off', '{"a":1}']],
    });
  });
});

describe('the page’s shape of /status', () => {
  it('is what the daemon serves: a field renamed or retyped on one side fails the type check', () => {
    expectTypeOf<StatusDocument>().toExtend<StatusShape>();
  });
});
