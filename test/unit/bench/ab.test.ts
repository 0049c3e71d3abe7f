/**
 * The A/B comparison: its pairing arithmetic, and one small run end to end with this build on
 * both sides (compiled, like the command runs it: the engine children are JavaScript files).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type * as Ab from '../../../bench/ab.js';
import { type AbRound, pairedSummary } from '../../../bench/ab.js';
import { requireBuild } from '../../helpers/spawn-daemon.js';

const DIST = new URL('../../../dist/', import.meta.url);

function round(side: 'A' | 'B', pair: number, changesPerSecond: number, peakMb = 100): AbRound {
  return {
    side,
    pair,
    changesPerSecond,
    cpuMicrosPerChange: 1e6 / changesPerSecond,
    peakRssBytes: peakMb * 1024 * 1024,
    emulatorBusy: 0.5,
  };
}

describe('pairedSummary', () => {
  it('divides each B round by the A round of its pair, in whatever order they ran', () => {
    const summary = pairedSummary([
      round('A', 0, 1000),
      round('B', 0, 1200),
      round('B', 1, 900),
      round('A', 1, 1000, 150),
      round('A', 2, 2000),
      round('B', 2, 2600, 120),
    ]);

    expect(summary.ratios.map((r) => r.toFixed(2))).toEqual(['1.20', '0.90', '1.30']);
    expect(summary.medianRatio).toBeCloseTo(1.2, 10);
    expect(summary.favouringB).toBe(2);
    expect(summary.a.medianChangesPerSecond).toBe(1000);
    expect(summary.b.medianChangesPerSecond).toBe(1200);
    expect(summary.a.maxPeakRssBytes).toBe(150 * 1024 * 1024);
    expect(summary.b.maxPeakRssBytes).toBe(120 * 1024 * 1024);
  });

  it('refuses a pair with a side missing', () => {
    expect(() => pairedSummary([round('A', 0, 1000), round('B', 1, 1000)])).toThrow('pair 0 has no B round');
    expect(() => pairedSummary([round('A', 0, 1000), round('B', 0, 1000), round('B', 1, 1000)])).toThrow(
      '1 A rounds but 2 B rounds',
    );
    expect(() => pairedSummary([])).toThrow('no rounds to compare');
  });
});

describe('runAb', () => {
  it('alternates the sides, gives B its extra flags, applies every change on each, and summarises the pairs', async () => {
    requireBuild();
    const { runAb, summaryLines } = (await import(new URL('bench/ab.js', DIST).href)) as typeof Ab;
    const lines: string[] = [];

    const { rounds, summary } = await runAb({
      otherDist: fileURLToPath(DIST),
      pairs: 2,
      resources: 200,
      concurrency: 4,
      bNodeArgs: ['--max-semi-space-size=4'],
      log: (line) => lines.push(line),
    });

    expect(rounds.map((r) => `${r.side}${r.pair}`)).toEqual(['A0', 'B0', 'B1', 'A1']);
    for (const r of rounds) {
      expect(r.changesPerSecond).toBeGreaterThan(0);
      expect(r.cpuMicrosPerChange).toBeGreaterThan(0);
      // A Node process alone holds more than 20 MB.
      expect(r.peakRssBytes).toBeGreaterThan(20 * 1024 * 1024);
    }
    expect(lines).toHaveLength(6);
    // Only B's engine got the extra flag.
    expect(lines[0]).toMatch(/^A: v\d+\.\d+\.\d+/);
    expect(lines[0]).not.toContain('--max-semi-space-size=4');
    expect(lines[1]).toMatch(/^B: v\d+\.\d+\.\d+ .*--max-semi-space-size=4$/);
    expect(lines[2]).toMatch(/^A pair 1: [\d,]+ changes\/s \(apply phase\), [\d,]+ µs CPU\/change/);
    expect(summary.ratios).toHaveLength(2);
    expect(summaryLines(summary)[3]).toMatch(/^median B ÷ A \d\.\d{3}; B faster in [0-2] of 2 pairs$/);
  }, 60_000);
});
