import { describe, expect, it } from 'vitest';
import {
  type AffectedSubject,
  NO_COUNTS,
  type RunSummary,
} from '../../../../src/daemon/notify/run-summary.js';
import { createTransitionTracker, type NotifyEventName } from '../../../../src/daemon/notify/transitions.js';

const HOUR = 3_600_000;

function run(fields: Partial<RunSummary> = {}): RunSummary {
  const subjects = fields.subjects ?? [];
  const count = (outcome: AffectedSubject['outcome']) => subjects.filter((s) => s.outcome === outcome).length;
  return {
    revision: 'a'.repeat(40),
    trigger: 'schedule',
    full: true,
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 5,
    result: 'reconciled',
    counts: { ...NO_COUNTS, applied: count('applied'), failed: count('failed'), drifted: count('drifted') },
    subjects,
    failingTotal: count('failed'),
    ...fields,
  };
}

const applied = (subject: string): AffectedSubject => ({ subject, outcome: 'applied' });
const failed = (subject: string, code = 'API_REJECTED'): AffectedSubject => ({
  subject,
  outcome: 'failed',
  error: { code, message: 'rejected' },
});
const drifted = (subject: string, ...fields: string[]): AffectedSubject => ({
  subject,
  outcome: 'drifted',
  fields,
});
const invalid = (...issues: string[]): RunSummary =>
  run({ result: 'invalid', revision: undefined, issues, error: { code: 'CONFIG_INVALID', message: 'x' } });

/** Feeds `runs` at the given times (ms) and returns the event name of each (or null). */
function events(steps: readonly [number, RunSummary][], repeatMs = HOUR): (NotifyEventName | null)[] {
  const tracker = createTransitionTracker({ repeatMs });
  return steps.map(([at, summary]) => tracker.next(summary, at)?.event ?? null);
}

describe('notification transitions', () => {
  it.each<[string, [number, RunSummary][], (NotifyEventName | null)[]]>([
    [
      'nothing to do, twice: nothing',
      [
        [0, run()],
        [1, run()],
      ],
      [null, null],
    ],
    [
      'a run that changed something: applied, each time',
      [
        [0, run({ subjects: [applied('A/a')] })],
        [1, run({ subjects: [applied('A/b')] })],
      ],
      ['reconcile.applied', 'reconcile.applied'],
    ],
    [
      'a failure, the same again, then fixed: failed once, then recovered, then quiet',
      [
        [0, run({ subjects: [failed('A/a')] })],
        [1, run({ subjects: [failed('A/a')] })],
        [2, run()],
        [3, run()],
      ],
      ['reconcile.failed', null, 'reconcile.recovered', null],
    ],
    [
      'the same failure after the repeat interval: told again, once per interval',
      [
        [0, run({ subjects: [failed('A/a')] })],
        [HOUR - 1, run({ subjects: [failed('A/a')] })],
        [HOUR, run({ subjects: [failed('A/a')] })],
        [HOUR + 5, run({ subjects: [failed('A/a')] })],
      ],
      ['reconcile.failed', null, 'reconcile.failed', null],
    ],
    [
      'a different failure (another subject, or another code): told at once',
      [
        [0, run({ subjects: [failed('A/a')] })],
        [1, run({ subjects: [failed('A/a'), failed('A/b')] })],
        [2, run({ subjects: [failed('A/a', 'API_UNAVAILABLE'), failed('A/b')] })],
      ],
      ['reconcile.failed', 'reconcile.failed', 'reconcile.failed'],
    ],
    [
      'an invalid config, still invalid, fixed with nothing to apply: failed, nothing, recovered',
      [
        [0, invalid('a.yaml:1:1: bad')],
        [1, invalid('a.yaml:1:1: bad')],
        [2, run()],
      ],
      ['reconcile.failed', null, 'reconcile.recovered'],
    ],
    [
      'a run that fails as a whole, then succeeds with changes: failed, then recovered (not applied)',
      [
        [0, run({ result: 'error', error: { code: 'STATE_IO', message: 'x' } })],
        [1, run({ subjects: [applied('A/a')] })],
      ],
      ['reconcile.failed', 'reconcile.recovered'],
    ],
    [
      'a scoped run that applies one resource while another still fails: applied, not recovered',
      [
        [0, run({ subjects: [failed('A/a')] })],
        [1, run({ full: false, subjects: [applied('A/b')], failingTotal: 1 })],
        [2, run({ full: false, failingTotal: 0 })],
      ],
      ['reconcile.failed', 'reconcile.applied', 'reconcile.recovered'],
    ],
    [
      'report-only drift: told when new, not again while the same, again when its fields change',
      [
        [0, run({ subjects: [drifted('A/a', 'x')] })],
        [1, run({ subjects: [drifted('A/a', 'x')] })],
        [2, run({ subjects: [drifted('A/a', 'x', 'y')] })],
        [3, run({ subjects: [drifted('A/a', 'x', 'y'), drifted('A/b', 'z')] })],
      ],
      ['drift.reported', null, 'drift.reported', 'drift.reported'],
    ],
    [
      'drift that a full run no longer sees is news again when it comes back',
      [
        [0, run({ subjects: [drifted('A/a', 'x')] })],
        [1, run()],
        [2, run({ subjects: [drifted('A/a', 'x')] })],
      ],
      ['drift.reported', null, 'drift.reported'],
    ],
    [
      'a scoped run without the drifted subject does not forget its drift',
      [
        [0, run({ subjects: [drifted('A/a', 'x')] })],
        [1, run({ full: false, settled: ['A/b'] })],
        [2, run({ subjects: [drifted('A/a', 'x')] })],
      ],
      ['drift.reported', null, null],
    ],
    [
      'a scoped run that finds the drifted subject in sync, or writes it, forgets its drift',
      [
        [0, run({ subjects: [drifted('A/a', 'x'), drifted('A/b', 'y')] })],
        [1, run({ full: false, settled: ['A/a'], subjects: [applied('A/b')] })],
        [2, run({ full: false, subjects: [drifted('A/a', 'x')] })],
        [3, run({ full: false, subjects: [drifted('A/b', 'y')] })],
      ],
      ['drift.reported', 'reconcile.applied', 'drift.reported', 'drift.reported'],
    ],
  ])('%s', (_name, steps, expected) => {
    expect(events(steps)).toEqual(expected);
  });

  it('carries the run summary, marks a repeat, and leaves out the scope flag', () => {
    const tracker = createTransitionTracker({ repeatMs: 10 });
    const summary = run({ trigger: 'webhook', subjects: [failed('WafCustomRule/r')], durationMs: 42 });

    const first = tracker.next(summary, 0);
    const again = tracker.next(summary, 10);

    expect(first).toEqual({
      event: 'reconcile.failed',
      revision: 'a'.repeat(40),
      trigger: 'webhook',
      startedAt: '2026-01-01T00:00:00.000Z',
      durationMs: 42,
      result: 'reconciled',
      counts: { ...NO_COUNTS, failed: 1 },
      subjects: [failed('WafCustomRule/r')],
      failingTotal: 1,
    });
    expect(again).toEqual({ ...first, repeated: true });
  });
});

