/**
 * The GitHub Action's pull-request check (src/ci/pull-request-check.ts; docs/ci.md) against a
 * real `node:http` stand-in of GitHub's issue-comment API (list with pagination, create,
 * update) and the emulator: the first push creates one comment, the next edits it; a plan over
 * GitHub's limit is cut and kept whole in the job summary; a config that does not validate
 * fails the check and reads nothing; `pull_request_target` on a checkout of the pull request is
 * refused before anything is read. The token and the access key appear in no output.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commentMarker } from '../../../src/ci/comment-body.js';
import { runPullRequestCheck } from '../../../src/ci/pull-request-check.js';
import type { CliIo } from '../../../src/cli/io.js';
import type { Emulator } from '../../../src/emulator/index.js';
import { startEmulator } from '../../../src/emulator/index.js';
import { TEST_KEY, TEST_SEED, withEmulator } from '../../helpers/emulator.js';
import { git } from '../../helpers/git.js';
import { type RecordedRequest, send, startTestServer, type TestServer } from '../../helpers/http-server.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';

const TOKEN = 'ghs_token-5f1c9e-never-print';
const REPO = 'acme/edge';
const PR = 7;
const MARKER = commentMarker(undefined);
const DOC = 'apiVersion: edgesync/v1\n';

interface Comment {
  id: number;
  body: string;
  user: { login: string; type: string };
}

/** GitHub's issue comments of one pull request, paged by 100 with a Link header. */
function gitHub(
  comments: Comment[],
): (request: RecordedRequest, res: import('node:http').ServerResponse) => void {
  let nextId = 1000;
  return (request, res) => {
    if (request.headers.authorization !== `Bearer ${TOKEN}`)
      return send(res, 401, { message: 'Bad credentials' });
    const text = (request.body as { body?: string } | undefined)?.body;
    // GitHub refuses a longer body: "Body is too long (maximum is 65536 characters)".
    if (typeof text === 'string' && text.length > 65_536)
      return send(res, 422, { message: 'Validation Failed' });
    const url = new URL(request.path, 'http://stand-in');
    const list = `/repos/${REPO}/issues/${PR}/comments`;
    if (request.method === 'GET' && url.pathname === list) {
      const perPage = Number(url.searchParams.get('per_page') ?? 30);
      const page = Number(url.searchParams.get('page') ?? 1);
      const slice = comments.slice((page - 1) * perPage, page * perPage);
      const more = page * perPage < comments.length;
      const next = `<http://${request.headers.host}${list}?per_page=${perPage}&page=${page + 1}>; rel="next"`;
      return send(res, 200, slice, more ? { link: next } : {});
    }
    if (request.method === 'POST' && url.pathname === list) {
      const comment = {
        id: nextId++,
        body: (request.body as { body: string }).body,
        user: { login: 'github-actions[bot]', type: 'Bot' },
      };
      comments.push(comment);
      return send(res, 201, comment);
    }
    const edit = /^\/repos\/acme\/edge\/issues\/comments\/(\d+)$/.exec(url.pathname);
    if (request.method === 'PATCH' && edit !== null) {
      const comment = comments.find((c) => c.id === Number(edit[1]));
      if (comment === undefined) return send(res, 404, { message: 'Not Found' });
      comment.body = (request.body as { body: string }).body;
      return send(res, 200, comment);
    }
    return send(res, 404, { message: 'Not Found' });
  };
}

/** 150 comments of people: the plan comment lands on the second page. One of them quotes the marker. */
function peoplesComments(): Comment[] {
  return Array.from({ length: 150 }, (_, i) => ({
    id: i + 1,
    body: i === 3 ? `${MARKER}\nI pasted this` : `comment ${i + 1}`,
    user: { login: `person${i}`, type: 'User' },
  }));
}

const CONFIG = {
  'dns.yaml': `${DOC}kind: DnsZone\nmetadata: { name: example-com }\nspec: { id: 12345, dnssec: false }\n`,
};

