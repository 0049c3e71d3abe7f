/**
 * Commit statuses against a GitHub API stand-in (`node:http`), with the repository read from
 * a real work tree's `origin`: the https form with credentials in it (used for the route,
 * never logged), and a work tree without `origin` (no status, one warning).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createDelivery, type DeliveryResult } from '../../../src/daemon/notify/delivery.js';
import { createCommitStatuses } from '../../../src/daemon/notify/github-status.js';
import { NO_COUNTS, type RunSummary } from '../../../src/daemon/notify/run-summary.js';
import { createLogger } from '../../../src/log.js';
import { until } from '../../helpers/daemon.js';
import { git } from '../../helpers/git.js';
import { reply, startTestServer, type TestServer } from '../../helpers/http-server.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';

const TOKEN = 'ghs_StandInToken_never_logged';
const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** A work tree with one commit and, when given, an `origin` remote; returns it and its HEAD. */
function workTree(origin?: string): { dir: string; sha: string } {
  const dir = writeTree(tempDir(), { 'a.yaml': 'x: 1\n' });
  git(dir, 'init', '--quiet', '-b', 'main');
  if (origin !== undefined) git(dir, 'remote', 'add', 'origin', origin);
  git(dir, 'add', '.');
  git(dir, 'commit', '--quiet', '-m', 'one');
  return { dir, sha: git(dir, 'rev-parse', 'HEAD') };
}

function finished(revision: string): RunSummary {
  return {
    revision,
    trigger: 'schedule',
    full: true,
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 3,
    result: 'reconciled',
    counts: { ...NO_COUNTS, unchanged: 4 },
    subjects: [],
    failingTotal: 0,
  };
}

async function setup(configPath: string) {
  const server = await startTestServer(reply(201, {}));
  servers.push(server);
  const lines: Record<string, unknown>[] = [];
  const counts: DeliveryResult[] = [];
  const logger = createLogger({
    level: 'debug',
    destination: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  const delivery = createDelivery({ logger, count: (_target, result) => counts.push(result) });
  const statuses = createCommitStatuses({
    apiUrl: new URL(server.url),
    token: TOKEN,
    configPath,
    userAgent: 'edgesync/test',
    delivery,
    logger,
  });
  return { server, lines, counts, delivery, statuses };
}

describe('commit statuses', () => {
  it('go to the repository of an https origin, credentials and all left out of the logs', async () => {
    const { dir, sha } = workTree('https://x-access-token:ghp_inTheRemote@github.com/acme/edge-config.git');
    const { server, lines, counts, delivery, statuses } = await setup(dir);

    statuses.runFinished(finished(sha));
    statuses.runFinished(finished(sha));
    statuses.runFinished(finished('config:0123456789ab'));
    await until(() => counts.length === 1, 'the status to be delivered');
    await delivery.close(1000);

    expect(server.requests.map((r) => [r.method, r.path, r.headers.authorization, r.body])).toEqual([
      [
        'POST',
        `/repos/acme/edge-config/statuses/${sha}`,
        `Bearer ${TOKEN}`,
        { state: 'success', context: 'edgesync', description: '4 unchanged' },
      ],
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/ghp_inTheRemote|never_logged/);
  });

  it('are skipped, with one warning, when the work tree has no origin and no --github-repo', async () => {
    const { dir, sha } = workTree();
    const { server, lines, delivery, statuses } = await setup(dir);

    statuses.runFinished(finished(sha));
    statuses.applyStarting({ revision: sha, trigger: 'webhook', writes: 2 });
    statuses.runFinished({ ...finished(sha), counts: { ...NO_COUNTS, applied: 2 } });
    await until(() => lines.some((l) => l.event === 'notify.github.no-repo'), 'the warning');
    await delivery.close(1000);

    expect(server.requests).toEqual([]);
    expect(lines.filter((l) => l.event === 'notify.github.no-repo')).toHaveLength(1);
  });
});
