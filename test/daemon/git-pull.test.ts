/**
 * `--git-pull` on real temporary repositories: a bare remote, a clone the daemon reads, and a
 * second clone that pushes. A webhook pulls first, and the commit SHA is the revision; a pull
 * that fails is reported and the last good revision stays.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { redactCredentials } from '../../src/daemon/controller.js';
import {
  type DaemonFixture,
  edit,
  githubHook,
  type InProcessDaemon,
  request,
  ruleYaml,
  secretFile,
  untilStatus,
  useDaemonFixture,
  writeDaemonConfig,
} from '../helpers/daemon.js';
import { git } from '../helpers/git.js';
import { writeTree } from '../helpers/temp-dir.js';

const SECRET = 'git-pull-secret';
let work: string;
let config: string;

/** Starts the fixture's daemon on the clone with `--git-pull` and a webhook secret, after its start-up run. */
function start(fx: DaemonFixture): Promise<InProcessDaemon> {
  return fx.start(config, { extra: ['--git-pull', '--webhook-secret-file', secretFile(SECRET)] });
}

function push(sha: string): string {
  return JSON.stringify({ ref: 'refs/heads/main', after: sha, repository: { full_name: 'acme/edge' } });
}

/**
 * In `root`: a bare remote, a clone `work` that pushes (its first commit written by
 * `writeConfig`) and the clone `config` the daemon reads.
 */
function createRepositories(root: string, writeConfig: (dir: string) => void): void {
  git(root, 'init', '--quiet', '--bare', '-b', 'main', 'remote.git');
  git(root, 'clone', '--quiet', 'remote.git', 'work');
  work = join(root, 'work');
  writeConfig(work);
  git(work, 'add', '.');
  git(work, 'commit', '--quiet', '-m', 'initial desired state');
  git(work, 'push', '--quiet', 'origin', 'main');
  git(root, 'clone', '--quiet', 'remote.git', 'config');
  config = join(root, 'config');
}

describe('--git-pull', () => {
  const fx = useDaemonFixture();
  beforeEach(() => {
    createRepositories(fx.root, (dir) => writeDaemonConfig(dir));
  });

  it('pulls before a webhook run; the new commit is applied and its SHA is the revision', async () => {
    const d = await start(fx);
    const first = git(config, 'rev-parse', 'HEAD');
    const before = await untilStatus(d, 'Ready');

    edit(work, 'shield/rules.yaml', ruleYaml('Pulled from the remote'));
    git(work, 'commit', '--quiet', '-am', 'rename the rule');
    git(work, 'push', '--quiet', 'origin', 'main');
    const second = git(work, 'rev-parse', 'HEAD');
    const reply = await githubHook(d.url, 'push', push(second), SECRET);
    const applied = await d.waitForEvent('change.applied');
    const after = await untilStatus(d, 'Ready');

    expect(reply.status).toBe(202);
    expect(before.revision).toBe(first);
    expect(applied.subject).toBe('WafCustomRule/block-sqli');
    // The run applies what the push changed first, then reconciles the rest (two DNS zones).
    await d.waitForEvent('reconcile.finished', () => true, 3);
    const stages = d.events('reconcile.started').slice(1);
    expect(stages).toMatchObject([
      { trigger: 'webhook', revision: second, resources: 1 },
      { trigger: 'webhook', revision: second, resources: 2 },
    ]);
    const order = d.lines().map((line) => line.event);
    expect(order.indexOf('change.applied')).toBeLessThan(order.lastIndexOf('reconcile.started'));
    expect(after).toMatchObject({
      revision: second,
      lastAttemptedRevision: second,
      lastAppliedRevision: second,
      lastPull: { ok: true },
    });
    expect(git(config, 'rev-parse', 'HEAD')).toBe(second);
    expect(fx.emu.state.customRule(1234)?.ruleName).toBe('Pulled from the remote');
  });

  it('a failing pull is reported, the run goes on, and the last good revision stays', async () => {
    const d = await start(fx);
    const good = git(config, 'rev-parse', 'HEAD');
    // A remote that refuses connections, with credentials in its URL that must never be shown.
    git(config, 'remote', 'set-url', 'origin', 'https://deploy:hunter2-token@127.0.0.1:9/acme/edge.git');

    const reply = await githubHook(d.url, 'push', push('0'.repeat(40)), SECRET);
    const failed = await d.waitForEvent('git.pull.failed');
    await d.waitForEvent('reconcile.finished', () => true, 2);
    const after = await untilStatus(d, 'Ready');
    const metrics = (await request(`${d.url}/metrics`)).text;

    expect(reply.status).toBe(202);
    expect(failed.level).toBe('warn');
    expect(String(failed.error)).toContain('127.0.0.1');
    expect(after.revision).toBe(good);
    expect(after.lastAppliedRevision).toBe(good);
    expect(after.lastPull).toMatchObject({ ok: false, error: failed.error });
    expect(d.events('reconcile.started')[1]).toMatchObject({ trigger: 'webhook', revision: good });
    expect(metrics).toContain('edgesync_git_pull_failures_total 1');
    expect(d.output()).not.toContain('hunter2-token');
    expect(JSON.stringify(after)).not.toContain('hunter2-token');
  });

  it('a work tree that loses its .git fails its next pull visibly, it is not skipped', async () => {
    // At debug level, so that a skipped pull (a debug line) would show.
    const d = await fx.start(config, {
      extra: ['--git-pull', '--webhook-secret-file', secretFile(SECRET), '--log-level', 'debug'],
    });
    await untilStatus(d, 'Ready');
    // The start-up pull found a work tree; the daemon does not ask git that again.
    rmSync(join(config, '.git'), { recursive: true, force: true });

    const reply = await githubHook(d.url, 'push', push('0'.repeat(40)), SECRET);
    const failed = await d.waitForEvent('git.pull.failed');
    await d.waitForEvent('reconcile.finished', () => true, 2);

    expect(reply.status).toBe(202);
    expect(failed.level).toBe('warn');
    expect(d.events('git.pull.skipped')).toEqual([]);
  });
});

