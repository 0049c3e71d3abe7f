/**
 * A deferred plan is visible while it waits (in-process daemon, real files, the emulator): GET
 * /status shows `settleHold` (what would be deleted, never a secret; the trigger; when the settle
 * run is due) and a `deferred` run record, GET /metrics counts the deferral and says a hold is
 * pending; the settle run ends the hold and records what it applied. A later run that plans the
 * subject again without deleting ends the hold at once.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StatusDocument } from '../../src/daemon/status.js';
import {
  type InProcessDaemon,
  request,
  statusOf,
  until,
  untilStatus,
  useDaemonFixture,
} from '../helpers/daemon.js';
import { TEST_SEED } from '../helpers/emulator.js';
import { APP_TAIL, appHead } from '../helpers/half-written-app.js';
import { writeTree } from '../helpers/temp-dir.js';

const SETTLE_MS = 3000;
const TOKEN_A = 'held-token-a-5e17c2-never-print';
const TOKEN_B = 'held-token-b-93d0af-never-print';
const LIVE_WORKER_TOKEN = 'held-live-worker-token-0c44b8-never-print';
const SECRETS = [TOKEN_A, TOKEN_B, LIVE_WORKER_TOKEN];

const seed = structuredClone(TEST_SEED);
const worker = seed.apps?.[0]?.containerTemplates?.[1];
if (worker !== undefined) worker.environmentVariables = [{ name: 'WORKER_TOKEN', value: LIVE_WORKER_TOKEN }];

/** The seed's app with `web`'s sensitive TOKEN, and with or without its `worker` container. */
function appYaml(options: { worker: boolean; token: string; max?: number }): string {
  return `${appHead(options.max ?? 3)}      environmentVariables:
        - { name: LOG_LEVEL, value: info }
        - { name: TOKEN, value: ${options.token}, sensitive: true }
${options.worker ? APP_TAIL : ''}`;
}

