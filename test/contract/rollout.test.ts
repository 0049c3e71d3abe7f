/**
 * Rollout health and remediation (docs/reconcile.md, Rollout health) against the emulator's
 * rollout simulation over real HTTP: an app change is `progressing` for 60 ms, then `active`,
 * or `failing` when a container runs a tag the seed marks failing. `apply` waits: a good tag
 * is `rollout.succeeded` and kept as the one to roll back to; a bad tag is `rollout.failed`
 * with the container's reason and message and fails the run; with `onFailure: rollback` the
 * last good image is applied again (the journal shows the PATCH) and the failed revision is
 * not applied again until its document changes; a timeout and an aborted signal end a watch.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { DesiredResource } from '../../src/config/types.js';
import type { RolloutsOutcome } from '../../src/engine/reconcile.js';
import { renderPlanText, renderRolloutsText } from '../../src/engine/render.js';
import { renderPlanMarkdown } from '../../src/engine/render-markdown.js';
import type { Plan } from '../../src/engine/types.js';
import type { Logger } from '../../src/log.js';
import { desired } from '../helpers/desired.js';
import { TEST_SEED } from '../helpers/emulator.js';
import { type EngineFixture, engineFixturePerTest, writesOf } from '../helpers/engine.js';

const start = engineFixturePerTest();
/** The test seed's storefront (app1) with its web container only. */
const STOREFRONT = TEST_SEED.apps?.find((a) => a.id === 'app1');
const SEED = {
  ...TEST_SEED,
  apps: [
    { ...STOREFRONT, containerTemplates: STOREFRONT?.containerTemplates?.filter((t) => t.name === 'web') },
  ],
  rollout: { progressingMs: 60, failingImageTags: ['9.9.9-broken'] },
} as typeof TEST_SEED;
const SECRET = 'rollout-test-session-key-5a1c93';

function auditLog(): { audit: Logger; events: Array<Record<string, unknown>> } {
  const events: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line !== '') events.push(JSON.parse(line));
      done();
    },
  });
  return { audit: pino({ level: 'info' }, stream) as unknown as Logger, events };
}

/** The seeded storefront (app1) with web at `tag`; its secret literal must never show. */
function storefront(tag: string, rollout: Record<string, unknown> = {}): DesiredResource {
  return desired('ContainerApp', 'storefront', {
    appId: 'app1',
    name: 'storefront',
    containerTemplates: [
      {
        name: 'web',
        imageTag: tag,
        environmentVariables: [
          { name: 'LOG_LEVEL', value: 'info' },
          { name: 'SESSION_KEY', value: SECRET, sensitive: true },
        ],
      },
    ],
    rollout,
  });
}

function webTag(f: EngineFixture): string | undefined {
  return f.emu.state.app('app1')?.containerTemplates.find((t) => t.name === 'web')?.imageTag;
}

/** Applies `doc` and waits for its rollout; `revision` is the commit the run applies. */
async function applyWaiting(
  f: EngineFixture,
  doc: DesiredResource,
  audit?: Logger,
  revision = 'test-revision',
) {
  return f.run([doc], 'apply', {
    selection: { revision },
    write: { rollouts: 'wait', rolloutPollMs: 20 },
    ...(audit === undefined ? {} : { report: { audit } }),
  });
}

