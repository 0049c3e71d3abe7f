/**
 * `GET /status` bytes are serialised once per change of the status, and then only the pieces
 * that changed: a client polling a daemon of 10,000 resources must not cost it a 2.5 MB
 * document per request, nor per write of a run.
 */
import { describe, expect, it } from 'vitest';
import type { DesiredResource } from '../../../src/config/types.js';
import { createStatusTracker, type StatusTracker } from '../../../src/daemon/status.js';
import { createStatusBody } from '../../../src/daemon/status-body.js';
import type { RunRecord } from '../../../src/engine/state.js';

const RUN: RunRecord = {
  revision: 'config:abc',
  trigger: 'startup',
  startedAt: '2026-11-23T10:00:00.000Z',
  durationMs: 12,
  result: 'success',
  counts: { applied: 0 },
};

function text(pieces: readonly Buffer[]): string {
  return Buffer.concat(pieces).toString('utf8');
}

function parsed(pieces: readonly Buffer[]): Record<string, unknown> {
  return JSON.parse(text(pieces)) as Record<string, unknown>;
}

/** What a loader hands the tracker, reduced to what it reads. */
function desired(subject: string, line = 1): DesiredResource {
  const [kind, name] = subject.split('/') as [string, string];
  return { subject, kind, name, source: { file: `${kind}.yaml`, line, col: 1 } } as never;
}

/** A change of `subject` and its outcome. */
function outcome(
  subject: string,
  result: 'applied' | 'failed',
  at: Date,
): Parameters<StatusTracker['recordResult']> {
  const change = { subject, diffs: [{ path: 'spec.value' }], cause: 'drift', error: undefined };
  const reply =
    result === 'applied'
      ? { outcome: 'applied' }
      : { outcome: 'failed', error: { code: 'API_SERVER_ERROR', message: 'the API answered 500' } };
  return [change as never, reply as never, at];
}

/** Every write of the tracker, called once with some valid arguments. */
const WRITES: ReadonlyArray<[string, (t: StatusTracker) => void]> = [
  ['syncResources', (t) => t.syncResources([])],
  // A subject it does not track: the write changes nothing, but is counted all the same.
  [
    'recordResult',
    (t) => t.recordResult({ subject: 'DnsZone/x' } as never, { outcome: 'applied' } as never, new Date()),
  ],
  ['runStarted', (t) => t.runStarted()],
  ['runFinished', (t) => t.runFinished()],
  ['attempted', (t) => t.attempted('config:1')],
  ['loaded', (t) => t.loaded('config:2')],
  ['stalled', (t) => t.stalled([], { code: 'CONFIG_INVALID', message: 'bad', at: RUN.startedAt })],
  ['setLastError', (t) => t.setLastError(null)],
  ['setRunError', (t) => t.setRunError(null)],
  ['applied', (t) => t.applied('config:2', new Date(RUN.startedAt))],
  ['setPull', (t) => t.setPull({ ok: true, at: RUN.startedAt })],
  ['setRetry', (t) => t.setRetry(null)],
  ['setSettleHold', (t) => t.setSettleHold(null)],
  ['setUnclaimed', (t) => t.setUnclaimed([])],
  ['setLeadership', (t) => t.setLeadership('standby', { pid: 7, host: 'a', since: RUN.startedAt, term: 2 })],
];

