/**
 * File-change triggers of `edgesync run`: a debounced edit reconciles only the resources whose
 * documents changed, a git-sync style symlink swap is followed, and a burst of webhooks and
 * edits coalesces into at most two reconciles.
 */
import { mkdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  dnsYaml,
  edit,
  genericHook,
  request,
  ruleYaml,
  secretFile,
  statusOf,
  until,
  untilStatus,
  useDaemonFixture,
  writeDaemonConfig,
} from '../helpers/daemon.js';
import { writeTree } from '../helpers/temp-dir.js';

const fx = useDaemonFixture();

describe('file changes', () => {
  it('an edit is picked up after the debounce and only the changed resource is read and written', async () => {
    const config = writeDaemonConfig(join(fx.root, 'config'));
    const d = await fx.start(config);
    // The start-up run reads the API Guardian totals after it finishes; then the slate is clean.
    await until(() => fx.emu.journal.entries().some((entry) => entry.path.endsWith('/api-guardian')), 'E9');
    fx.emu.journal.clear();

    edit(config, 'dns/zones.yaml', dnsYaml(true));
    const finished = await d.waitForEvent('reconcile.finished', () => true, 2);

    expect(d.events('trigger.received').map((line) => line.reason)).toEqual(['startup', 'file-change']);
    expect(d.events('reconcile.started')[1]).toMatchObject({ trigger: 'file-change', resources: 1 });
    expect(finished.counts).toEqual({ applied: 1, unchanged: 0, skipped: 0, failed: 0 });
    expect(fx.emu.journal.entries().map((entry) => `${entry.method} ${entry.path}`)).toEqual([
      'GET /dnszone/12346',
      'POST /dnszone/12346/dnssec',
    ]);
    expect(fx.emu.state.dnsZone(12346)?.DnsSecEnabled).toBe(true);
    const doc = await statusOf(d);
    expect(doc.resources.find((r) => r.subject === 'DnsZone/example-org')).toMatchObject({
      state: 'in-sync',
      drift: null,
      lastError: null,
    });
    expect(doc.resources.find((r) => r.subject === 'DnsZone/example-org')?.lastAppliedAt).not.toBeNull();
  });

  it('a checkout touching 200 files is one trigger', async () => {
    const config = writeDaemonConfig(join(fx.root, 'config'));
    const d = await fx.start(config, { extra: ['--debounce-ms', '200'] });

    const files: Record<string, string> = {};
    for (let i = 0; i < 200; i += 1)
      files[`lists/list-${String(i).padStart(3, '0')}.txt`] = `198.51.100.${i}\n`;
    writeTree(config, files);
    edit(config, 'shield/rules.yaml', ruleYaml('After the checkout'));
    const trigger = await d.waitForEvent('trigger.received', (line) => line.reason === 'file-change');
    await d.waitForEvent('reconcile.finished', () => true, 2);

    expect(d.events('trigger.received').map((line) => line.reason)).toEqual(['startup', 'file-change']);
    expect(trigger.files).toBeGreaterThanOrEqual(201);
    expect(fx.emu.state.customRule(1234)?.ruleName).toBe('After the checkout');
  });

  it('ignores dot-files', async () => {
    const config = writeDaemonConfig(join(fx.root, 'config'));
    // (A state directory inside the config directory is refused: state-location.test.ts.)
    const d = await fx.start(config, { extra: ['--debounce-ms', '100'] });
    const quiet = () => new Promise((resolve) => setTimeout(resolve, 400));
    const reasons = () => d.events('trigger.received').map((line) => line.reason);

    // Past the start-up run's state save; then dot-files alone, a debounce burst of their own.
    await quiet();
    writeTree(config, { '.hidden/notes.yaml': 'not: desired', '.editor.swp': 'x' });
    await quiet();
    const afterDotFiles = reasons();
    edit(config, 'shield/rules.yaml', ruleYaml('After dot-files'));
    await d.waitForEvent('reconcile.finished', () => true, 2);
    await quiet();

    expect(afterDotFiles).toEqual(['startup']);
    expect(reasons()).toEqual(['startup', 'file-change']);
    expect(fx.emu.state.customRule(1234)?.ruleName).toBe('After dot-files');
  });

  it('follows a git-sync style symlink swap to the new checkout, then watches the new tree', async () => {
    mkdirSync(join(fx.root, 'git', '.worktrees'), { recursive: true });
    writeDaemonConfig(join(fx.root, 'git', '.worktrees', 'aaaa'));
    const next = writeDaemonConfig(join(fx.root, 'git', '.worktrees', 'bbbb'));
    edit(next, 'shield/rules.yaml', ruleYaml('From revision bbbb'));
    const link = join(fx.root, 'git', 'config');
    symlinkSync('.worktrees/aaaa', link);
    const d = await fx.start(link);
    const before = await statusOf(d);

    // git-sync: a new link beside the old one, renamed over it (atomic), then the old tree removed.
    symlinkSync('.worktrees/bbbb', join(fx.root, 'git', 'config.tmp'));
    renameSync(join(fx.root, 'git', 'config.tmp'), link);
    rmSync(join(fx.root, 'git', '.worktrees', 'aaaa'), { recursive: true });
    const moved = await d.waitForEvent('config.link.changed');
    await d.waitForEvent('reconcile.finished', () => true, 2);
    const afterSwap = await statusOf(d);
    edit(next, 'dns/zones.yaml', dnsYaml(true));
    await d.waitForEvent('change.applied', (line) => line.subject === 'DnsZone/example-org');

    expect(moved.target).toBe(join(fx.root, 'git', '.worktrees', 'bbbb'));
    expect(d.events('reconcile.started')[1]).toMatchObject({ trigger: 'file-change', resources: 1 });
    expect(fx.emu.state.customRule(1234)?.ruleName).toBe('From revision bbbb');
    expect(afterSwap.revision).not.toBe(before.revision);
    expect(afterSwap.revision).toMatch(/^config:[0-9a-f]{12}$/);
    expect(fx.emu.state.dnsZone(12346)?.DnsSecEnabled).toBe(true);
  });

  it('notices a config directory that appears after the start (a sidecar’s first sync)', async () => {
    mkdirSync(join(fx.root, 'git'));
    const link = join(fx.root, 'git', 'config');
    const d = await fx.launch(link);
    await d.waitForEvent('config.invalid');
    const waiting = await request(`${d.url}/readyz`);

    const checkout = writeDaemonConfig(join(fx.root, 'git', '.worktrees', 'cccc'));
    edit(checkout, 'shield/rules.yaml', ruleYaml('First sync'));
    symlinkSync('.worktrees/cccc', link);
    await d.waitForEvent('reconcile.finished');
    const ready = await request(`${d.url}/readyz`);

    expect(waiting.status).toBe(503);
    expect(ready.status).toBe(200);
    expect(fx.emu.state.customRule(1234)?.ruleName).toBe('First sync');
  });
});