describe('rollout health', () => {
  it('a good image: change.applied, then rollout.succeeded once the overview says active; it becomes the one to roll back to', async () => {
    const f = await start(SEED);
    const { audit, events } = auditLog();

    const outcome = await applyWaiting(f, storefront('1.5.0'), audit);

    expect(outcome.rollouts?.results).toEqual([
      expect.objectContaining({ subject: 'ContainerApp/storefront', outcome: 'succeeded', health: 'active' }),
    ]);
    expect(
      events.map((e) => e.event).filter((e) => String(e).startsWith('rollout.') || e === 'change.applied'),
    ).toEqual(['change.applied', 'rollout.started', 'rollout.succeeded']);
    const record = f.state.rollout('ContainerApp/storefront');
    expect(record).toMatchObject({ status: 'succeeded', health: 'active', revision: 'test-revision' });
    expect(record?.lastGood?.spec).toMatchObject({
      containerTemplates: [{ name: 'web', imageTag: '1.5.0' }],
    });
    expect(f.state.runs().at(-1)).toMatchObject({ result: 'success' });
    // The kept spec holds a digest of the sensitive literal, never the literal.
    expect(JSON.stringify(f.state.rollouts())).not.toContain(SECRET);
    expect(JSON.stringify(events)).not.toContain(SECRET);
  });

  it('a failing image: rollout.failed with the container reason and message, a failed run, and no second write', async () => {
    const f = await start(SEED);
    const { audit, events } = auditLog();
    await applyWaiting(f, storefront('1.5.0'));

    const outcome = await applyWaiting(f, storefront('9.9.9-broken'), audit);

    const [result] = outcome.rollouts?.results ?? [];
    expect(result).toMatchObject({
      outcome: 'failed',
      health: 'failing',
      container: { name: 'web', status: 'notStarted', restarts: 5, reason: 'CrashLoopBackOff' },
    });
    expect(result?.error?.message).toBe(
      'the rollout failed: the API says failing; container web: notStarted, 5 restarts, CrashLoopBackOff: ' +
        'back-off restarting failed container web: exited with code 1 (image acme/web:9.9.9-broken)',
    );
    const failed = events.find((e) => e.event === 'rollout.failed');
    expect(failed).toMatchObject({
      subject: 'ContainerApp/storefront',
      error: { code: 'ROLLOUT_FAILED' },
      container: { name: 'web', reason: 'CrashLoopBackOff' },
      onFailure: 'none',
    });
    expect(events.find((e) => e.event === 'reconcile.finished')).toMatchObject({
      result: 'failed',
      counts: { applied: 1, rolloutFailed: 1 },
    });
    expect(f.state.runs().at(-1)).toMatchObject({
      result: 'failed',
      changes: [
        { subject: 'ContainerApp/storefront', action: 'update', outcome: 'applied' },
        {
          subject: 'ContainerApp/storefront',
          action: 'rollout',
          outcome: 'failed',
          error: { code: 'ROLLOUT_FAILED' },
        },
      ],
    });
    expect(webTag(f)).toBe('9.9.9-broken');
    expect(JSON.stringify(events)).not.toContain(SECRET);

    // Without remediation the failed revision stays the resource's failure, and nothing is sent.
    f.emu.journal.clear();
    const again = await applyWaiting(f, storefront('9.9.9-broken'));
    expect(again.plan.changes[0]).toMatchObject({
      action: 'error',
      error: {
        code: 'ROLLOUT_FAILED',
        message: expect.stringContaining('it is not applied again until the document changes'),
      },
    });
    expect(writesOf(f.emu)).toEqual([]);
  });

  it('onFailure: rollback applies the last image that reached active again, then holds the failed revision until the document changes', async () => {
    const f = await start(SEED);
    const { audit, events } = auditLog();
    const remediate = { onFailure: 'rollback' };
    await applyWaiting(f, storefront('1.5.0', remediate), undefined, 'good1');
    f.emu.journal.clear();

    const outcome = await applyWaiting(f, storefront('9.9.9-broken', remediate), audit, 'broken2');

    expect(outcome.rollouts?.results.map((r) => r.outcome)).toEqual(['failed']);
    const rollback = outcome.rollouts?.rollback;
    expect(rollback?.plan.changes[0]).toMatchObject({
      subject: 'ContainerApp/storefront',
      action: 'update',
      rollback: { from: 'broken2', to: 'good1', notes: [] },
      diffs: [
        expect.objectContaining({
          path: 'containerTemplates[web].imageTag',
          live: '9.9.9-broken',
          desired: '1.5.0',
        }),
      ],
    });
    expect(rollback?.rollouts?.results).toEqual([
      expect.objectContaining({ outcome: 'succeeded', rollbackOf: 'broken2' }),
    ]);
    // Two PATCHes: the broken tag, then the good one back (the secret travels, as a value the emulator keeps).
    const patches = writesOf(f.emu).filter((w) => w.method === 'PATCH');
    expect(
      patches.map(
        (w) => (w.body as { containerTemplates: { imageTag: string }[] }).containerTemplates[0]?.imageTag,
      ),
    ).toEqual(['9.9.9-broken', '1.5.0']);
    expect(webTag(f)).toBe('1.5.0');
    expect(events.filter((e) => String(e.event).startsWith('rollout.')).map((e) => e.event)).toEqual([
      'rollout.started',
      'rollout.failed',
      'rollout.started',
      'rollout.succeeded',
    ]);
    expect(events.find((e) => e.event === 'rollout.failed')).toMatchObject({ onFailure: 'rollback' });
    // What apply prints: the rollback change in the rollback run's plan, and the rollouts.
    expect(renderPlanText(rollback?.plan as Plan, { color: false }).split('\n')[0]).toBe(
      '~ ContainerApp/storefront storefront.yaml:1 (cause: desired-changed, rollback: the rollout of broken2 failed, so good1, the last revision that reached active, is applied again)',
    );
    const printed = renderRolloutsText(outcome.rollouts as RolloutsOutcome, { color: false }).split('\n');
    expect(printed.slice(0, 4)).toEqual([
      '',
      'Rollouts:',
      'failing   ContainerApp/storefront: the rollout failed: the API says failing; container web: notStarted, 5 restarts, CrashLoopBackOff: back-off restarting failed container web: exited with code 1 (image acme/web:9.9.9-broken)',
      'rollback  ContainerApp/storefront: good1 applied again (the last revision that reached active)',
    ]);
    expect(printed.slice(4)).toEqual([
      expect.stringMatching(/^active {4}ContainerApp\/storefront \(the rollback\): rolled out in \d+\.\d s$/),
      '',
    ]);

    // Stops: the same document is not applied again (no flapping between the two images).
    f.emu.journal.clear();
    const held = await applyWaiting(f, storefront('9.9.9-broken', remediate), undefined, 'broken2');
    expect(held.plan.changes[0]).toMatchObject({
      action: 'error',
      error: {
        code: 'ROLLOUT_FAILED',
        message:
          'the rollout of revision broken2 failed and was rolled back to good1; it is not applied again until the document changes',
      },
    });
    expect(writesOf(f.emu)).toEqual([]);
    expect(webTag(f)).toBe('1.5.0');
    // The plans after it say why nothing is sent, in text and in Markdown (a pull request's comment).
    const heldWhy =
      'the rollout of revision broken2 failed and was rolled back to good1; it is not applied again until the document changes';
    expect(renderPlanText(held.plan, { color: false })).toBe(
      [
        '! ContainerApp/storefront storefront.yaml:1 (cause: desired-changed)',
        '    containerTemplates[web].imageTag: "1.5.0" → "9.9.9-broken"',
        `    error: ${heldWhy}`,
        '',
        'Plan: 0 to change, 1 failed or refused, 0 unchanged.',
        '',
      ].join('\n'),
    );
    expect(renderPlanMarkdown(held.plan)).toBe(
      [
        '**Plan: 0 to change, 1 failed or refused, 0 unchanged.**',
        '',
        'edgesync plan of revision `broken2`.',
        '',
        '#### Container app `storefront`',
        '',
        '| | Resource | Field | Live | Desired |',
        '|---|---|---|---|---|',
        '| ❌ | `ContainerApp/storefront` | `containerTemplates[web].imageTag` | `"1.5.0"` | `"9.9.9-broken"` |',
        '',
        '<details open><summary>Errors</summary>',
        '',
        `- \`ContainerApp/storefront\`: \`${heldWhy}\``,
        '',
        '</details>',
        '',
      ].join('\n'),
    );

    // A changed document is applied and watched again.
    const fixed = await applyWaiting(f, storefront('1.6.0', remediate), undefined, 'fixed3');
    expect(fixed.rollouts?.results.map((r) => r.outcome)).toEqual(['succeeded']);
    expect(webTag(f)).toBe('1.6.0');
    expect(f.state.rollout('ContainerApp/storefront')).not.toHaveProperty('held');
    expect(JSON.stringify(f.state.rollouts())).not.toContain(SECRET);
  });

  it('rollback with no revision that ever reached active is refused, and says why', async () => {
    const f = await start(SEED);
    const outcome = await applyWaiting(f, storefront('9.9.9-broken', { onFailure: 'rollback' }));
    expect(outcome.rollouts?.refused).toEqual([
      {
        subject: 'ContainerApp/storefront',
        reason: 'no earlier revision of it reached active: nothing to roll back to',
      },
    ]);
    expect(outcome.rollouts?.rollback).toBeUndefined();
  });

  it('a rollout still progressing when spec.rollout.timeoutSeconds passes has failed', async () => {
    const f = await start({
      ...SEED,
      rollout: { progressingMs: 60_000, failingImageTags: [] },
    } as typeof SEED);
    const outcome = await applyWaiting(f, storefront('1.5.0', { timeoutSeconds: 1 }));
    const [result] = outcome.rollouts?.results ?? [];
    expect(result?.outcome).toBe('failed');
    expect(result?.error?.message).toMatch(
      /^the rollout did not reach active within 1 s \(still progressing\); container web: started, 0 restarts, ContainerCreating: starting image acme\/web:1.5.0$/,
    );
    expect(result?.durationMs).toBeGreaterThanOrEqual(1000);
  });

  it('an aborted signal (shutdown, a lost lease) ends the watch at once as aborted', async () => {
    const f = await start({
      ...SEED,
      rollout: { progressingMs: 60_000, failingImageTags: [] },
    } as typeof SEED);
    const abort = new AbortController();
    const running = f.run([storefront('1.5.0')], 'apply', {
      write: { rollouts: 'wait', rolloutPollMs: 20, signal: abort.signal },
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    abort.abort();
    const outcome = await running;
    expect(outcome.rollouts?.results.map((r) => r.outcome)).toEqual(['aborted']);
    expect(f.state.rollout('ContainerApp/storefront')?.status).toBe('aborted');
  });

  it('detach returns the rollouts for the caller to follow, with the 300 s default timeout when the document sets no rollout, and records them progressing', async () => {
    const f = await start(SEED);
    const noRollout = desired('ContainerApp', 'storefront', {
      appId: 'app1',
      name: 'storefront',
      containerTemplates: [{ name: 'web', imageTag: '1.5.0' }],
    });
    const outcome = await f.run([noRollout], 'apply', { write: { rollouts: 'detach' } });
    expect(outcome.rollouts?.pending?.map((t) => [t.subject, t.objectId, t.timeoutMs])).toEqual([
      ['ContainerApp/storefront', 'app1', 300_000],
    ]);
    expect(f.state.rollout('ContainerApp/storefront')?.status).toBe('progressing');
  });
});
