import { hostname } from 'node:os';
/**
 * `/metrics` (Prometheus text that parses line by line, with every named series), `/status`
 * (its shape), `/healthz`, and one Registry per daemon instance.
 */
import { join } from 'node:path';
import { register } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createDaemonMetrics } from '../../src/daemon/metrics.js';
import type { StatusDocument } from '../../src/daemon/status.js';
import {
  edit,
  genericHook,
  type InProcessDaemon,
  request,
  ruleYaml,
  secretFile,
  statusOf,
  until,
  useDaemonFixture,
  writeDaemonConfig,
} from '../helpers/daemon.js';
import { call } from '../helpers/emulator.js';

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABELS = '\\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\.)*",?)*\\}';
// NaN in any case: Prometheus parses values with Go's ParseFloat, and prom-client prints the
// event-loop lag as "Nan" before its first sample.
const VALUE = '(?:[-+]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][-+]?\\d+)?|[Nn][Aa][Nn]|[-+]Inf)';
/** The text exposition format, strictly: HELP, TYPE, or a sample with an optional timestamp. */
const LINE = new RegExp(
  `^(?:# HELP ${NAME} .*|# TYPE ${NAME} (?:counter|gauge|histogram|summary|untyped)|${NAME}(?:${LABELS})? ${VALUE}(?: -?\\d+)?)$`,
);

/** Parses an exposition into `series → value`, failing on any line that is not well-formed. */
function parseMetrics(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  const bad: string[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (!LINE.test(line)) bad.push(line);
    else if (!line.startsWith('#')) {
      const at = line.lastIndexOf(' ');
      samples.set(line.slice(0, at), Number(line.slice(at + 1)));
    }
  }
  expect(bad).toEqual([]);
  return samples;
}

const fx = useDaemonFixture();

/**
 * A daemon on `<root>/<name>/config` and `<root>/<name>/state`, with drift at start-up: the rule's
 * name differs from the emulator's.
 */
async function start(name = 'a'): Promise<InProcessDaemon> {
  const config = writeDaemonConfig(join(fx.root, name, 'config'));
  edit(config, 'shield/rules.yaml', ruleYaml('Renamed in git'));
  return fx.start(config, { stateDir: join(fx.root, name, 'state') });
}

describe('GET /metrics', () => {
  it('parses as Prometheus text and has the named series', async () => {
    const d = await start();

    const reply = await request(`${d.url}/metrics`);
    const samples = parseMetrics(reply.text);

    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(samples.get('edgesync_up')).toBe(1);
    expect(samples.get(`edgesync_build_info{version="0.1.0",node_version="${process.versions.node}"}`)).toBe(
      1,
    );
    expect(samples.get('edgesync_reconcile_total{result="success"}')).toBe(1);
    expect(samples.get('edgesync_reconcile_duration_seconds_count{result="success"}')).toBe(1);
    expect(samples.get('edgesync_reconcile_duration_seconds_bucket{le="+Inf",result="success"}')).toBe(1);
    expect(samples.get('edgesync_triggers_total{reason="startup"}')).toBe(1);
    expect(samples.get('edgesync_resources{kind="DnsZone",status="in-sync"}')).toBe(2);
    expect(samples.get('edgesync_resources{kind="WafCustomRule",status="in-sync"}')).toBe(1);
    expect(samples.get('edgesync_resources{kind="WafCustomRule",status="failed"}')).toBe(0);
    expect(samples.get('edgesync_drift_detected_total{kind="WafCustomRule",cause="unknown"}')).toBe(1);
    expect(
      samples.get('edgesync_changes_total{kind="WafCustomRule",outcome="applied",action="update"}'),
    ).toBe(1);
    expect(samples.get('edgesync_changes_total{kind="DnsZone",outcome="unchanged",action="noop"}')).toBe(2);
    expect(
      samples.get(
        'edgesync_api_requests_total{operation="getDnsZone",route="/dnszone/{id}",method="GET",status="200"}',
      ),
    ).toBe(2);
    expect(
      samples.get(
        'edgesync_api_requests_total{operation="updateCustomWafRule",route="/shield/waf/custom-rule/{id}",method="PATCH",status="200"}',
      ),
    ).toBe(1);
    expect(samples.get('edgesync_api_request_duration_seconds_count{operation="getDnsZone"}')).toBe(2);
    expect(samples.get('edgesync_config_valid')).toBe(1);
    expect(samples.get('edgesync_settle_hold_pending')).toBe(0);
    expect(samples.get('edgesync_reconcile_deferred_total')).toBe(0);
    expect(
      Math.abs((samples.get('edgesync_last_success_timestamp_seconds') ?? 0) - Date.now() / 1000),
    ).toBeLessThan(60);
    expect(samples.get('process_resident_memory_bytes')).toBeGreaterThan(0);
    for (const name of [
      'edgesync_webhook_requests_total',
      'edgesync_git_pull_failures_total',
      'edgesync_api_guardian_blocked_requests',
    ]) {
      expect(reply.text).toContain(`# TYPE ${name} `);
    }
  });

  it('keeps one Registry per daemon and never writes to the global one', async () => {
    const first = await start('a');
    const second = await start('b');

    const a = parseMetrics((await request(`${first.url}/metrics`)).text);
    await second.stop();
    const b = parseMetrics((await request(`${first.url}/metrics`)).text);
    const global = await register.metrics();

    expect(a.get('edgesync_reconcile_total{result="success"}')).toBe(1);
    expect(b.get('edgesync_reconcile_total{result="success"}')).toBe(1);
    expect(global).not.toContain('edgesync_');
  });
});

