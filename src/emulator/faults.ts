/**
 * Fault injection: random faults (latency, 429 with Retry-After, 500, 503, dropped
 * connections) at configured rates, and scripted one-off replies for deterministic tests.
 *
 * The controller only *decides*; the server carries the decision out, so every fault goes
 * through the same reply and journal path as a normal answer.
 */

/** Random faults applied to every request. Rates are shares in [0, 1]. */
export interface FaultOptions {
  /** Added delay before every reply: a fixed number, or uniform in [min, max]. */
  latencyMs?: number | [number, number];
  rate429?: number;
  /** Retry-After value sent with random 429s (default 1). */
  retryAfterSeconds?: number;
  rate500?: number;
  rate503?: number;
  /** Share of connections destroyed without a reply (after the request was read). */
  rateDrop?: number;
  /**
   * Share of requests that are *handled* (state changes) and whose connection is then
   * destroyed before the reply: the ambiguous failure a client cannot tell from a drop.
   */
  rateDropAfter?: number;
  /** Random source in [0, 1); inject one for deterministic tests (default Math.random). */
  random?: () => number;
}

/**
 * A scripted reply: a fixed answer that bypasses the handler, a drop before handling, a drop
 * after handling (`drop-after`: the change is made, the reply is lost), or a delay then normal
 * handling.
 */
type ScriptedReply =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | 'drop'
  | 'drop-after'
  | { delayMs: number };

/** A deterministic fault: the first rule matching a request is used and consumed. */
export interface FaultRule {
  /** Operation id (e.g. 'updateCustomWafRule'); any when omitted. */
  operation?: string;
  /** HTTP method; any when omitted. */
  method?: string;
  /** Path prefix; any when omitted. */
  pathPrefix?: string;
  /** How many requests it applies to (default 1). */
  times?: number;
  reply: ScriptedReply;
}

/** What to do with one request. `delayMs` is waited before acting in every case. */
export type FaultDecision =
  | { kind: 'none'; delayMs: number }
  | { kind: 'drop'; delayMs: number }
  | { kind: 'drop-after'; delayMs: number }
  | { kind: 'scripted'; delayMs: number; status: number; body: unknown; headers: Record<string, string> }
  | { kind: 'error'; delayMs: number; status: 429 | 500 | 503; retryAfterSeconds?: number };

interface PendingRule {
  readonly rule: FaultRule;
  remaining: number;
}

function rate(value: number | undefined, name: string): number {
  if (value === undefined) return 0;
  if (!(value >= 0 && value <= 1))
    throw new RangeError(`fault rate ${name} must be within [0, 1], got ${value}`);
  return value;
}

/** Holds the fault configuration of one emulator and decides per request. */
export class FaultController {
  #options: FaultOptions = {};
  #random: () => number = Math.random;
  readonly #rules: PendingRule[] = [];
  /** True when anything could apply; lets the server skip all fault work on the hot path. */
  #active = false;

  constructor(options?: FaultOptions) {
    if (options !== undefined) this.set(options);
  }

  /** Replaces the random-fault configuration (scripted rules are kept). Throws on a rate outside [0, 1]. */
  set(options: FaultOptions): void {
    const drop = rate(options.rateDrop, 'rateDrop');
    const r429 = rate(options.rate429, 'rate429');
    const r500 = rate(options.rate500, 'rate500');
    const r503 = rate(options.rate503, 'rate503');
    const dropAfter = rate(options.rateDropAfter, 'rateDropAfter');
    if (drop + dropAfter + r429 + r500 + r503 > 1) throw new RangeError('fault rates add up to more than 1');
    this.#options = { ...options };
    this.#random = options.random ?? Math.random;
    this.#refreshActive();
  }

  /** Queues a scripted rule (after the ones already queued). */
  script(rule: FaultRule): void {
    const times = rule.times ?? 1;
    if (!(Number.isInteger(times) && times >= 1))
      throw new RangeError('FaultRule.times must be a positive integer');
    this.#rules.push({ rule, remaining: times });
    this.#active = true;
  }

  /** Removes random faults and every scripted rule. */
  clear(): void {
    this.#options = {};
    this.#random = Math.random;
    this.#rules.length = 0;
    this.#active = false;
  }

  /** Scripted rules not yet used up. */
  pending(): number {
    return this.#rules.reduce((n, r) => n + r.remaining, 0);
  }

  #refreshActive(): void {
    const o = this.#options;
    this.#active =
      this.#rules.length > 0 ||
      o.latencyMs !== undefined ||
      (o.rate429 ?? 0) > 0 ||
      (o.rate500 ?? 0) > 0 ||
      (o.rate503 ?? 0) > 0 ||
      (o.rateDrop ?? 0) > 0 ||
      (o.rateDropAfter ?? 0) > 0;
  }

  #latency(): number {
    const latency = this.#options.latencyMs;
    if (latency === undefined) return 0;
    if (typeof latency === 'number') return latency;
    const [min, max] = latency;
    return min + (max - min) * this.#random();
  }

  /** Decides the fate of one request; consumes a scripted rule when one matches. */
  decide(operation: string, method: string, path: string): FaultDecision {
    if (!this.#active) return { kind: 'none', delayMs: 0 };
    const index = this.#rules.findIndex(
      ({ rule }) =>
        (rule.operation === undefined || rule.operation === operation) &&
        (rule.method === undefined || rule.method.toUpperCase() === method) &&
        (rule.pathPrefix === undefined || path.startsWith(rule.pathPrefix)),
    );
    if (index >= 0) {
      const pending = this.#rules[index] as PendingRule;
      pending.remaining -= 1;
      if (pending.remaining === 0) {
        this.#rules.splice(index, 1);
        this.#refreshActive();
      }
      const reply = pending.rule.reply;
      const delayMs = this.#latency();
      if (reply === 'drop') return { kind: 'drop', delayMs };
      if (reply === 'drop-after') return { kind: 'drop-after', delayMs };
      if ('delayMs' in reply) return { kind: 'none', delayMs: delayMs + reply.delayMs };
      return {
        kind: 'scripted',
        delayMs,
        status: reply.status,
        body: reply.body,
        headers: { ...reply.headers },
      };
    }
    const delayMs = this.#latency();
    const o = this.#options;
    const drop = o.rateDrop ?? 0;
    const dropAfter = o.rateDropAfter ?? 0;
    const r429 = o.rate429 ?? 0;
    const r500 = o.rate500 ?? 0;
    const r503 = o.rate503 ?? 0;
    if (drop + dropAfter + r429 + r500 + r503 === 0) return { kind: 'none', delayMs };
    // One draw against cumulative thresholds, so each rate is the exact share of requests.
    let r = this.#random();
    if (r < drop) return { kind: 'drop', delayMs };
    if (r < drop + dropAfter) return { kind: 'drop-after', delayMs };
    r -= dropAfter;
    if (r < drop + r429)
      return { kind: 'error', delayMs, status: 429, retryAfterSeconds: o.retryAfterSeconds ?? 1 };
    if (r < drop + r429 + r500) return { kind: 'error', delayMs, status: 500 };
    if (r < drop + r429 + r500 + r503) return { kind: 'error', delayMs, status: 503 };
    return { kind: 'none', delayMs };
  }
}
