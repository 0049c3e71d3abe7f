/**
 * The daemon's HTTP surface under hostile or careless use, over real HTTP: `--metrics-listen`
 * keeps the operational routes off the hooks' listener, an emptied or deleted secret file
 * turns the hooks off (the old secret never keeps working), and a flood of unsigned hook
 * requests is logged in aggregate.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  genericHook,
  request,
  secretFile,
  until,
  useDaemonFixture,
  writeDaemonConfig,
} from '../helpers/daemon.js';

const SECRET = 'hook-secret-7d21';

const fx = useDaemonFixture();

describe('--metrics-listen', () => {
  it('serves health, readiness, metrics, status and the status page apart from the hooks', async () => {
    const config = writeDaemonConfig(join(fx.root, 'config'));
    const d = await fx.start(config, {
      extra: ['--webhook-secret-file', secretFile(SECRET), '--metrics-listen', '127.0.0.1:0'],
    });
    const ops = String(d.events('daemon.started')[0]?.metricsListen);

    const paths = ['/healthz', '/readyz', '/metrics', '/status', '/', '/ui/app.js'];
    const onHooks = await Promise.all(paths.map((path) => request(`${d.url}${path}`)));
    const onOps = await Promise.all(paths.map((path) => request(`${ops}${path}`)));
    const hookOnOps = await genericHook(ops, '{}', SECRET);
    const hook = await genericHook(d.url, '{}', SECRET);

    expect(ops).not.toBe(d.url);
    expect(d.events('daemon.started')[0]?.statusPage).toBe(`${ops}/`);
    expect(onHooks.map((r) => r.status)).toEqual([404, 404, 404, 404, 404, 404]);
    expect(onOps.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(hookOnOps.status).toBe(404);
    expect(hook.status).toBe(202);
  });

  it('without it, everything stays on --listen', async () => {
    const config = writeDaemonConfig(join(fx.root, 'config'));
    const d = await fx.start(config);

    const replies = await Promise.all(['/healthz', '/metrics'].map((path) => request(`${d.url}${path}`)));

    expect(d.events('daemon.started')[0]?.metricsListen).toBe(d.url);
    expect(replies.map((r) => r.status)).toEqual([200, 200]);
  });
});

describe('the webhook secret file', () => {
  it.each([
    ['emptied', (file: string) => writeFileSync(file, '')],
    ['deleted', (file: string) => rmSync(file)],
  ])(
    '%s: the hooks answer 404 and the old secret stops working, until a secret is back',
    async (_name, breakFile) => {
      const config = writeDaemonConfig(join(fx.root, 'config'));
      const file = secretFile(SECRET);
      const d = await fx.start(config, { extra: ['--webhook-secret-file', file] });

      const before = await genericHook(d.url, '{}', SECRET);
      await until(() => d.events('reconcile.finished')[1], 'the first hook run');
      breakFile(file);
      const broken = await genericHook(d.url, '{}', SECRET);
      writeFileSync(file, 'a-new-secret\n');
      const oldAgain = await genericHook(d.url, '{}', SECRET);
      const renewed = await genericHook(d.url, '{}', 'a-new-secret');
      await until(() => d.events('reconcile.finished')[2], 'the renewed hook run');

      expect([before.status, broken.status, oldAgain.status, renewed.status]).toEqual([202, 404, 401, 202]);
      expect(broken.json).toEqual({ error: 'not found' });
      expect(d.events('webhook.secrets.unreadable')).toHaveLength(1);
      expect(d.events('trigger.received').filter((l) => l.reason === 'webhook')).toHaveLength(2);
      expect(d.output()).not.toContain(SECRET);
    },
  );
});

describe('unauthenticated hook requests', () => {
  it('are logged in aggregate: one line at once, one summary with the count at the end of the window', async () => {
    const config = writeDaemonConfig(join(fx.root, 'config'));
    const d = await fx.start(config, { extra: ['--webhook-secret-file', secretFile(SECRET)] });

    const replies = [];
    for (let i = 0; i < 200; i += 1) replies.push(await genericHook(d.url, `{"n":${i}}`, 'wrong'));
    const during = d.events('webhook.rejected');
    await d.stop();

    expect(replies.every((r) => r.status === 401)).toBe(true);
    expect(during).toMatchObject([{ level: 'warn', hook: 'generic', reason: 'unauthorized', count: 1 }]);
    expect(d.events('webhook.rejected').map((l) => l.count)).toEqual([1, 199]);
  });
});
