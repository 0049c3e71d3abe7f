/** How `exportLive` ends: all or nothing, and no read outlives the export or the caller's abort. */
import { describe, expect, it } from 'vitest';
import type { ApiClient, CallOptions } from '../../../src/api/types.js';
import { exportLive } from '../../../src/kinds/export.js';

/** Settles when `signal` aborts, rejecting with its reason, as the API client does. */
function untilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    if (signal === undefined) return;
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

const NONE = { shieldZones: [], apps: [], dnsZones: [] };

describe('exportLive', () => {
  it('throws the first failure and aborts the reads still running', async () => {
    const failure = new Error('getApp failed');
    const seen: AbortSignal[] = [];
    const api = {
      getApp: () => Promise.reject(failure),
      // The listing that tells whether the app's name is unique (export writes no appId then).
      listApps: (options?: CallOptions) => untilAborted(options?.signal),
      getDnsZone: (_id: number, options?: CallOptions) => {
        if (options?.signal !== undefined) seen.push(options.signal);
        return untilAborted(options?.signal);
      },
    } as unknown as ApiClient;

    const result = exportLive(
      api,
      { ...NONE, apps: ['app-1'], dnsZones: [1] },
      { signal: new AbortController().signal, concurrency: 4 },
    );

    await expect(result).rejects.toBe(failure);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.aborted).toBe(true);
    expect(seen[0]?.reason).toBe(failure);
  });

  it("hands the caller's abort to every read, even when it came before the export started", async () => {
    const caller = new AbortController();
    const reason = new Error('interrupted');
    caller.abort(reason);
    const seen: Array<AbortSignal | undefined> = [];
    const api = {
      getDnsZone: (_id: number, options?: CallOptions) => {
        seen.push(options?.signal);
        return untilAborted(options?.signal);
      },
    } as unknown as ApiClient;

    const result = exportLive(api, { ...NONE, dnsZones: [1, 2] }, { signal: caller.signal, concurrency: 4 });

    await expect(result).rejects.toBe(reason);
    // Both reads, not only the one whose rejection ended the export: neither is left hanging.
    expect(seen.map((signal) => [signal?.aborted, signal?.reason])).toEqual([
      [true, reason],
      [true, reason],
    ]);
  });
});
