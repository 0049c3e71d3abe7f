/**
 * The push-to-applied benchmark end to end at a small size: a real daemon process (compiled,
 * like `npm run bench` runs it), a real emulator, real git. Only that it measures what it
 * says: every trial's change is applied (the waits would time out otherwise) and the figures
 * are consistent. No speed is asserted here: the figures are the benchmark's business.
 */
import { describe, expect, it } from 'vitest';
import type * as Latency from '../../../bench/latency.js';
import { requireBuild } from '../../helpers/spawn-daemon.js';

// The compiled benchmark: its emulator worker and the daemon it starts are JavaScript files.
const DIST_LATENCY = new URL('../../../dist/bench/latency.js', import.meta.url);

async function distLatency(): Promise<typeof Latency> {
  requireBuild();
  return (await import(DIST_LATENCY.href)) as typeof Latency;
}

describe('the push-to-applied benchmark', () => {
  it('times each trial from the edit or the hook to the change.applied line', async () => {
    const { runLatencyBench } = await distLatency();
    const lines: string[] = [];

    const f = await runLatencyBench(200, (line) => lines.push(line), 3);

    expect(f.resources).toBe(200);
    for (const way of [f.fileEdit, f.webhook]) {
      expect(way.samplesMs).toHaveLength(3);
      expect(Math.min(...way.samplesMs)).toBeGreaterThan(0);
      expect(way.p50Ms).toBe([...way.samplesMs].sort((a, b) => a - b)[1]);
      expect(way.p95Ms).toBe(Math.max(...way.samplesMs));
    }
    // Each daemon's cold start was sampled: a Node process alone holds more than 20 MB.
    for (const cold of [f.daemonStartupMemory.fileEdit, f.daemonStartupMemory.webhook]) {
      expect(cold.bytes).toBeGreaterThan(20 * 1024 * 1024);
    }
    // The file edit cannot beat the watcher's debounce.
    expect(f.fileEdit.p50Ms).toBeGreaterThanOrEqual(f.debounceMs);
    expect(lines).toEqual(['latency: file edits, 200 resources', 'latency: webhooks with --git-pull']);
  }, 60_000);
});
