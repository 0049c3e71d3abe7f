/**
 * The emulator's public API: a local HTTP server that behaves like the bunny.net management
 * API for the operations edgesync uses (see README.md beside this file).
 *
 * This is the only module of src/emulator that other modules may import. The emulator itself
 * imports nothing from src but `domain/`, so the API client and the emulator can never share
 * a wrong assumption about the API.
 */

import type { FaultOptions } from './faults.js';
import { FaultController } from './faults.js';
import { RequestJournal } from './journal.js';
import { RateLimiter } from './rate-limit.js';
import { Router } from './router.js';
import { DNS_ROUTES } from './routes/dns.js';
import { MC_ROUTES } from './routes/mc.js';
import { MC_COMPANION_ROUTES } from './routes/mc-companions.js';
import { MC_LIFECYCLE_ROUTES } from './routes/mc-lifecycle.js';
import { MC_REGISTRY_ROUTES } from './routes/mc-registries.js';
import { PULL_ZONE_ROUTES } from './routes/pullzone.js';
import { SHIELD_ROUTES } from './routes/shield.js';
import { SHIELD_LIFECYCLE_ROUTES } from './routes/shield-lifecycle.js';
import type { EmulatorSeed } from './seed.js';
import { stateFromSeed } from './seed.js';
import { startServer } from './server.js';
import type { EmulatorState } from './store.js';

// Only what code outside src/emulator uses; the rest stays internal.
export type { FaultOptions, FaultRule } from './faults.js';
export type { RateLimitCounts } from './rate-limit.js';
export { checkRateLimit } from './rate-limit.js';
export type { EmulatorSeed } from './seed.js';
export { EMULATOR_SEED_PATH, loadSeedFile, parseSeed, SeedError } from './seed.js';
export type { EmulatorState, StateCounts } from './store.js';
export type { Application, CustomWafRule } from './wire.js';

/** How to start an emulator. */
export interface EmulatorOptions {
  /** TCP port; 0 (default) picks a free one. */
  port?: number;
  /** Interface to bind (default 127.0.0.1). */
  host?: string;
  /** The only key accepted in the `AccessKey` header. Must not be empty. */
  accessKey: string;
  /** The account to emulate (validated; throws SeedError when invalid). Default: empty. */
  seed?: EmulatorSeed;
  /** Random faults from the start. Default: none. */
  faults?: FaultOptions;
  /** Record requests in the journal (default true); the throughput benchmark turns it off. */
  journal?: boolean;
  /**
   * Requests per second per access key (token bucket, burst the same number); past it, 429
   * with an integer `Retry-After`. Default: unlimited. Change it later with `rateLimiter.set`.
   */
  rateLimit?: number;
  /**
   * Refuse unknown fields in request bodies (400 naming each). Default false: they are
   * ignored, as the real server (ASP.NET) ignores them.
   */
  strict?: boolean;
}

/** A running emulator. */
export interface Emulator {
  /** Base URL, e.g. 'http://127.0.0.1:41234' (no trailing slash). */
  readonly url: string;
  readonly journal: RequestJournal;
  /** Live state: read it, or edit it to simulate out-of-band changes. */
  readonly state: EmulatorState;
  readonly faults: FaultController;
  /** The `rateLimit` in force (`set` changes it) and how many requests it admitted and refused. */
  readonly rateLimiter: RateLimiter;
  /** Stops listening and destroys open connections at once (pending delayed replies are dropped). */
  close(): Promise<void>;
}

/** Every route the emulator serves: method, path pattern and operation (the conformance test's coverage). */
export const EMULATOR_ROUTES = [
  ...SHIELD_ROUTES,
  ...SHIELD_LIFECYCLE_ROUTES,
  ...MC_ROUTES,
  ...MC_COMPANION_ROUTES,
  ...MC_LIFECYCLE_ROUTES,
  ...MC_REGISTRY_ROUTES,
  ...DNS_ROUTES,
  ...PULL_ZONE_ROUTES,
];

/** Starts an emulator; resolves once it accepts connections. */
export async function startEmulator(options: EmulatorOptions): Promise<Emulator> {
  if (typeof options.accessKey !== 'string' || options.accessKey === '') {
    throw new TypeError('startEmulator: accessKey must be a non-empty string');
  }
  const state = stateFromSeed(options.seed);
  const journal = new RequestJournal({ enabled: options.journal ?? true });
  const faults = new FaultController(options.faults);
  const rateLimiter = new RateLimiter(options.rateLimit);
  const running = await startServer(
    {
      router: new Router(EMULATOR_ROUTES),
      state,
      journal,
      faults,
      rateLimiter,
      accessKey: options.accessKey,
      strict: options.strict ?? false,
    },
    options.port ?? 0,
    options.host ?? '127.0.0.1',
  );
  return {
    url: running.url,
    journal,
    state,
    faults,
    rateLimiter,
    close: () => running.close(),
  };
}