describe('the pull-request check', () => {
  let emu: Emulator;
  let github: TestServer;
  let comments: Comment[];
  let work: string;
  let summary: string;
  let outputs: string[];

  beforeEach(async () => {
    emu = await withEmulator();
    comments = peoplesComments();
    github = await startTestServer(gitHub(comments));
    work = tempDir();
    summary = join(work, 'summary.md');
    writeFileSync(summary, '');
    outputs = [];
  });
  afterEach(async () => {
    await emu.close();
    await github.close();
  });

  function event(name: string, extra: Record<string, unknown> = {}): Record<string, string> {
    const path = join(tempDir(), 'event.json');
    const sameRepo = { full_name: REPO };
    writeFileSync(
      path,
      JSON.stringify({
        pull_request: {
          number: PR,
          head: { sha: 'a'.repeat(40), repo: sameRepo },
          base: { sha: 'b'.repeat(40), repo: sameRepo },
        },
        ...extra,
      }),
    );
    return { GITHUB_EVENT_NAME: name, GITHUB_EVENT_PATH: path };
  }

  async function check(config: string, env: Record<string, string> = {}, target = emu) {
    let stdout = '';
    let stderr = '';
    const io: CliIo = {
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s) },
      env: {
        EDGESYNC_CONFIG: config,
        EDGESYNC_ACCESS_KEY: TEST_KEY,
        EDGESYNC_BASE_URL: target.url,
        EDGESYNC_STATE_DIR: tempDir(),
        GITHUB_TOKEN: TOKEN,
        GITHUB_API_URL: github.url,
        GITHUB_REPOSITORY: REPO,
        GITHUB_SERVER_URL: 'https://github.example',
        GITHUB_RUN_ID: '4242',
        GITHUB_SHA: 'c'.repeat(40),
        GITHUB_STEP_SUMMARY: summary,
        ...event('pull_request'),
        ...env,
      },
      cwd: work,
      signal: new AbortController().signal,
    };
    const code = await runPullRequestCheck(io);
    outputs.push(stdout, stderr);
    return { code, stdout, stderr };
  }

  function planComments(): Comment[] {
    return comments.filter((c) => c.body.startsWith(MARKER) && c.user.type === 'Bot');
  }

  /** Every byte the check wrote or sent: its output, the job summary, the comments. */
  function everything(): string {
    return [...outputs, readFileSync(summary, 'utf8'), ...github.requests.map((r) => r.rawBody)].join('\n');
  }

  it('creates one comment on the first push and edits it on the next', async () => {
    const config = writeTree(tempDir(), CONFIG);
    const first = await check(config);
    const afterFirst = planComments().map((c) => ({ ...c }));
    writeTree(config, {
      'dns.yaml': `${DOC}kind: DnsZone\nmetadata: { name: example-org }\nspec: { id: 12346, dnssec: true }\n`,
    });
    const requestsBefore = github.requests.length;
    const second = await check(config, event('pull_request', {}));

    expect(first.code).toBe(0);
    expect(first.stdout).toContain('edgesync: plan comment created (#1000)');
    expect(afterFirst).toHaveLength(1);
    const body = afterFirst[0]?.body ?? '';
    expect(body.split('\n').slice(0, 2)).toEqual([MARKER, '**Plan: 1 to change, 0 unchanged.**']);
    expect(body).toContain('| ✏️ | `DnsZone/example-com` | `dnssec` | `true` | `false` |');
    expect(body).toContain(
      `<sub>edgesync ✅ passed · commit \`aaaaaaaaaaaa\` · [run 4242](https://github.example/${REPO}/actions/runs/4242)</sub>`,
    );
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('edgesync: plan comment updated (#1000)');
    expect(planComments()).toHaveLength(1);
    expect(planComments()[0]?.body).toContain('| ✏️ | `DnsZone/example-org` | `dnssec` | `false` | `true` |');
    // The person's comment that quotes the marker is left alone.
    expect(comments[3]?.body).toBe(`${MARKER}\nI pasted this`);
    const secondRun = github.requests.slice(requestsBefore).map((r) => `${r.method} ${r.path}`);
    expect(secondRun).toEqual([
      `GET /repos/${REPO}/issues/${PR}/comments?per_page=100`,
      `GET /repos/${REPO}/issues/${PR}/comments?per_page=100&page=2`,
      `PATCH /repos/${REPO}/issues/comments/1000`,
    ]);
    expect(emu.journal.writes()).toEqual([]);
    expect(everything()).not.toContain(TOKEN);
    expect(everything()).not.toContain(TEST_KEY);
  });

  it('fails the check when the config does not validate, reads nothing, and says why in the comment', async () => {
    const config = writeTree(tempDir(), {
      'dns.yaml': `${DOC}kind: DnsZone\nmetadata: { name: example-com }\nspec: { id: 12345, dnssec: maybe }\n`,
    });

    const run = await check(config);

    expect(run.code).toBe(1);
    expect(emu.journal.count()).toBe(0);
    const body = planComments()[0]?.body ?? '';
    expect(body).toContain('**❌ The desired state does not validate.**');
    expect(body).toMatch(/dns\.yaml:4:\d+: /);
    expect(body).toContain('<sub>edgesync ❌ failed');
    expect(everything()).not.toContain(TOKEN);
    expect(everything()).not.toContain(TEST_KEY);
  });

  it('fails the check when the plan has errors, and still posts the plan', async () => {
    const config = writeTree(tempDir(), {
      'dns.yaml': `${DOC}kind: DnsZone\nmetadata: { name: missing }\nspec: { id: 99999, dnssec: false }\n---\n${CONFIG['dns.yaml']}`,
    });

    const run = await check(config);

    expect(run.code).toBe(1);
    const body = planComments()[0]?.body ?? '';
    expect(body).toContain('1 failed or refused');
    expect(body).toContain('| ❌ | `DnsZone/missing` |');
  });

  it('cuts a plan over GitHub’s comment limit, and keeps it whole in the job summary', async () => {
    // 500 of 1,800 change: under the change threshold (30 %), and over 65,536 characters.
    const zones = Array.from({ length: 1800 }, (_, i) => 20000 + i);
    const big = await startEmulator({
      accessKey: TEST_KEY,
      seed: {
        ...TEST_SEED,
        dnsZones: zones.map((id) => ({ id, domain: `z${id}.example`, dnsSecEnabled: id < 20500 })),
      },
    });
    try {
      const config = writeTree(tempDir(), {
        'dns.yaml': zones
          .map(
            (id) =>
              `${DOC}kind: DnsZone\nmetadata: { name: production-zone-${id} }\nspec: { id: ${id}, dnssec: false }\n`,
          )
          .join('---\n'),
      });

      const run = await check(config, {}, big);

      expect([run.code, run.stderr]).toEqual([0, '']);
      expect(run.stdout).toContain(
        'plan comment created (#1000); cut to fit, the whole plan is in the job summary',
      );
      const body = planComments()[0]?.body ?? '';
      expect(body.length).toBeLessThanOrEqual(65_536);
      expect(body.split('\n')[1]).toBe('**Plan: 500 to change, 1300 unchanged.**');
      expect(body).toMatch(
        /> \*\*The plan is cut here\*\*: \d+ of \d+ characters are shown, as GitHub takes at most 65536 in a comment\. The whole plan is in the \[job summary\]\(https:\/\/github\.example\/acme\/edge\/actions\/runs\/4242\)\./,
      );
      const full = readFileSync(summary, 'utf8');
      expect(full).toContain('- `DnsZone/production-zone-21799`');
      expect(body).not.toContain('`DnsZone/production-zone-21799`');
      // What was cut inside the collapsed list is closed again.
      expect(body.match(/<details>/g)?.length).toBe(body.match(/<\/details>/g)?.length);
      expect(everything()).not.toContain(TOKEN);
      expect(everything()).not.toContain(TEST_KEY);
    } finally {
      await big.close();
    }
  }, 120_000);

  it('refuses pull_request_target with the key when the checkout is the pull request, before anything is read', async () => {
    const config = writeTree(tempDir(), CONFIG);
    git(config, 'init', '-q');
    git(config, 'add', '.');
    git(config, 'commit', '-qm', 'the pull request');
    const head = git(config, 'rev-parse', 'HEAD');

    const refused = await check(config, event('pull_request_target'));
    const seen = { github: github.requests.length, api: emu.journal.count() };
    const base = await check(config, {
      ...event('pull_request_target', {
        pull_request: { number: PR, base: { sha: head, repo: { full_name: REPO } }, head: { sha: head } },
      }),
    });

    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `edgesync: refusing to run on pull_request_target with the access key: the checkout is ${head}, not the base commit ${'b'.repeat(40)}. Code from a pull request must never run with the key; see docs/ci.md, Forks, for the two-workflow pattern\n`,
    );
    expect(seen).toEqual({ github: 0, api: 0 });
    expect(base.code).toBe(0);
    expect(base.stdout).toContain('edgesync: plan comment created');
    expect(everything()).not.toContain(TOKEN);
  });

  it('validates only and leaves no comment for a pull request from a fork (no key, read-only token)', async () => {
    const config = writeTree(tempDir(), CONFIG);

    const run = await check(config, {
      EDGESYNC_ACCESS_KEY: '',
      ...event('pull_request', {
        pull_request: {
          number: PR,
          head: { sha: 'a'.repeat(40), repo: { full_name: 'mallory/edge' } },
          base: { sha: 'b'.repeat(40), repo: { full_name: REPO } },
        },
      }),
    });

    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      '**✅ The desired state validates.** Not planned: this run has no access key',
    );
    expect(github.requests).toEqual([]);
    expect(emu.journal.count()).toBe(0);
  });
});
