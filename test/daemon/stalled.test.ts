/**
 * An invalid desired state stalls the daemon: no API call and no write until the files change,
 * the issue (file:line:col) in the log and in /status, scheduled runs do not retry it, and a
 * fix resumes. /readyz waits for the first successful load.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  dnsYaml,
  edit,
  request,
  ruleYaml,
  statusOf,
  untilStatus,
  useDaemonFixture,
  writeDaemonConfig,
} from '../helpers/daemon.js';

const INVALID_DNS = dnsYaml().replace(/dnssec: false\n$/, 'dnssec: maybe\n');
const ISSUE = {
  file: 'dns/zones.yaml',
  line: 15,
  col: 11,
  path: 'spec.dnssec',
  message: 'expected true or false, got string',
  severity: 'error',
  location: 'dns/zones.yaml:15:11',
};

const fx = useDaemonFixture();

describe('an invalid config', () => {
  it('stops every API call until the files change, shows Stalled with file:line:col, and a fix resumes', async () => {
    const config = writeDaemonConfig(join(fx.root, 'config'));
    // Every second: scheduled runs happen during the test and must not touch the API.
    const d = await fx.start(config, { extra: ['--schedule', '* * * * * *'] });
    const ready = await statusOf(d);

    // A valid change and an invalid one together: nothing may be half-applied.
    edit(config, 'shield/rules.yaml', ruleYaml('Must wait for the fix'));
    edit(config, 'dns/zones.yaml', INVALID_DNS);
    const invalid = await d.waitForEvent('config.invalid');
    // Runs are serial: once the stalled run has logged, no run of the valid config is in flight.
    const callsAtStall = fx.emu.journal.count();
    const scheduledBefore = d.events('trigger.received').filter((l) => l.reason === 'schedule').length;
    await d.waitForEvent('trigger.received', (line) => line.reason === 'schedule', scheduledBefore + 2);
    const stalled = await untilStatus(d, 'Stalled');
    const readyz = await request(`${d.url}/readyz`);
    const metrics = (await request(`${d.url}/metrics`)).text;
    const callsWhileStalled = fx.emu.journal.count() - callsAtStall;

    edit(config, 'dns/zones.yaml', dnsYaml());
    await d.waitForEvent('reconcile.finished', (line) => (line.counts as { applied: number }).applied === 1);
    // The schedule ticks every second: wait for a moment between runs.
    const recovered = await untilStatus(d, 'Ready');

    expect(callsWhileStalled).toBe(0);
    expect(invalid).toMatchObject({
      level: 'error',
      issues: ['dns/zones.yaml:15:11: expected true or false, got string (at spec.dnssec)'],
    });
    expect(d.events('config.invalid')).toHaveLength(1);
    expect(stalled.status).toBe('Stalled');
    expect(stalled.ready).toBe(true);
    expect(stalled.issues).toEqual([ISSUE]);
    expect(stalled.lastError).toMatchObject({ code: 'CONFIG_INVALID', message: `1 problem in ${config}` });
    expect(stalled.revision).toBe(ready.revision);
    expect(stalled.runs[0]).toMatchObject({
      result: 'invalid',
      error: `1 problem in ${config}`,
      counts: { issues: 1 },
    });
    expect(readyz.status).toBe(200);
    expect(metrics).toContain('edgesync_config_valid 0');
    expect(fx.emu.journal.writes().map((entry) => `${entry.method} ${entry.path}`)).toEqual([
      'PATCH /shield/waf/custom-rule/1234',
    ]);
    expect(fx.emu.state.customRule(1234)?.ruleName).toBe('Must wait for the fix');
    expect(recovered).toMatchObject({ status: 'Ready', issues: [], lastError: null });
    expect(recovered.revision).not.toBe(ready.revision);
    expect(d.events('config.valid')).toHaveLength(1);
  });

  it('is not ready until the first successful load, then stays ready', async () => {
    const config = writeDaemonConfig(join(fx.root, 'config'));
    edit(config, 'dns/zones.yaml', INVALID_DNS);
    const d = await fx.launch(config);
    await d.waitForEvent('config.invalid');

    const before = await request(`${d.url}/readyz`);
    const beforeStatus = await statusOf(d);
    const health = await request(`${d.url}/healthz`);
    edit(config, 'dns/zones.yaml', dnsYaml());
    await d.waitForEvent('reconcile.finished');
    const after = await request(`${d.url}/readyz`);

    expect([before.status, before.json]).toEqual([503, { status: 'not ready' }]);
    expect([health.status, health.json]).toEqual([200, { status: 'ok' }]);
    expect(beforeStatus).toMatchObject({ status: 'Stalled', ready: false, revision: null, issues: [ISSUE] });
    expect([after.status, after.json]).toEqual([200, { status: 'ready' }]);
    expect(fx.emu.journal.writes()).toEqual([]);
  });
});
