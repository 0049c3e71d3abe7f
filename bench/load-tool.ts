/**
 * autocannon, typed for what the benchmarks use: the plain HTTP load tool that sets the
 * ceiling the engine's write throughput is compared with (docs/design.md, Targets).
 */
import { createRequire } from 'node:module';

/** One request autocannon sends; a list of them is cycled through by every connection. */
export interface LoadRequest {
  readonly method: string;
  readonly path: string;
  readonly body?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The options the benchmarks pass (autocannon takes many more). */
export interface LoadOptions {
  readonly url: string;
  readonly connections: number;
  /** Seconds to run. */
  readonly duration: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly requests?: readonly LoadRequest[];
}

/** The part of autocannon's result the benchmarks read (the package ships no types). */
export interface LoadResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  /** Seconds the run took. */
  duration: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

// autocannon is CommonJS without types; require it rather than add a declaration shim.
const autocannon = createRequire(import.meta.url)('autocannon') as (
  options: LoadOptions,
) => Promise<LoadResult>;

/** Runs autocannon once and resolves with its result. */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  return autocannon(options);
}
