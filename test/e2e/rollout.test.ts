/**
 * Rollout health in the daemon (docs/daemon.md, Rollout health): `edgesync run --git-pull` as a
 * child process on a clone of a local bare repository, against an emulator whose app changes
 * stay `progressing` for 1 s, with a real `node:http` receiver for its notifications. Every
 * change is a commit pushed to the remote and announced by a signed GitHub push webhook. The
 * start-up run's image change is watched beside the run loop: a DNS commit pushed meanwhile is
 * applied before the rollout ends. A pushed bad image tag is then reported failed (the audit
 * line and a `reconcile.failed` naming the container's reason), rolled back (`onFailure:
 * rollback`: the good tag of the first commit PATCHed again, watched, `active`), and not
 * applied again by later runs; `/status` and `edgesync_app_health` show it, and the sensitive
 * variable's value appears nowhere.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dnsYaml, edit, githubHook, request, secretFile, until } from '../helpers/daemon.js';
import { TEST_SEED, withEmulator } from '../helpers/emulator.js';
import { git } from '../helpers/git.js';
import { reply, startTestServer } from '../helpers/http-server.js';
import { spawnDaemon, useSpawnedDaemons } from '../helpers/spawn-daemon.js';
import { tempDir, writeTree } from '../helpers/temp-dir.js';

useSpawnedDaemons();

const SECRET = 'e2e-rollout-session-key-70d2be';
const BAD = '9.9.9-broken';
const HOOK = 'e2e-rollout-webhook-secret';

/** The test seed's storefront (app1) with its web container only, rolling out in 1 s. */
const STOREFRONT = TEST_SEED.apps?.find((a) => a.id === 'app1');
const SEED = {
  ...TEST_SEED,
  apps: [
    { ...STOREFRONT, containerTemplates: STOREFRONT?.containerTemplates?.filter((t) => t.name === 'web') },
  ],
  rollout: { progressingMs: 1000, failingImageTags: [BAD] },
} as typeof TEST_SEED;

function appYaml(tag: string): string {
  return `apiVersion: edgesync/v1
kind: ContainerApp
metadata:
  name: storefront
spec:
  appId: app1
  name: storefront
  containerTemplates:
    - name: web
      imageTag: "${tag}"
      environmentVariables:
        - { name: LOG_LEVEL, value: info }
        - { name: SESSION_KEY, value: ${SECRET}, sensitive: true }
  rollout:
    timeoutSeconds: 20
    onFailure: rollback
`;
}