/** One sample of the daemon's real /metrics, or undefined when the series is absent. */
async function metric(d: InProcessDaemon, series: string): Promise<number | undefined> {
  const text = (await request(`${d.url}/metrics`)).text;
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** /status once the run in progress has ended and `check` holds. */
function statusWhen(d: InProcessDaemon, what: string, check: (doc: StatusDocument) => boolean) {
  return until(
    async () => {
      const doc = await statusOf(d);
      return doc.status !== 'Reconciling' && check(doc) && doc;
    },
    what,
    20_000,
  );
}

const fx = useDaemonFixture(seed);

async function startWithApp(): Promise<{ d: InProcessDaemon; file: string }> {
  const config = writeTree(join(fx.root, 'config'), {
    'apps/storefront.yaml': appYaml({ worker: true, token: TOKEN_A }),
  });
  const d = await fx.start(config, { extra: ['--settle-ms', String(SETTLE_MS)] });
  return { d, file: join(config, 'apps/storefront.yaml') };
}

describe('a deferred deletion in /status and /metrics', () => {
  it('shows the hold and a deferred run until the settle run, which applies it and records that', async () => {
    const { d, file } = await startWithApp();
    const before = await statusOf(d);

    await writeFile(file, appYaml({ worker: false, token: TOKEN_B }));
    const deferred = await d.waitForEvent('reconcile.deferred', undefined, 1, 20_000);
    const held = await statusWhen(d, 'the hold in /status', (doc) => doc.settleHold !== null);
    const heldText = (await request(`${d.url}/status`)).text;
    const pending = await metric(d, 'edgesync_settle_hold_pending');
    const deferredTotal = await metric(d, 'edgesync_reconcile_deferred_total');
    const writesWhileHeld = fx.emu.journal.writes().length;

    const hold = held.settleHold;
    expect(before.settleHold).toBeNull();
    expect(hold).toEqual({
      trigger: 'file-change',
      revision: held.revision,
      deferredAt: expect.any(String),
      since: hold?.deferredAt,
      deferrals: 1,
      settleAt: new Date(Date.parse(hold?.deferredAt ?? '') + (deferred.waitMs as number)).toISOString(),
      deletions: [
        { subject: 'ContainerApp/storefront', action: 'update', fields: ['containerTemplates[worker]'] },
      ],
      deletionsOmitted: 0,
    });
    expect(Date.parse(hold?.settleAt ?? '')).toBeGreaterThan(Date.parse(hold?.deferredAt ?? ''));
    expect(Date.parse(hold?.deferredAt ?? '')).toBeGreaterThan(Date.parse(before.runs[0]?.startedAt ?? ''));
    expect(held.runs).toEqual([
      {
        revision: held.revision,
        trigger: 'file-change',
        startedAt: expect.any(String),
        durationMs: expect.any(Number),
        result: 'deferred',
        counts: { toUpdate: 1, destructive: 1 },
      },
      before.runs[0],
    ]);
    expect(pending).toBe(1);
    expect(deferredTotal).toBe(1);
    // Only the start-up run's PATCH (it added TOKEN): the deferred plan sent nothing.
    expect(writesWhileHeld).toBe(1);
    expect(SECRETS.filter((secret) => heldText.includes(secret))).toEqual([]);

    await d.waitForEvent('reconcile.finished', (line) => line.trigger === 'settle', 1, 20_000);
    const settled = await untilStatus(d, 'Ready');

    expect(settled.settleHold).toBeNull();
    expect(settled.runs.map((r) => [r.trigger, r.result])).toEqual([
      ['settle', 'success'],
      ['file-change', 'deferred'],
      ['startup', 'success'],
    ]);
    expect(settled.runs[0]?.counts).toMatchObject({ applied: 1, failed: 0 });
    expect(await metric(d, 'edgesync_settle_hold_pending')).toBe(0);
    expect(await metric(d, 'edgesync_reconcile_deferred_total')).toBe(1);
    expect(await metric(d, 'edgesync_triggers_total{reason="settle"}')).toBe(1);
    expect(fx.emu.state.app('app1')?.containerTemplates.map((c) => c.name)).toEqual(['web']);
  }, 40_000);

  it('counts a second deferral in the same hold, and ends it when a run plans the subject without deleting', async () => {
    const { d, file } = await startWithApp();

    await writeFile(file, appYaml({ worker: false, token: TOKEN_A }));
    const first = await statusWhen(d, 'the first deferral', (doc) => doc.settleHold?.deferrals === 1);
    await writeFile(file, appYaml({ worker: false, token: TOKEN_A, max: 4 }));
    const second = await statusWhen(d, 'the second deferral', (doc) => doc.settleHold?.deferrals === 2);
    const deferredTotal = await metric(d, 'edgesync_reconcile_deferred_total');
    await writeFile(file, appYaml({ worker: true, token: TOKEN_A, max: 4 }));
    const restored = await statusWhen(d, 'the hold ended', (doc) => doc.settleHold === null);
    const pending = await metric(d, 'edgesync_settle_hold_pending');
    await d.waitForEvent('reconcile.finished', (line) => line.trigger === 'settle', 1, 20_000);
    const afterSettle = await untilStatus(d, 'Ready');

    expect(second.settleHold).toMatchObject({
      since: first.settleHold?.deferredAt,
      deletions: [
        { subject: 'ContainerApp/storefront', action: 'update', fields: ['containerTemplates[worker]'] },
      ],
    });
    expect(Date.parse(second.settleHold?.deferredAt ?? '')).toBeGreaterThan(
      Date.parse(first.settleHold?.deferredAt ?? ''),
    );
    // One record for the hold, however many runs deferred in it; the metric counts each.
    expect(second.runs.map((r) => r.result)).toEqual(['deferred', 'success']);
    expect(deferredTotal).toBe(2);
    expect(restored.runs.map((r) => [r.trigger, r.result])).toEqual([
      ['file-change', 'success'],
      ['file-change', 'deferred'],
      ['startup', 'success'],
    ]);
    expect(pending).toBe(0);
    expect(afterSettle.settleHold).toBeNull();
    expect(afterSettle.runs[0]).toMatchObject({ trigger: 'settle', result: 'success' });
    expect(fx.emu.journal.writes().map((w) => [w.method, w.path])).toEqual([
      ['PATCH', '/mc/apps/app1'],
      ['PATCH', '/mc/apps/app1'],
    ]);
    expect(fx.emu.state.app('app1')?.containerTemplates.map((c) => [c.name, c.id])).toEqual([
      ['web', 'tpl-web'],
      ['worker', 'tpl-worker'],
    ]);
  }, 40_000);
});