describe('the /status body', () => {
  it('is the same bytes until the status changes, then the new document', () => {
    const tracker = createStatusTracker();
    let runs: readonly RunRecord[] = [];
    const body = createStatusBody(tracker, () => runs);

    const first = body();
    const again = body();
    tracker.setRetry({
      attempt: 2,
      at: new Date('2026-11-23T10:05:00.000Z'),
      code: 'API_UNAVAILABLE',
      reason: 'backoff',
    });
    const afterRetry = body();
    runs = [RUN];
    const afterRun = body();

    expect(again).toBe(first);
    expect(parsed(first)).toMatchObject({ status: 'Ready', retry: null, runs: [] });
    expect(parsed(afterRetry)).toMatchObject({
      retry: { attempt: 2, at: '2026-11-23T10:05:00.000Z' },
      runs: [],
    });
    expect(parsed(afterRun)).toMatchObject({ runs: [RUN] });
    expect(text(afterRun)).toBe(`${JSON.stringify(tracker.document(runs))}\n`);
  });

  it('serialises again only the pieces whose resources changed, and joins into the document', () => {
    const tracker = createStatusTracker();
    const subjects = Array.from(
      { length: 250 },
      (_, i) => `WafCustomRule/rule-${String(i).padStart(3, '0')}`,
    );
    tracker.syncResources(subjects.map((subject) => desired(subject)));
    const runs: readonly RunRecord[] = [];
    const body = createStatusBody(tracker, () => runs);
    const document = () => `${JSON.stringify(tracker.document(runs))}\n`;

    const first = body();
    const firstDocument = document();
    tracker.recordResult(...outcome('WafCustomRule/rule-150', 'failed', new Date(RUN.startedAt)));
    const second = body();

    // Head, 100 + 100 + 50 resources, tail.
    expect(first).toHaveLength(5);
    expect(text(first)).toBe(firstDocument);
    expect(text(second)).toBe(document());
    expect(second.map((piece, i) => piece === first[i])).toEqual([false, true, false, true, true]);
    expect((parsed(second).resources as Array<Record<string, unknown>>)[150]).toEqual({
      subject: 'WafCustomRule/rule-150',
      kind: 'WafCustomRule',
      name: 'rule-150',
      source: 'WafCustomRule.yaml:1:1',
      zone: null,
      state: 'failed',
      drift: {
        cause: 'drift',
        fields: ['spec.value'],
        diffs: [{ path: 'spec.value', live: '(absent)', desired: '(deleted)' }],
      },
      lastError: { code: 'API_SERVER_ERROR', message: 'the API answered 500', at: RUN.startedAt },
      lastAppliedAt: null,
      lastCheckedAt: RUN.startedAt,
    });

    // A resource moved in its file; one added in front (every piece shifts); one removed.
    tracker.syncResources([
      desired('DnsZone/a.example'),
      ...subjects
        .filter((s) => s !== 'WafCustomRule/rule-010')
        .map((s) => desired(s, s.endsWith('-200') ? 9 : 1)),
    ]);
    const third = body();
    const thirdDocument = document();
    tracker.recordResult(
      ...outcome('WafCustomRule/rule-150', 'applied', new Date('2026-11-23T10:06:00.000Z')),
    );
    const fourth = body();

    expect(text(third)).toBe(thirdDocument);
    expect(text(fourth)).toBe(document());
    expect(parsed(third).resources as unknown[]).toHaveLength(250);
    expect((parsed(third).resources as Array<{ source: string }>)[200]?.source).toBe(
      'WafCustomRule.yaml:9:1',
    );
    expect(parsed(fourth)).toMatchObject({ counts: { 'in-sync': 1, failed: 0, pending: 249 } });
  });

  it('is serialised again after every kind of write to the tracker', () => {
    const tracker = createStatusTracker();
    // One array: a new one per call would be new run records, serialised again every time.
    const runs: readonly RunRecord[] = [];
    const body = createStatusBody(tracker, () => runs);

    const unchanged = WRITES.filter(([, write]) => {
      const before = body();
      write(tracker);
      return body() === before;
    });

    expect(unchanged.map(([name]) => name)).toEqual([]);
  });

  it('knows every method of the tracker as a write above or a read', () => {
    // A method added to the tracker fails here until it is listed: as a write in the test
    // above (which checks that it bumps `writes`), or as a read.
    const reads = ['countsByKind', 'document', 'failedCount', 'snapshot'];
    const tracker = createStatusTracker();
    const methods = Object.entries(tracker)
      .filter(([, value]) => typeof value === 'function')
      .map(([name]) => name);

    expect(methods.sort()).toEqual([...reads, ...WRITES.map(([name]) => name)].sort());
  });
});
