/**
 * An API that quotes a container secret it refused — JSON-escaped, truncated, upper-cased or
 * URL-encoded, in any error shape — must not put it into an error: exact-match redaction finds
 * none of these forms, so when a request carried a sensitive value the API's free text is
 * withheld, and the status, error key and field path are kept (docs/secrets.md, What is printed).
 * A real `node:http` server on port 0 echoes what it received.
 */
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ApiError, WITHHELD_MESSAGE } from '../../../src/api/errors.js';
import type { PatchAppRequest } from '../../../src/api/wire/mc.js';
import { SensitiveValue } from '../../../src/domain/sensitive.js';
import { createTestClient, type TestClient } from '../../helpers/api-client.js';
import { type Handler, reply, startTestServer, type TestServer } from '../../helpers/http-server.js';
import { APP_ID } from './fixtures.js';

const SECRET = 'postgres://app:S3cr"et\\pw/ünï@db/prod';

/** Every form an API might quote the secret in. */
const FORMS = {
  exact: SECRET,
  'JSON-escaped': JSON.stringify(SECRET).slice(1, -1),
  truncated: SECRET.slice(0, 20),
  'upper-cased': SECRET.toUpperCase(),
  'URL-encoded': encodeURIComponent(SECRET),
};

function leaks(text: string): string[] {
  // Pieces long enough to be the secret, not a word of the message.
  const needles = [...Object.values(FORMS), 'S3cr', 's3cr', 'S3CR', 'prod'];
  return needles.filter((needle) => text.includes(needle));
}

const body: PatchAppRequest = {
  containerTemplates: [
    {
      id: 'ct-1',
      name: 'web',
      imageName: 'nginx',
      imageNamespace: 'library',
      imageTag: '1.27',
      imageRegistryId: '1',
      environmentVariables: [
        { name: 'MODE', value: 'prod-like' },
        { name: 'DATABASE_URL', value: new SensitiveValue(SECRET) },
      ],
    },
  ],
};

/** Each reply shape, quoting the received value in every form. */
function echoing(status: number, shape: string): Handler {
  return (req, res) => {
    const sent = (req.body as { containerTemplates: { environmentVariables: { value: string }[] }[] })
      .containerTemplates[0]?.environmentVariables[1]?.value;
    const quoted = [
      sent,
      JSON.stringify(sent).slice(1, -1),
      sent?.slice(0, 20),
      sent?.toUpperCase(),
      encodeURIComponent(sent ?? ''),
    ].join(' | ');
    const field = 'containerTemplates[0].environmentVariables[1].value';
    const bodies: Record<string, unknown> = {
      'extended error': {
        title: `Invalid value ${quoted}`,
        detail: `value ${quoted} is not allowed`,
        errors: [{ field, message: `"${quoted}" is not a valid value` }],
      },
      'core error': { ErrorKey: 'mc.invalid_env', Field: field, Message: `Invalid: ${quoted}` },
      'problem details': { title: `Refused ${quoted}`, status },
      'plain text': `refused ${quoted}`,
      'message list': [{ message: `bad ${quoted}` }],
    };
    reply(status, bodies[shape])(req, res);
  };
}

let server: TestServer;
let test: TestClient;
beforeEach(async () => {
  server = await startTestServer();
  test = createTestClient(server.url, { retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 5 } });
});
afterEach(async () => {
  await test.dispose();
  await server.close();
});

describe('an API error for a request that carried a secret', () => {
  const shapes = ['extended error', 'core error', 'problem details', 'plain text', 'message list'];
  for (const status of [400, 500]) {
    for (const shape of shapes) {
      it(`${status} ${shape}: keeps status, error key and field path, withholds the API's words`, async () => {
        server.setHandler(echoing(status, shape));
        const error = (await test.client.patchApp(APP_ID, body).catch((e: unknown) => e)) as ApiError;

        // The server did receive (and quote) the real value, so its absence below means something.
        expect(server.requests[0]?.rawBody).toContain(JSON.stringify(SECRET).slice(1, -1));
        expect(error.status).toBe(status);
        expect(error.code).toBe(status === 400 ? 'API_REJECTED' : 'API_UNAVAILABLE');
        const printed = [
          error.message,
          JSON.stringify(error.details),
          inspect(error, { depth: 10 }),
          test.logs(),
        ].join('\n');
        expect(leaks(printed)).toEqual([]);
        if (shape === 'extended error') {
          expect(error.message).toBe(
            `update app (PATCH /mc/apps/${APP_ID}) failed: ${status} ${status === 400 ? 'Bad Request' : 'Internal Server Error'}: ` +
              `containerTemplates[0].environmentVariables[1].value: ${WITHHELD_MESSAGE} (extended error)` +
              (status === 500 ? error.message.slice(error.message.indexOf(';')) : ''),
          );
        }
        if (shape === 'core error') {
          expect(error.errorKey).toBe('mc.invalid_env');
          expect(error.fieldErrors).toEqual([
            { field: 'containerTemplates[0].environmentVariables[1].value', message: WITHHELD_MESSAGE },
          ]);
        }
        if (shape === 'plain text' || shape === 'problem details') {
          expect(error.apiMessage).toBe(WITHHELD_MESSAGE);
        }
      });
    }
  }

  it('a request without a sensitive value keeps the API words as they are', async () => {
    server.setHandler(
      reply(400, { title: 'Invalid', errors: [{ field: 'name', message: 'name is taken' }] }),
    );
    const error = (await test.client
      .patchApp(APP_ID, { name: 'web app' })
      .catch((e: unknown) => e)) as ApiError;

    expect(error.message).toContain('name: name is taken');
  });
});
