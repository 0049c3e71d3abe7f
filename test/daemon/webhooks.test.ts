/**
 * Webhooks of `edgesync run`, in-process against a real emulator over real HTTP: signatures
 * (GitHub's documented test vector, rotation), GitHub push payloads from
 * @octokit/webhooks-examples, refusals (401, 404, 405, 413, 503), and 202 before the run.
 */
import { request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { WebhookDefinition } from '@octokit/webhooks-examples';
import { beforeEach, describe, expect, it } from 'vitest';
import { signBody } from '../../src/daemon/signatures.js';
import {
  edit,
  genericHook,
  githubHook,
  type InProcessDaemon,
  request,
  ruleYaml,
  secretFile,
  useDaemonFixture,
  writeDaemonConfig,
} from '../helpers/daemon.js';

const SECRET = 'new-webhook-secret-4f1c';
const OLD_SECRET = 'old-webhook-secret-9a2e';

/** GitHub's documented example ("Validating webhook deliveries"). */
const GITHUB_VECTOR = {
  secret: "It's a Secret to Everybody",
  payload: 'Hello, World!',
  signature: 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
};

/** The real payloads GitHub documents, as @octokit/webhooks-examples collects them (a JSON array). */
const webhookExamples = createRequire(import.meta.url)('@octokit/webhooks-examples') as WebhookDefinition[];

function pushExamples(ref: string): unknown[] {
  const push = webhookExamples.find((definition) => definition.name === 'push');
  return (push?.examples ?? []).filter((example) => (example as { ref?: string }).ref === ref);
}

const fx = useDaemonFixture();
let config: string;

beforeEach(() => {
  config = writeDaemonConfig(join(fx.root, 'config'));
});

async function start(
  options: { secrets?: readonly string[]; extra?: readonly string[] } = {},
): Promise<InProcessDaemon> {
  const secrets =
    options.secrets === undefined ? [] : ['--webhook-secret-file', secretFile(...options.secrets)];
  // A debounce far longer than any test: file edits reach the emulator only through a webhook.
  return fx.start(config, { extra: ['--debounce-ms', '600000', ...(options.extra ?? []), ...secrets] });
}

function reconciles(d: InProcessDaemon): number {
  return d.events('reconcile.started').length;
}

describe('webhooks', () => {
  it('a generic webhook signed with either secret of the file triggers a run that carries a changed file', async () => {
    const d = await start({ secrets: [OLD_SECRET, SECRET] });
    edit(config, 'shield/rules.yaml', ruleYaml('Block SQLi (changed)'));

    const reply = await genericHook(d.url, '{"source":"ci"}', SECRET);
    const applied = await d.waitForEvent('change.applied');
    edit(config, 'shield/rules.yaml', ruleYaml('Block SQLi (rotated)'));
    const rotated = await genericHook(d.url, '{}', OLD_SECRET);
    await d.waitForEvent('change.applied', () => true, 2);
    await d.waitForEvent('reconcile.finished', () => true, 5);

    expect(reply.status).toBe(202);
    expect(reply.json).toEqual({ accepted: true });
    expect(rotated.status).toBe(202);
    expect(applied.subject).toBe('WafCustomRule/block-sqli');
    // Each webhook run applies the changed rule first, then reconciles the two DNS zones.
    expect(d.events('reconcile.started').map((line) => [line.trigger, line.resources])).toEqual([
      ['startup', 3],
      ['webhook', 1],
      ['webhook', 2],
      ['webhook', 1],
      ['webhook', 2],
    ]);
    expect(fx.emu.journal.writes().map((entry) => [entry.method, entry.path, entry.status])).toEqual([
      ['PATCH', '/shield/waf/custom-rule/1234', 200],
      ['PATCH', '/shield/waf/custom-rule/1234', 200],
    ]);
    expect(fx.emu.state.customRule(1234)?.ruleName).toBe('Block SQLi (rotated)');
    expect(d.events('trigger.received').filter((line) => line.reason === 'webhook')).toHaveLength(2);
  });

  it("verifies GitHub's documented test vector on both hook routes", async () => {
    const d = await start({ secrets: [GITHUB_VECTOR.secret] });
    const headers = { 'content-type': 'text/plain', 'x-github-event': 'issues' };

    const generic = await genericHook(d.url, GITHUB_VECTOR.payload, { signature: GITHUB_VECTOR.signature });
    const github = await request(`${d.url}/hooks/github`, {
      method: 'POST',
      headers: { ...headers, 'x-hub-signature-256': GITHUB_VECTOR.signature },
      body: GITHUB_VECTOR.payload,
    });
    const tampered = await request(`${d.url}/hooks/github`, {
      method: 'POST',
      headers: { ...headers, 'x-hub-signature-256': GITHUB_VECTOR.signature },
      body: 'Hello, World?',
    });
    await d.waitForEvent('reconcile.finished', () => true, 2);

    expect(signBody(GITHUB_VECTOR.secret, GITHUB_VECTOR.payload)).toBe(GITHUB_VECTOR.signature);
    expect([generic.status, generic.json]).toEqual([202, { accepted: true }]);
    expect([github.status, github.json]).toEqual([202, { accepted: false, note: 'event ignored' }]);
    expect([tampered.status, tampered.json]).toEqual([401, { error: 'unauthorized' }]);
    expect(d.events('reconcile.started').map((line) => line.trigger)).toEqual(['startup', 'webhook']);
  });

  it('GitHub push examples trigger for the tracked branch only; ping is answered', async () => {
    const d = await start({ secrets: [SECRET], extra: ['--git-branch', 'master'] });
    const master = pushExamples('refs/heads/master');
    const tags = pushExamples('refs/tags/simple-tag');

    const ping = await githubHook(
      d.url,
      'ping',
      JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 }),
      SECRET,
    );
    const ignored = [];
    for (const example of tags)
      ignored.push(await githubHook(d.url, 'push', JSON.stringify(example), SECRET));
    const settledBefore = reconciles(d);
    const accepted = await githubHook(d.url, 'push', JSON.stringify(master[0]), SECRET);
    const trigger = await d.waitForEvent('trigger.received', (line) => line.reason === 'webhook');
    await d.waitForEvent('reconcile.finished', () => true, 2);

    expect(master.length).toBeGreaterThan(0);
    expect(tags.length).toBeGreaterThan(0);
    expect([ping.status, ping.json]).toEqual([200, { ok: true, event: 'ping' }]);
    expect(ignored.map((r) => [r.status, r.json])).toEqual(
      tags.map(() => [202, { accepted: false, note: 'ref not tracked' }]),
    );
    expect(settledBefore).toBe(1);
    expect([accepted.status, accepted.json]).toEqual([202, { accepted: true }]);
    expect(trigger).toMatchObject({
      hook: 'github',
      githubEvent: 'push',
      ref: 'refs/heads/master',
      after: (master[0] as { after: string }).after,
      delivery: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
    });
    expect(reconciles(d)).toBe(2);
  });

  it('a push to another branch than --git-branch (default main) does not reconcile', async () => {
    const d = await start({ secrets: [SECRET] });
    const [master] = pushExamples('refs/heads/master');

    const reply = await githubHook(d.url, 'push', JSON.stringify(master), SECRET);
    await d.stop();

    expect([reply.status, reply.json]).toEqual([202, { accepted: false, note: 'ref not tracked' }]);
    expect(reconciles(d)).toBe(1);
  });

  it('a bad or missing signature gets 401 and no reconcile', async () => {
    const d = await start({ secrets: [SECRET] });
    const body = JSON.stringify(pushExamples('refs/heads/master')[0]);

    const wrongSecret = await genericHook(d.url, body, 'not-the-secret');
    const missing = await genericHook(d.url, body, {});
    const malformed = await genericHook(d.url, body, { signature: 'sha256=zz' });
    const sha1 = await request(`${d.url}/hooks/github`, {
      method: 'POST',
      headers: {
        'x-github-event': 'push',
        'x-hub-signature': 'sha1=0000000000000000000000000000000000000000',
      },
      body,
    });
    await d.stop();

    expect([wrongSecret, missing, malformed, sha1].map((r) => [r.status, r.json])).toEqual([
      [401, { error: 'unauthorized' }],
      [401, { error: 'unauthorized' }],
      [401, { error: 'unauthorized' }],
      [401, { error: 'unauthorized' }],
    ]);
    expect(reconciles(d)).toBe(1);
    // The first rejection at once, the rest summed per hook and reason (flushed at shutdown).
    expect(d.events('webhook.rejected').map((l) => [l.hook, l.reason, l.count])).toEqual([
      ['generic', 'unauthorized', 1],
      ['generic', 'unauthorized', 2],
      ['github', 'unauthorized', 1],
    ]);
  });

  it('without --webhook-secret-file the hook routes answer 404, whatever the method', async () => {
    const d = await start();

    const github = await githubHook(d.url, 'push', '{}', SECRET);
    const generic = await genericHook(d.url, '{}', SECRET);
    const get = await request(`${d.url}/hooks/generic`);

    expect([github.status, generic.status, get.status]).toEqual([404, 404, 404]);
    expect(github.json).toEqual({ error: 'not found' });
    expect(reconciles(d)).toBe(1);
  });

  it('routes: unknown paths 404, wrong methods 405 with Allow', async () => {
    const d = await start({ secrets: [SECRET] });

    const unknown = await request(`${d.url}/nope`);
    const getHook = await request(`${d.url}/hooks/github`);
    const postHealth = await request(`${d.url}/healthz`, { method: 'POST', body: 'x' });

    expect([unknown.status, unknown.json]).toEqual([404, { error: 'not found' }]);
    expect([getHook.status, getHook.headers.get('allow')]).toEqual([405, 'POST']);
    expect([postHealth.status, postHealth.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });

  it('a body over 1 MiB gets 413 without being read: by Content-Length, and while streaming', async () => {
    const d = await start({ secrets: [SECRET] });
    const { port } = new URL(d.url);

    // Declares 10 MiB but sends 64 KiB: a server that buffered it all would wait forever.
    const declared = await sendPartial(
      Number(port),
      { 'content-length': String(10 * 1024 * 1024) },
      64 * 1024,
    );
    // Chunked, no length: 1.5 MiB streamed and the request never ended.
    const streamed = await sendPartial(Number(port), { 'transfer-encoding': 'chunked' }, 1.5 * 1024 * 1024);

    expect(declared).toEqual({ status: 413, body: { error: 'payload too large' }, connection: 'close' });
    expect(streamed).toEqual({ status: 413, body: { error: 'payload too large' }, connection: 'close' });
    expect(reconciles(d)).toBe(1);
  });

  it('answers 202 before the run it asked for has finished', async () => {
    const d = await start({ secrets: [SECRET] });
    // Every read of the next run waits 400 ms in the emulator.
    fx.emu.faults.set({ latencyMs: 400 });

    const reply = await genericHook(d.url, '{}', SECRET);
    const finishedAtReply = d.events('reconcile.finished').length;
    await d.waitForEvent('reconcile.finished', () => true, 2);

    expect(reply.status).toBe(202);
    expect(finishedAtReply).toBe(1);
  });

  it('answers 503 to hooks once shutting down, while the run in flight finishes', async () => {
    const d = await start({ secrets: [SECRET] });
    fx.emu.faults.script({ operation: 'listCustomWafRules', reply: { delayMs: 1200 } });
    await genericHook(d.url, '{}', SECRET);
    await d.waitForEvent('reconcile.started', () => true, 2);

    const exit = d.stop();
    await d.waitForEvent('daemon.stopping');
    const late = await genericHook(d.url, '{}', SECRET);
    const code = await exit;

    expect([late.status, late.json]).toEqual([503, { error: 'shutting down' }]);
    expect(code).toBe(0);
    expect(d.events('reconcile.finished')).toHaveLength(2);
    expect(d.events('daemon.stopped')[0]?.aborted).toBe(false);
  });
});

/**
 * Sends a POST to /hooks/generic with `headers`, writes `bytes` of body in 16 KiB chunks and
 * never ends the request; resolves with the reply as soon as one arrives.
 */
function sendPartial(
  port: number,
  headers: Record<string, string>,
  bytes: number,
): Promise<{ status: number; body: unknown; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/hooks/generic',
        headers: { ...headers, 'x-signature': 'sha256=00' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          req.destroy();
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(text),
            connection: res.headers.connection,
          });
        });
      },
    );
    req.on('error', (err) => {
      if (!req.destroyed) reject(err);
    });
    const chunk = Buffer.alloc(16 * 1024, 0x61);
    let sent = 0;
    function write(): void {
      while (sent < bytes) {
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', write);
          return;
        }
      }
    }
    write();
    // Give up after a while: a server that waits for the whole body never answers.
    setTimeout(() => reject(new Error('no reply to an oversized body')), 5000).unref();
  });
}
