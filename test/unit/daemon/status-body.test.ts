/**
 * `GET /status`: the document streamed in parts from a snapshot of the tracker, and a tag that
 * changes with every write of the tracker and every new run record, so an unchanged document
 * answers 304 without being serialised.
 */
import type { Readable } from 'node:stream';
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

/** Everything the body's stream gives, as text. */
async function text(stream: Readable): Promise<string> {
  let out = '';
  for await (const part of stream) out += String(part);
  return out;
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
  ['setApps', (t) => t.setApps([])],
  [
    'markRolloutFailed',
    (t) =>
      t.markRolloutFailed('ContainerApp/x', {
        code: 'ROLLOUT_FAILED',
        message: 'failing',
        at: RUN.startedAt,
      }),
  ],
  ['setLeadership', (t) => t.setLeadership('standby', { pid: 7, host: 'a', since: RUN.startedAt, term: 2 })],
];

describe('the /status body', () => {
  it('is the document and a newline, its resources sorted, in parts of 100', async () => {
    const tracker = createStatusTracker();
    const subjects = Array.from(
      { length: 250 },
      (_, i) => `WafCustomRule/rule-${String(249 - i).padStart(3, '0')}`,
    );
    tracker.syncResources(subjects.map((subject) => desired(subject)));
    tracker.recordResult(...outcome('WafCustomRule/rule-150', 'failed', new Date(RUN.startedAt)));
    const runs: readonly RunRecord[] = [RUN];
    const body = createStatusBody(tracker, () => runs);

    const stream = body.stream();
    const parts: string[] = [];
    for await (const part of stream) parts.push(String(part));

    // Head, 100 + 100 + 50 resources, tail.
    expect(parts).toHaveLength(5);
    expect(parts.join('')).toBe(`${JSON.stringify(tracker.document(runs))}\n`);
    const document = JSON.parse(parts.join('')) as { resources: Array<Record<string, unknown>> };
    expect(document.resources.map((r) => r.subject)).toEqual([...subjects].sort());
    expect(document.resources[150]).toEqual({
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
  });

  it('streams the document as it was when the request came, whatever is written meanwhile', async () => {
    const tracker = createStatusTracker();
    tracker.syncResources([desired('DnsZone/a.example'), desired('DnsZone/b.example')]);
    const runs: readonly RunRecord[] = [];
    const body = createStatusBody(tracker, () => runs);
    const before = `${JSON.stringify(tracker.document(runs))}\n`;

    const stream = body.stream();
    tracker.recordResult(...outcome('DnsZone/a.example', 'applied', new Date(RUN.startedAt)));
    tracker.syncResources([desired('DnsZone/a.example', 7)]);

    expect(await text(stream)).toBe(before);
    expect(await text(body.stream())).toBe(`${JSON.stringify(tracker.document(runs))}\n`);
  });

  it('keeps its tag until the status or the run records change', () => {
    const tracker = createStatusTracker();
    let runs: readonly RunRecord[] = [];
    const body = createStatusBody(tracker, () => runs);

    const first = body.etag();
    const again = body.etag();
    tracker.setRetry({
      attempt: 2,
      at: new Date('2026-11-23T10:05:00.000Z'),
      code: 'API_UNAVAILABLE',
      reason: 'backoff',
    });
    const afterRetry = body.etag();
    runs = [RUN];
    const afterRun = body.etag();

    expect(first).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(again).toBe(first);
    expect(new Set([first, afterRetry, afterRun]).size).toBe(3);
    expect(body.etag()).toBe(afterRun);
  });

  it('never gives the tag of another body (another process) for its own document', () => {
    const tracker = createStatusTracker();
    const runs: readonly RunRecord[] = [];

    expect(createStatusBody(tracker, () => runs).etag()).not.toBe(
      createStatusBody(tracker, () => runs).etag(),
    );
  });

  it('changes its tag after every kind of write to the tracker', () => {
    const tracker = createStatusTracker();
    // One array: a new one per call would be new run records, a new tag every time.
    const runs: readonly RunRecord[] = [];
    const body = createStatusBody(tracker, () => runs);

    const unchanged = WRITES.filter(([, write]) => {
      const before = body.etag();
      write(tracker);
      return body.etag() === before;
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
