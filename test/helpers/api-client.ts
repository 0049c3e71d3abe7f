/**
 * Builds API clients for tests: pointed at a test server, with a short keep-alive Agent, fast
 * retries and a logger whose output the test can read. `dispose()` closes client and Agent.
 */
import type { Agent } from 'undici';
import { createApiClient } from '../../src/api/client.js';
import { ApiError } from '../../src/api/errors.js';
import type { ApiClient, ApiClientOptions, RequestEvent } from '../../src/api/types.js';
import { createLogger } from '../../src/log.js';
import { testAgent } from './http-server.js';

/** The access key every test client sends; tests search output for it. */
export const TEST_ACCESS_KEY = 'ak-7f3c2e1d-secret-0b9a';

/** The body of Shield's disguised failure: a 202 whose JSON is a serialised ASP.NET AcceptedResult. */
export const ACCEPTED_RESULT_BODY = {
  location: null,
  value: null,
  formatters: [],
  contentTypes: [],
  declaredType: null,
  statusCode: 202,
};

/** A client under test, with what it reported and logged. */
export interface TestClient {
  client: ApiClient;
  agent: Agent;
  /** Every onRequest event so far. */
  events: RequestEvent[];
  /** Everything the logger wrote (JSON lines, debug level). */
  logs(): string;
  dispose(): Promise<void>;
}

/** A client for `baseUrl` with fast, deterministic retries unless `overrides` say otherwise. */
export function createTestClient(baseUrl: string, overrides: Partial<ApiClientOptions> = {}): TestClient {
  const agent = testAgent();
  const events: RequestEvent[] = [];
  let output = '';
  const logger = createLogger({
    level: 'debug',
    destination: {
      write(chunk: string) {
        output += chunk;
      },
    },
  });
  const client = createApiClient({
    baseUrl,
    accessKey: TEST_ACCESS_KEY,
    dispatcher: agent,
    logger,
    timeoutMs: 2_000,
    retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50, maxRetryAfterMs: 5_000 },
    onRequest: (event) => events.push(event),
    ...overrides,
  });
  return {
    client,
    agent,
    events,
    logs: () => output,
    async dispose() {
      await client.close();
      await agent.close();
    },
  };
}

/** The ApiError `promise` rejects with; throws if it resolves or rejects with anything else. */
export async function failure(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}
