/**
 * A real PostgreSQL for the state-store tests (postgres-server.ts): one server per test file,
 * started in beforeAll and stopped (its data deleted) in afterAll.
 */
import { afterAll, beforeAll } from 'vitest';
import { type StartedPostgres, startPostgres, type TestPostgres } from './postgres-server.js';

export { PG_PASSWORD } from './postgres-server.js';

/** One server per test file: started in beforeAll, stopped (its data deleted) in afterAll. */
export function usePostgres(): TestPostgres {
  let started: StartedPostgres | undefined;
  beforeAll(async () => {
    started = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await started?.stop();
  }, 60_000);
  const get = (): StartedPostgres => {
    if (started === undefined)
      throw new Error('usePostgres: the server is not started (use it inside a test)');
    return started;
  };
  return {
    get port() {
      return get().port;
    },
    database: () => get().database(),
    withPassword: (url) => get().withPassword(url),
    admin: () => get().admin(),
    restart: () => get().restart(),
  };
}
