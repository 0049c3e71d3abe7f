/**
 * The access key travels in one header of every request and must appear nowhere else: not in
 * error messages, not in `details`, not in the error's inspected form (causes included), not in
 * any log line, even at debug level and even when the server echoes it back.
 */
import { inspect } from 'node:util';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { ApiError } from '../../../src/api/errors.js';
import { createTestClient, TEST_ACCESS_KEY, type TestClient } from '../../helpers/api-client.js';
import {
  dropConnection,
  type Handler,
  hang,
  reply,
  startTestServer,
  type TestServer,
} from '../../helpers/http-server.js';
import { APP_ID, patchAppCreatingBody, ZONE } from './fixtures.js';

let server: TestServer;
let test: TestClient;

beforeEach(async () => {
  server = await startTestServer();
  test = createTestClient(server.url, { timeoutMs: 200, retry: { maxAttempts: 2, baseDelayMs: 5 } });
});

afterEach(async () => {
  await test.dispose();
  await server.close();
});

/** A server that quotes the key it received in every kind of error body. */
const echoes: Array<[string, Handler]> = [
  [
    'problem details',
    (req, res) => reply(401, { title: `Key ${String(req.headers.accesskey)} is unknown` })(req, res),
  ],
  [
    'envelope error',
    (req, res) =>
      reply(200, {
        categories: [],
        error: {
          success: false,
          message: `no access for ${String(req.headers.accesskey)}`,
          errorKey: String(req.headers.accesskey),
        },
      })(req, res),
  ],
  [
    'extended error',
    (req, res) =>
      reply(400, {
        title: 'Invalid',
        errors: [{ field: String(req.headers.accesskey), message: `bad ${String(req.headers.accesskey)}` }],
      })(req, res),
  ],
  ['plain text', (req, res) => reply(400, `AccessKey ${String(req.headers.accesskey)} rejected`)(req, res)],
  ['status-only 500', reply(500, { statusCode: 500 })],
  ['429 beyond the cap', reply(429, undefined, { 'retry-after': '3600' })],
  ['malformed JSON', reply(200, '{"categories": [')],
  ['schema mismatch', reply(200, { categories: 'none' })],
  ['a hang', hang()],
  ['a dropped connection', dropConnection()],
];

it.each(echoes)('keeps the key out of errors and logs: %s', async (_name, handler) => {
  server.setHandler(handler);

  const error = (await test.client.getBotCategorization(ZONE).catch((e: unknown) => e)) as ApiError;
  const ambiguous = (await test.client
    .patchApp(APP_ID, patchAppCreatingBody)
    .catch((e: unknown) => e)) as ApiError;

  // The requests did carry the key, so its absence below means something.
  expect(server.requests[0]?.headers.accesskey).toBe(TEST_ACCESS_KEY);
  for (const e of [error, ambiguous]) {
    expect(e.code).toMatch(/^API_/);
    expect(e.message).not.toContain(TEST_ACCESS_KEY);
    expect(JSON.stringify(e.details)).not.toContain(TEST_ACCESS_KEY);
    expect(inspect(e, { depth: 10 })).not.toContain(TEST_ACCESS_KEY);
  }
  expect(test.logs()).toContain('"msg":"api request"');
  expect(test.logs()).not.toContain(TEST_ACCESS_KEY);
});

it('replaces an echoed key with [redacted] and keeps the rest of the message', async () => {
  server.setHandler(echoes[0]?.[1] ?? hang());

  const error = (await test.client.getBotCategorization(ZONE).catch((e: unknown) => e)) as ApiError;

  expect(error.apiMessage).toBe('Key [redacted] is unknown');
  expect(error.message).toBe(
    `read bot categories (GET /shield/shield-zone/${ZONE}/bot-categorization) failed: 401 Unauthorized: Key [redacted] is unknown (problem details)`,
  );
});