describe('coalescing', () => {
  it('50 webhooks and file edits in a burst give at most 2 runs', async () => {
    const config = writeDaemonConfig(join(fx.root, 'config'));
    const d = await fx.start(config, {
      extra: ['--webhook-secret-file', secretFile('burst-secret'), '--debounce-ms', '100'],
    });
    // The first run of the burst holds its first read for 1.5 s: the whole burst lands meanwhile.
    fx.emu.faults.script({ operation: 'listCustomWafRules', reply: { delayMs: 1500 } });

    const replies = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        if (i % 10 === 9) edit(config, 'shield/rules.yaml', ruleYaml(`Burst ${i}`));
        return (await genericHook(d.url, `{"n":${i}}`, 'burst-secret')).status;
      }),
    );
    await d.waitForEvent('trigger.received', (line) => line.reason === 'file-change');
    await untilStatus(d, 'Ready');

    expect(replies).toEqual(Array.from({ length: 50 }, () => 202));
    expect(d.events('trigger.received').filter((line) => line.reason === 'webhook')).toHaveLength(50);
    // Start-up, then the burst: the run the first hook started (the edited rule first, then the
    // other two resources) and one follow-up for everything else (the debounced file change
    // merges into it, or finds nothing left to do after it).
    const started = d.events('reconcile.started').map((line) => [line.trigger, line.resources]);
    expect(started).toHaveLength(4);
    expect(started.slice(0, 3)).toEqual([
      ['startup', 3],
      ['webhook', 1],
      ['webhook', 2],
    ]);
    expect(started[3]?.[0]).toMatch(/^(file-change,)?webhook$/);
    expect(started[3]?.[1]).toBe(3);
    expect(fx.emu.state.customRule(1234)?.ruleName).toBe('Burst 49');
    const metrics = (await request(`${d.url}/metrics`)).text;
    expect(metrics).toContain('edgesync_triggers_total{reason="webhook"} 50');
    expect(metrics).toContain('edgesync_reconcile_total{result="success"} 3');
  });
});
