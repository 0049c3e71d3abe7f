/**
 * `GET /status` bytes are serialised once per change of the status: a client polling a
 * daemon of 10,000 resources must not cost it a 2.5 MB document per request.
 */
import { describe, expect, it } from 'vitest';
import { createStatusBody, createStatusTracker, type StatusTracker } from '../../../src/daemon/status.js';
import type { RunRecord } from '../../../src/engine/state.js';

const RUN: RunRecord = {
  revision: 'config:abc',
  trigger: 'startup',
  startedAt: '2026-11-23T10:00:00.000Z',
  durationMs: 12,
  result: 'success',
  counts: { applied: 0 },
};

function parsed(body: Buffer): Record<string, unknown> {
  return JSON.parse(body.toString('utf8')) as Record<string, unknown>;
}

describe('the /status body', () => {
  it('is the same bytes until the status changes, then the new document', () => {
    const tracker = createStatusTracker();
    let runs: readonly RunRecord[] = [];
    const body = createStatusBody(tracker, () => runs);

    const first = body();
    const again = body();
    tracker.setRetry({ attempt: 2, at: new Date('2026-11-23T10:05:00.000Z') });
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
    expect(afterRun.toString()).toBe(`${JSON.stringify(tracker.document(runs))}\n`);
  });

  it('is serialised again after every kind of write to the tracker', () => {
    const tracker = createStatusTracker();
    const writes: ReadonlyArray<[string, (t: StatusTracker) => void]> = [
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
      ['applied', (t) => t.applied('config:2', new Date(RUN.startedAt))],
      ['setPull', (t) => t.setPull({ ok: true, at: RUN.startedAt })],
      ['setRetry', (t) => t.setRetry(null)],
    ];
    // One array: a new one per call would be new run records, serialised again every time.
    const runs: readonly RunRecord[] = [];
    const body = createStatusBody(tracker, () => runs);

    const unchanged = writes.filter(([, write]) => {
      const before = body();
      write(tracker);
      return body() === before;
    });

    expect(unchanged.map(([name]) => name)).toEqual([]);
  });
});