describe('--git-pull with a change threshold', () => {
  const ZONES = Array.from({ length: 10 }, (_, i) => 30001 + i);

  function zonesYaml(signed: ReadonlySet<number>): string {
    return ZONES.map(
      (id) =>
        `apiVersion: edgesync/v1\nkind: DnsZone\nmetadata:\n  name: zone-${id}\nspec:\n  id: ${id}\n  dnssec: ${signed.has(id)}\n`,
    ).join('---\n');
  }

  const fx = useDaemonFixture({
    dnsZones: ZONES.map((id) => ({ id, domain: `zone-${id}.example`, dnsSecEnabled: false })),
  });
  beforeEach(() => {
    createRepositories(fx.root, (dir) => writeTree(dir, { 'dns/zones.yaml': zonesYaml(new Set()) }));
  });

  it('counts the pushed changes and the other drift together, as one plan would', async () => {
    const d = await start(fx);
    // The push signs two zones (20 % of 10); the dashboard signed two others meanwhile (20 %).
    edit(work, 'dns/zones.yaml', zonesYaml(new Set([30001, 30002])));
    git(work, 'commit', '--quiet', '-am', 'sign two zones');
    git(work, 'push', '--quiet', 'origin', 'main');
    fx.emu.state.setDnssec(30009, true);
    fx.emu.state.setDnssec(30010, true);

    await githubHook(d.url, 'push', push(git(work, 'rev-parse', 'HEAD')), SECRET);
    const second = await d.waitForEvent('reconcile.finished', () => true, 3);

    // The first stage writes the push (20 %); the second would take the run to 40 %: refused.
    expect(d.events('change.applied').map((line) => line.subject)).toEqual([
      'DnsZone/zone-30001',
      'DnsZone/zone-30002',
    ]);
    expect(second.counts).toMatchObject({ applied: 0, failed: 2 });
    expect(d.events('change.failed').map((line) => [line.subject, line.error])).toEqual(
      ['DnsZone/zone-30009', 'DnsZone/zone-30010'].map((subject) => [
        subject,
        {
          code: 'PLAN_UNSAFE',
          message:
            'the plan changes 4 of 10 managed resources (2 of them earlier in this run) (40%), more than --max-change-percent 30; re-run with --force if this is intended',
        },
      ]),
    );
    expect([30001, 30002, 30009, 30010].map((id) => fx.emu.state.dnsZone(id)?.DnsSecEnabled)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(fx.emu.journal.writes().map((entry) => `${entry.method} ${entry.path}`)).toEqual([
      'POST /dnszone/30001/dnssec',
      'POST /dnszone/30002/dnssec',
    ]);
  });
});

describe('redactCredentials', () => {
  it.each([
    [
      "fatal: unable to access 'https://u:p4ss@github.com/a/b.git/': 403",
      "fatal: unable to access 'https://[redacted]@github.com/a/b.git/': 403",
    ],
    ['ssh://git@host/x', 'ssh://[redacted]@host/x'],
    ['no url here', 'no url here'],
  ])('%s', (input, expected) => {
    expect(redactCredentials(input)).toBe(expected);
  });
});