describe('API Guardian gauges', () => {
  it('exports E9 totals of every desired Shield Zone after each full reconcile; an E9 failure fails nothing', async () => {
    const config = writeDaemonConfig(join(fx.root, 'g', 'config'));
    const d = await fx.launch(config, {
      stateDir: join(fx.root, 'g', 'state'),
      extra: ['--webhook-secret-file', secretFile('gauge-secret')],
    });
    const live = (await call(fx.emu, 'GET', '/shield/metrics/shield-zone/42/api-guardian')).json as {
      data: { totalBlockedRequests: number; totalRequestsInspected: number };
    };
    const gauges = async () =>
      [...parseMetrics((await request(`${d.url}/metrics`)).text)].filter(([series]) =>
        series.startsWith('edgesync_api_guardian_'),
      );

    const first = await until(async () => {
      const found = await gauges();
      return found.length > 0 && found;
    }, 'API Guardian gauges');
    fx.emu.faults.script({
      operation: 'getApiGuardianMetrics',
      times: 10,
      reply: { status: 500, body: { statusCode: 500 } },
    });
    // A file edit runs only the changed resources; a webhook runs a full reconcile.
    edit(config, 'shield/rules.yaml', ruleYaml('Renamed again'));
    await d.waitForEvent('reconcile.finished', undefined, 2);
    const afterFileRun = await gauges();
    await genericHook(d.url, '{}', 'gauge-secret');
    const failed = await d.waitForEvent('apiGuardian.failed');
    const after = await gauges();

    expect(first).toContainEqual([
      'edgesync_api_guardian_blocked_requests{shield_zone="42"}',
      live.data.totalBlockedRequests,
    ]);
    expect(first).toContainEqual([
      'edgesync_api_guardian_requests_inspected{shield_zone="42"}',
      live.data.totalRequestsInspected,
    ]);
    expect(first.every(([series]) => series.includes('shield_zone="42"'))).toBe(true);
    expect(failed).toMatchObject({ shieldZoneId: 42, code: 'API_UNAVAILABLE' });
    expect(afterFileRun).toEqual(first);
    // Start-up run, this test's own read, then the webhook run's 6 attempts; none for the file run.
    expect(fx.emu.journal.entries({ operation: 'getApiGuardianMetrics' })).toHaveLength(1 + 1 + 6);
    expect(after).toEqual(first);
    await d.waitForEvent('reconcile.finished', undefined, 3);
    expect(d.events('reconcile.finished').map((l) => l.result)).toEqual(['success', 'success', 'success']);
  });

  it('setApiGuardian exports the totals per Shield Zone and drops missing ones', async () => {
    const metrics = createDaemonMetrics({ version: 'test' });

    metrics.setApiGuardian(42, {
      totalBlockedRequests: 7,
      totalLoggedRequests: 3,
      totalRateLimited: 0,
      totalRequestsInspected: 1200,
      totalFailedRequestValidation: 2,
      totalFailedAuthenticationEnforcement: 1,
    });
    metrics.setApiGuardian(43, { totalBlockedRequests: 5 });
    metrics.setApiGuardian(42, { totalBlockedRequests: 8, totalLoggedRequests: null });
    const samples = parseMetrics(await metrics.render());

    expect([...samples].filter(([series]) => series.startsWith('edgesync_api_guardian_'))).toEqual([
      ['edgesync_api_guardian_blocked_requests{shield_zone="42"}', 8],
      ['edgesync_api_guardian_blocked_requests{shield_zone="43"}', 5],
    ]);
  });

  it("shows the API client's pace and counts its 429s", async () => {
    const metrics = createDaemonMetrics({ version: 'test' });
    let pace: number | undefined;
    metrics.trackApiPacing(() => ({ rps: pace, throttled: 0 }));
    const event = {
      operation: 'getApp',
      route: '/mc/apps/{appId}',
      method: 'GET',
      attempt: 1,
      durationMs: 3,
    } as const;

    const unpaced = parseMetrics(await metrics.render()).get('edgesync_api_pace_rps');
    metrics.observeApiRequest({ ...event, status: 429 });
    metrics.observeApiRequest({ ...event, status: 200 });
    metrics.observeApiRequest({ ...event, status: 429 });
    pace = 37.5;
    const samples = parseMetrics(await metrics.render());

    expect(unpaced).toBe(0);
    expect(samples.get('edgesync_api_pace_rps')).toBe(37.5);
    expect(samples.get('edgesync_api_throttled_total')).toBe(2);
  });
});

