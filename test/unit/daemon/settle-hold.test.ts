/**
 * The settle hold's bookkeeping with the real status tracker, metrics and an in-memory state
 * store: a prune of many objects lists 100 deletions and counts the rest; a later deferral
 * replaces the deletions of the subjects it planned again and keeps the others; a run that
 * reconciles some subjects drops theirs, and the hold ends when none is left.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createDaemonMetrics } from '../../../src/daemon/metrics.js';
import { createSettleHold, type SettleHold } from '../../../src/daemon/settle-hold.js';
import { createStatusTracker, type StatusTracker } from '../../../src/daemon/status.js';
import { memoryStateStore } from '../../../src/engine/state.js';
import type { Plan, PlannedChange } from '../../../src/engine/types.js';
import { createLogger } from '../../../src/log.js';

/** A prune of `subject` (action delete), or an update deleting the container `container`. */
function change(subject: string, container?: string): PlannedChange {
  const [kind, name] = subject.split('/') as [string, string];
  return {
    subject,
    kind,
    name,
    source: { file: 'x.yaml', line: 1, col: 1 },
    action: container === undefined ? 'delete' : 'update',
    cause: 'desired-changed',
    diffs:
      container === undefined
        ? []
        : [{ path: `containerTemplates[${container}]`, live: 'x', desired: undefined, destructive: true }],
    requests: [],
    digest: 'd',
  } as never;
}

function plan(changes: PlannedChange[]): Plan {
  const summary = {
    resources: changes.length,
    toUpdate: changes.length,
    unchanged: 0,
    skipped: 0,
    errors: 0,
  };
  return {
    version: 1,
    revision: 'r',
    createdAt: '',
    changes,
    summary: { ...summary, destructive: changes.length },
  };
}

let hold: SettleHold | undefined;
afterEach(() => hold?.cancel());

function setUp(): { hold: SettleHold; status: StatusTracker; state: ReturnType<typeof memoryStateStore> } {
  const status = createStatusTracker();
  const state = memoryStateStore();
  hold = createSettleHold({
    settleMs: 60_000,
    quietForMs: () => 0,
    logger: createLogger({ level: 'silent' }),
    status,
    metrics: createDaemonMetrics({ version: 'test' }),
    state,
    active: () => true,
    fire: () => undefined,
  });
  return { hold, status, state };
}

const run = { full: false, trigger: 'file-change', revision: 'r', startedAt: new Date() };

describe('the settle hold', () => {
  it('lists at most 100 deletions, sorted, and counts the rest', async () => {
    const { hold, status } = setUp();
    const subjects = Array.from({ length: 150 }, (_, i) => `WafCustomRule/r${String(i).padStart(3, '0')}`);

    await hold.defer({ ...run, full: true, scope: [], plan: plan(subjects.reverse().map((s) => change(s))) });
    const shown = status.document([]).settleHold;

    expect(shown?.deletions).toHaveLength(100);
    expect(shown?.deletions[0]).toEqual({ subject: 'WafCustomRule/r000', action: 'delete', fields: [] });
    expect(shown?.deletions[99]?.subject).toBe('WafCustomRule/r099');
    expect(shown?.deletionsOmitted).toBe(50);
  });

  it('merges deferrals by subject, records one run, and ends when reconciled runs cover the rest', async () => {
    const { hold, status, state } = setUp();

    await hold.defer({ ...run, scope: ['ContainerApp/a'], plan: plan([change('ContainerApp/a', 'worker')]) });
    await hold.defer({
      ...run,
      scope: ['ContainerApp/a', 'ContainerApp/b'],
      plan: plan([change('ContainerApp/a', 'cron'), change('ContainerApp/b', 'worker')]),
    });
    const merged = status.document([]).settleHold;
    await hold.defer({ ...run, scope: ['ContainerApp/c'], plan: plan([change('ContainerApp/c', 'web')]) });
    hold.reconciled(['ContainerApp/a', 'ContainerApp/c']);
    const left = status.document([]).settleHold;
    hold.reconciled(['ContainerApp/b']);

    expect(merged?.deletions).toEqual([
      { subject: 'ContainerApp/a', action: 'update', fields: ['containerTemplates[cron]'] },
      { subject: 'ContainerApp/b', action: 'update', fields: ['containerTemplates[worker]'] },
    ]);
    expect(merged?.deferrals).toBe(2);
    expect(left?.deletions.map((d) => d.subject)).toEqual(['ContainerApp/b']);
    expect(left?.deferrals).toBe(3);
    expect(status.document([]).settleHold).toBeNull();
    expect(state.runs().map((r) => [r.result, r.counts])).toEqual([
      ['deferred', { toUpdate: 1, destructive: 1 }],
    ]);
  });
});