describe('rollout health in the daemon (spawned)', () => {
  it('watches beside the runs, reports a bad tag failed, notifies, rolls back, and stops', async () => {
    const emu = await withEmulator(SEED);
    const receiver = await startTestServer(reply(200, {}));
    try {
      // A bare remote, a clone `work` that commits and pushes, and the clone `config` the daemon pulls.
      const root = tempDir();
      git(root, 'init', '--quiet', '--bare', '-b', 'main', 'remote.git');
      git(root, 'clone', '--quiet', 'remote.git', 'work');
      const work = writeTree(join(root, 'work'), {
        'apps/storefront.yaml': appYaml('1.5.0'),
        'dns/zones.yaml': dnsYaml(),
      });
      git(work, 'add', '.');
      git(work, 'commit', '--quiet', '-m', 'storefront 1.5.0');
      git(work, 'push', '--quiet', 'origin', 'main');
      const good = git(work, 'rev-parse', 'HEAD');
      git(root, 'clone', '--quiet', 'remote.git', 'config');
      const config = join(root, 'config');
      const run = spawnDaemon(root, config, emu.url, [
        '--git-pull',
        '--webhook-secret-file',
        secretFile(HOOK),
        '--rollout-poll-ms',
        '50',
        '--notify-webhook',
        receiver.url,
        // Every transition is told (by default a second one within a minute is held).
        '--notify-min-interval',
        '1ms',
      ]);
      const url = String(
        (await until(() => run.events('daemon.started')[0], 'the daemon to start', 20_000)).listen,
      );
      const webTag = () => emu.state.app('app1')?.containerTemplates.find((t) => t.name === 'web')?.imageTag;
      /** Commits `content` as `file` in `work`, pushes it, and announces the push: its SHA. */
      const push = async (file: string, content: string, message: string): Promise<string> => {
        edit(work, file, content);
        git(work, 'commit', '--quiet', '-am', message);
        git(work, 'push', '--quiet', 'origin', 'main');
        const sha = git(work, 'rev-parse', 'HEAD');
        const body = JSON.stringify({
          ref: 'refs/heads/main',
          after: sha,
          repository: { full_name: 'acme/edge' },
        });
        expect((await githubHook(url, 'push', body, HOOK)).status).toBe(202);
        return sha;
      };

      // The start-up run writes 1.5.0 and ends; while the app is still progressing, a pushed DNS edit is applied.
      await until(() => run.events('rollout.started')[0], 'the first rollout to start', 20_000);
      await until(() => run.events('reconcile.finished')[0], 'the start-up run', 20_000);
      await push('dns/zones.yaml', dnsYaml(true), 'sign example-org');
      await until(
        () => run.events('change.applied').find((line) => line.subject === 'DnsZone/example-org'),
        'the DNS edit',
        20_000,
      );
      const first = await until(() => run.events('rollout.succeeded')[0], 'the first rollout', 20_000);
      const lines = run.lines();
      const dnsAt = lines.findIndex(
        (l) => l.event === 'change.applied' && l.subject === 'DnsZone/example-org',
      );
      expect(dnsAt).toBeGreaterThan(-1);
      expect(dnsAt).toBeLessThan(lines.findIndex((l) => l.event === 'rollout.succeeded'));
      expect(first).toMatchObject({ subject: 'ContainerApp/storefront', health: 'active' });

      // A pushed bad tag: applied, then failing; the notifier says why, and the good tag goes back.
      emu.journal.clear();
      const bad = await push('apps/storefront.yaml', appYaml(BAD), `storefront ${BAD}`);
      const failed = await until(() => run.events('rollout.failed')[0], 'the bad rollout to fail', 20_000);
      expect(failed).toMatchObject({
        subject: 'ContainerApp/storefront',
        revision: bad,
        health: 'failing',
        error: { code: 'ROLLOUT_FAILED' },
        container: { name: 'web', status: 'notStarted', reason: 'CrashLoopBackOff' },
        onFailure: 'rollback',
      });
      // The webhook's run pulled the commit first: its SHA is the revision that was applied.
      expect(run.events('reconcile.started')).toContainEqual(
        expect.objectContaining({ trigger: 'webhook', revision: bad }),
      );
      const notified = await until(
        () => receiver.requests.find((r) => (r.body as { event: string }).event === 'reconcile.failed'),
        'the failure notification',
        20_000,
      );
      expect(notified.body).toMatchObject({
        event: 'reconcile.failed',
        trigger: 'rollout',
        counts: { failed: 1 },
        subjects: [
          {
            subject: 'ContainerApp/storefront',
            outcome: 'failed',
            error: {
              code: 'ROLLOUT_FAILED',
              message: expect.stringMatching(
                new RegExp(
                  `^the rollout failed: the API says failing; container web: notStarted, 5 restarts, CrashLoopBackOff: .*; onFailure: rollback: applying ${good} again, the last revision that reached active$`,
                ),
              ),
            },
          },
        ],
      });
      const rolledBack = await until(
        () => run.events('rollout.succeeded').find((line) => line.rollbackOf !== undefined),
        'the rollback to roll out',
        20_000,
      );
      expect(rolledBack).toMatchObject({ subject: 'ContainerApp/storefront', health: 'active' });
      expect(run.events('reconcile.started').map((line) => line.trigger)).toContain('rollback');
      expect(webTag()).toBe('1.5.0');
      const tags = emu.journal
        .writes()
        .filter((w) => w.method === 'PATCH')
        .map(
          (w) =>
            (w.requestBody as { containerTemplates: { imageTag: string }[] }).containerTemplates[0]?.imageTag,
        );
      expect(tags).toEqual([BAD, '1.5.0']);

      // Held: another pushed run does not write the bad tag again.
      emu.journal.clear();
      await push('dns/zones.yaml', dnsYaml(false), 'unsign example-org');
      await until(
        () => run.events('change.applied').filter((line) => line.subject === 'DnsZone/example-org')[1],
        'another run',
        20_000,
      );
      // Once the run of that edit has ended (the status is Reconciling while it runs).
      type Status = {
        status: string;
        apps: Array<Record<string, unknown>>;
        resources: Array<{
          subject: string;
          state: string;
          lastError: { code: string; message: string } | null;
        }>;
      };
      const status = await until(
        async () => {
          const doc = (await request(`${url}/status`)).json as Status;
          return doc.status === 'Reconciling' ? undefined : doc;
        },
        'the run to end',
        20_000,
      );
      const metrics = (await request(`${url}/metrics`)).text;
      const all = `${run.output()}\n${JSON.stringify(status)}\n${metrics}\n${receiver.requests.map((r) => r.rawBody).join('\n')}`;
      process.kill(run.child.pid as number, 'SIGTERM');
      expect((await run.exit).code).toBe(0);

      expect(emu.journal.writes().filter((w) => w.path.startsWith('/mc/'))).toEqual([]);
      expect(webTag()).toBe('1.5.0');
      expect(status.status).toBe('Degraded');
      expect(status.apps).toEqual([
        expect.objectContaining({
          subject: 'ContainerApp/storefront',
          appId: 'app1',
          status: 'succeeded',
          health: 'active',
          rolledBackTo: good,
        }),
      ]);
      expect(status.resources.find((r) => r.subject === 'ContainerApp/storefront')).toMatchObject({
        state: 'failed',
        lastError: {
          code: 'ROLLOUT_FAILED',
          message: `the rollout of revision ${bad} failed and was rolled back to ${good}; it is not applied again until the document changes`,
        },
      });
      expect(metrics).toContain('edgesync_app_health{app="ContainerApp/storefront",status="active"} 1');
      expect(metrics).toContain('edgesync_app_health{app="ContainerApp/storefront",status="failing"} 0');
      expect(
        receiver.requests.filter((r) => (r.body as { event: string }).event === 'reconcile.failed'),
      ).toHaveLength(1);
      expect(all).not.toContain(SECRET);
    } finally {
      await receiver.close();
      await emu.close();
    }
  }, 60_000);
});