describe('GET /status', () => {
  it('has the documented shape', async () => {
    const d = await start();

    const reply = await request(`${d.url}/status`);
    const doc = reply.json as StatusDocument;

    expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Object.keys(doc)).toEqual([
      'status',
      'role',
      'leader',
      'ready',
      'degraded',
      'revision',
      'lastAttemptedRevision',
      'lastAppliedRevision',
      'lastError',
      'issues',
      'lastPull',
      'retry',
      'settleHold',
      'unclaimed',
      'apps',
      'lastSuccessAt',
      'runs',
      'counts',
      'resources',
    ]);
    expect(doc).toMatchObject({
      status: 'Ready',
      role: 'leader',
      leader: { pid: process.pid, host: hostname(), term: 1 },
      ready: true,
      lastError: null,
      issues: [],
      lastPull: null,
      retry: null,
      settleHold: null,
      unclaimed: [],
      // The test config has no container app.
      apps: [],
      counts: { pending: 0, 'in-sync': 3, suspended: 0, 'report-only': 0, failed: 0 },
    });
    expect(doc.revision).toMatch(/^config:[0-9a-f]{12}$/);
    expect(doc.lastAppliedRevision).toBe(doc.revision);
    expect(doc.runs).toEqual([
      {
        revision: doc.revision,
        trigger: 'startup',
        startedAt: expect.any(String),
        durationMs: expect.any(Number),
        result: 'success',
        counts: { applied: 1, unchanged: 2, skipped: 0, failed: 0 },
        changes: [{ subject: 'WafCustomRule/block-sqli', action: 'update', outcome: 'applied' }],
      },
    ]);
    expect(doc.resources.map((r) => [r.subject, r.source, r.state])).toEqual([
      ['DnsZone/example-com', 'dns/zones.yaml:1:1', 'in-sync'],
      ['DnsZone/example-org', 'dns/zones.yaml:9:1', 'in-sync'],
      ['WafCustomRule/block-sqli', 'shield/rules.yaml:1:1', 'in-sync'],
    ]);
    expect(doc.resources[2]).toEqual({
      subject: 'WafCustomRule/block-sqli',
      kind: 'WafCustomRule',
      name: 'block-sqli',
      source: 'shield/rules.yaml:1:1',
      zone: '42',
      state: 'in-sync',
      drift: null,
      lastError: null,
      lastAppliedAt: doc.lastSuccessAt,
      lastCheckedAt: doc.lastSuccessAt,
    });
  });

  it('shows failed, suspended and report-only resources with their drift and last error', async () => {
    const config = writeDaemonConfig(join(fx.root, 'config'));
    edit(
      config,
      'shield/rules.yaml',
      ruleYaml('Suspended rename').replace('  name: block-sqli\n', '  name: block-sqli\n  suspend: true\n'),
    );
    edit(
      config,
      'dns/zones.yaml',
      `apiVersion: edgesync/v1
kind: DnsZone
metadata:
  name: example-com
  drift: report
spec:
  id: 12345
  dnssec: false
---
apiVersion: edgesync/v1
kind: DnsZone
metadata:
  name: missing
spec:
  id: 99999
  dnssec: false
`,
    );
    const d = await fx.start(config);

    const doc = await statusOf(d);

    expect(doc.counts).toEqual({ pending: 0, 'in-sync': 0, suspended: 1, 'report-only': 1, failed: 1 });
    expect(doc.resources.map((r) => [r.subject, r.state, r.drift, r.lastError?.code ?? null])).toEqual([
      [
        'DnsZone/example-com',
        'report-only',
        {
          cause: 'unknown',
          fields: ['dnssec'],
          diffs: [{ path: 'dnssec', live: 'true', desired: 'false' }],
        },
        null,
      ],
      ['DnsZone/missing', 'failed', null, 'API_NOT_FOUND'],
      [
        'WafCustomRule/block-sqli',
        'suspended',
        {
          cause: 'unknown',
          fields: ['ruleName'],
          diffs: [{ path: 'ruleName', live: '"Block SQLi"', desired: '"Suspended rename"' }],
        },
        null,
      ],
    ]);
    expect(doc.lastError?.code).toBe('API_NOT_FOUND');
    expect(doc.lastAppliedRevision).toBeNull();
    expect(doc.retry).toBeNull();
    expect(fx.emu.journal.writes()).toEqual([]);
  });
});