describe('notification transitions across a restart', () => {
  /** Runs `before` on one tracker, starts another from its state (as a restarted daemon would), runs `after`. */
  function acrossRestart(before: readonly [number, RunSummary][], after: readonly [number, RunSummary][]) {
    const first = createTransitionTracker({ repeatMs: HOUR });
    for (const [at, summary] of before) first.next(summary, at);
    const saved = JSON.parse(JSON.stringify(first.state()));
    const second = createTransitionTracker({ repeatMs: HOUR, initial: saved });
    return { saved, events: after.map(([at, summary]) => second.next(summary, at)?.event ?? null) };
  }

  it('the same failure is not told again within --notify-repeat, and its recovery is told', () => {
    const { events: told } = acrossRestart(
      [[0, run({ subjects: [failed('WafCustomRule/a')] })]],
      [
        [1, run({ subjects: [failed('WafCustomRule/a')] })],
        [2, run()],
      ],
    );

    expect(told).toEqual([null, 'reconcile.recovered']);
  });

  it('drift already reported is not reported again', () => {
    const { events: told } = acrossRestart(
      [[0, run({ subjects: [drifted('WafCustomRule/a', 'ruleName')] })]],
      [
        [1, run({ subjects: [drifted('WafCustomRule/a', 'ruleName')] })],
        [2, run({ subjects: [drifted('WafCustomRule/a', 'ruleName', 'value')] })],
      ],
    );

    expect(told).toEqual([null, 'drift.reported']);
  });

  it('keeps digests, never the text of a failure or of drifted fields', () => {
    const { saved } = acrossRestart(
      [
        [0, run({ subjects: [drifted('WafCustomRule/a', 'ruleConfiguration.value')] })],
        [1, invalid('shield/rules.yaml:3:1 spec.value: a secret-looking text')],
      ],
      [],
    );

    const text = JSON.stringify(saved);
    expect(text).not.toContain('secret-looking');
    expect(text).not.toContain('ruleConfiguration');
    expect(saved).toEqual({
      failing: true,
      lastFailure: { key: expect.stringMatching(/^[0-9a-f]{64}$/), sentAt: 1 },
      reportedDrift: { 'WafCustomRule/a': expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
  });
});
