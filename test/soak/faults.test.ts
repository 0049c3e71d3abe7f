/**
 * Reliability under API faults (issue 6), full size: 1,000 changes of every kind over 50
 * Shield Zones converge within 3 reconciles while a fifth of the calls fail.
 */
import { describe, expect, it } from 'vitest';
import { runFaultScenario } from '../helpers/fault-convergence.js';

describe('applying 1,000 changes while 20 % of API calls fail', () => {
  it.each([1, 2, 3])(
    'converges within 3 runs: live equals desired, no duplicate container, nothing lost (fault seed %i)',
    async (seed) => {
      const report = await runFaultScenario({ resources: 1000, shieldZones: 50, seed, maxRuns: 3 });

      expect(report.drifted).toHaveLength(1000);
      expect(report.runs.length).toBeLessThanOrEqual(3);
      expect(report.runs.at(-1)?.failed).toBe(0);
      expect(report.finalPlan).toEqual({
        resources: 1000,
        toUpdate: 0,
        unchanged: 1000,
        skipped: 0,
        errors: 0,
        destructive: 0,
      });
      expect(report.finalPlanWrites).toBe(0);
      expect(report.differences).toEqual([]);
      expect(report.duplicateContainers).toEqual([]);
      expect(report.refusedAppPatches).toBe(0);
      expect([429, 500, 503, 0].filter((s) => !report.statuses.has(s))).toEqual([]);
      expect(report.lostReplies).toBeGreaterThanOrEqual(2);
    },
  );
});
