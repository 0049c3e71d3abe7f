/**
 * An API that quotes back a container secret it refused — as sent, JSON-escaped, upper-cased or
 * URL-encoded — puts it nowhere a daemon shows (docs/secrets.md, What is printed): a spawned
 * `edgesync run` applies an app whose DATABASE_URL is a secret, the emulator answers the app's
 * update with a 400 that echoes the value in each form, and a `node:http` receiver takes the
 * failure notification. The log, /status, /metrics, the receiver's bodies and the state
 * directory are searched byte for byte; the failure itself is kept (status, field).
 */
import { join } from 'node:path';
import { afterEach, describe, expect } from 'vitest';
import { WITHHELD_MESSAGE } from '../../src/api/errors.js';
import { daemonArgs, request, until } from '../helpers/daemon.js';
import { TEST_KEY, test } from '../helpers/emulator.js';
import { reply, startTestServer, type TestServer } from '../helpers/http-server.js';
import { filesOf } from '../helpers/secrets.js';
import { spawnRun, useSpawnedDaemons } from '../helpers/spawn-daemon.js';
import { tempDir, writeTree } from '../helpers/temp-dir.js';

useSpawnedDaemons();

const SECRET = 'postgres://app:S3cr"et\\pw/ünï@db/prod-7e1f';
/** Every form an API might quote it in, and pieces long enough to be it. */
const FORMS = [
  SECRET,
  JSON.stringify(SECRET).slice(1, -1),
  SECRET.toUpperCase(),
  encodeURIComponent(SECRET),
  SECRET.slice(0, 20),
];
const NEEDLES = [...FORMS, 'S3cr', 'S3CR', 'prod-7e1f', 'PROD-7E1F'];
const leaks = (text: string): string[] => NEEDLES.filter((needle) => text.includes(needle));

const FIELD = 'containerTemplates[0].environmentVariables[1].value';
const quoted = FORMS.join(' | ');

const APP = `apiVersion: edgesync/v1
kind: ContainerApp
metadata: { name: storefront }
spec:
  appId: app1
  containerTemplates:
    - name: web
      environmentVariables:
        - { name: LOG_LEVEL, value: info }
        - name: DATABASE_URL
          valueFrom: { env: EDGESYNC_SECRET_DATABASE_URL }
    - name: worker
`;

const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

describe('a secret the API quotes back (spawned daemon)', () => {
  test('reaches neither /status nor a notification, in any form; the failure keeps its status and field', async ({
    emu,
  }) => {
    const receiver = await startTestServer(reply(200, {}));
    servers.push(receiver);
    const root = tempDir();
    const config = writeTree(join(root, 'config'), { 'storefront.yaml': APP });
    writeTree(root, { hooks: `${receiver.url}/hook\n` });
    emu.faults.script({
      operation: 'patchApp',
      times: 10,
      reply: {
        status: 400,
        body: {
          title: `Invalid value ${quoted}`,
          detail: `value ${quoted} is not allowed`,
          errors: [{ field: FIELD, message: `"${quoted}" is not a valid value` }],
        },
      },
    });
    const stateDir = join(root, 'state');
    const daemon = spawnRun(
      daemonArgs({
        config,
        stateDir,
        baseUrl: emu.url,
        extra: [
          '--log-level',
          'debug',
          '--notify-webhook-file',
          join(root, 'hooks'),
          '--notify-min-interval',
          '1ms',
        ],
      }),
      { EDGESYNC_ACCESS_KEY: TEST_KEY, EDGESYNC_SECRET_DATABASE_URL: SECRET },
    );
    const url = String(
      (await until(() => daemon.events('daemon.started')[0], 'daemon.started', 20_000)).listen,
    );
    await until(() => daemon.events('reconcile.finished')[0], 'the start-up run', 20_000);
    await until(() => receiver.requests.length >= 1, 'the failure notification', 20_000);
    const status = (await request(`${url}/status`)).text;
    const metrics = (await request(`${url}/metrics`)).text;
    daemon.child.kill('SIGTERM');
    await daemon.exit;

    // The update went out carrying the secret, and was refused.
    const patches = emu.journal.writes().filter((w) => w.method === 'PATCH');
    expect(patches.length).toBeGreaterThanOrEqual(1);
    expect(patches.every((w) => w.status === 400)).toBe(true);
    expect(JSON.stringify(patches[0]?.requestBody)).toContain(JSON.stringify(SECRET).slice(1, -1));
    const bodies = receiver.requests.map((r) => JSON.stringify(r.body)).join('\n');
    expect(receiver.requests[0]?.body).toMatchObject({ event: 'reconcile.failed' });
    for (const shown of [status, bodies]) {
      expect(shown).toContain(WITHHELD_MESSAGE);
      expect(shown).toContain('400');
    }
    expect(status).toContain(FIELD);
    const everything = [daemon.output(), status, metrics, bodies, filesOf(stateDir)].join('\n');
    expect(leaks(everything)).toEqual([]);
  }, 60_000);
});