describe('the status page', () => {
  it('is served at / and /ui/ with a strict Content-Security-Policy, and revalidates with ETags', async () => {
    const d = await start();

    const page = await request(`${d.url}/`);
    const script = await request(`${d.url}/ui/app.js`);
    const again = await request(`${d.url}/ui/app.js`, {
      headers: { 'if-none-match': String(script.headers.get('etag')) },
    });
    const unknown = await request(`${d.url}/ui/nothing.js`);

    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.text).toContain('<script type="module" src="/ui/app.js"></script>');
    // Nothing inline, nothing from another origin.
    expect(page.text).not.toMatch(/<script>|<style|style=|https?:\/\//);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(unknown.status).toBe(404);
  });

  it('/status answers 304 while the document is unchanged, and 200 once it changes', async () => {
    const d = await start();

    const first = await request(`${d.url}/status`);
    const etag = String(first.headers.get('etag'));
    const unchanged = await request(`${d.url}/status`, { headers: { 'if-none-match': etag } });
    edit(join(fx.root, 'a', 'config'), 'shield/rules.yaml', ruleYaml('Renamed again'));
    await until(() => d.events('reconcile.finished')[1], 'the file-change run');
    const changed = await request(`${d.url}/status`, { headers: { 'if-none-match': etag } });

    expect(first.status).toBe(200);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(unchanged.status).toBe(304);
    expect(unchanged.text).toBe('');
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect((changed.json as StatusDocument).runs[0]?.trigger).toBe('file-change');
  });

  it('--no-ui: / and /ui/ answer 404, /status stays', async () => {
    const config = writeDaemonConfig(join(fx.root, 'config'));
    const d = await fx.start(config, { extra: ['--no-ui'] });

    const replies = await Promise.all(
      ['/', '/ui/app.js', '/status'].map((path) => request(`${d.url}${path}`)),
    );

    expect(replies.map((r) => r.status)).toEqual([404, 404, 200]);
    expect(d.events('daemon.started')[0]?.statusPage).toBeNull();
  });
});
