/**
 * `syncResources`: the tracker follows the loaded resources. The loader hands back the same
 * object for a resource whose file did not change, and the tracker skips those; what it must
 * still see: a resource moved in its file, one added, one removed (also when another is
 * added in the same load, so that the count stays the same), one removed and then back.
 */
import { describe, expect, it } from 'vitest';
import type { DesiredResource } from '../../../src/config/types.js';
import { createStatusTracker } from '../../../src/daemon/status.js';

function desired(subject: string, line = 1): DesiredResource {
  const [kind, name] = subject.split('/') as [string, string];
  return { subject, kind, name, source: { file: `${kind}.yaml`, line, col: 1 } } as never;
}

function failed(subject: string): Parameters<ReturnType<typeof createStatusTracker>['recordResult']> {
  const change = { subject, diffs: [], cause: 'drift', error: undefined };
  const result = { outcome: 'failed', error: { code: 'API_SERVER_ERROR', message: 'the API answered 500' } };
  return [change as never, result as never, new Date('2026-11-23T10:00:00.000Z')];
}

/** subject → [state, source] of every record, in the document's order. */
function records(tracker: ReturnType<typeof createStatusTracker>): Record<string, [string, string]> {
  return Object.fromEntries(
    tracker.document([]).resources.map((r) => [r.subject, [r.state, r.source]] as const),
  );
}

describe('the status tracker, syncing the loaded resources', () => {
  it('keeps the record of a resource handed back unchanged, and moves one whose line moved', () => {
    const tracker = createStatusTracker();
    const a = desired('DnsZone/a.example');
    const b = desired('DnsZone/b.example', 4);
    tracker.syncResources([a, b]);
    tracker.recordResult(...failed('DnsZone/a.example'));
    tracker.recordResult(...failed('DnsZone/b.example'));

    tracker.syncResources([a, desired('DnsZone/b.example', 9)]);

    expect(records(tracker)).toEqual({
      'DnsZone/a.example': ['failed', 'DnsZone.yaml:1:1'],
      'DnsZone/b.example': ['failed', 'DnsZone.yaml:9:1'],
    });
  });

  it('drops a removed resource even when another one arrives in the same load', () => {
    const tracker = createStatusTracker();
    const a = desired('DnsZone/a.example');
    tracker.syncResources([a, desired('DnsZone/b.example')]);

    tracker.syncResources([a, desired('DnsZone/c.example')]);

    expect(Object.keys(records(tracker))).toEqual(['DnsZone/a.example', 'DnsZone/c.example']);
  });

  it('starts a removed resource that comes back again as pending, even as the same object', () => {
    const tracker = createStatusTracker();
    const a = desired('DnsZone/a.example');
    const b = desired('DnsZone/b.example');
    tracker.syncResources([a, b]);
    tracker.recordResult(...failed('DnsZone/b.example'));

    tracker.syncResources([a]);
    const without = records(tracker);
    tracker.syncResources([a, b]);

    expect(without).toEqual({ 'DnsZone/a.example': ['pending', 'DnsZone.yaml:1:1'] });
    expect(records(tracker)).toEqual({
      'DnsZone/a.example': ['pending', 'DnsZone.yaml:1:1'],
      'DnsZone/b.example': ['pending', 'DnsZone.yaml:1:1'],
    });
  });
});
