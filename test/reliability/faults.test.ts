/**
 * Reliability under API faults (issue 6), fast variant: 200 changes of every kind converge
 * within 3 reconciles while a fifth of the calls fail. `npm run soak` runs 1,000.
 */
import { describe, expect, it } from 'vitest';
import { runFaultScenario } from '../helpers/fault-convergence.js';

describe('applying 200 changes while 20 % of API calls fail', () => {
  it('converges within 3 runs: live equals desired, no duplicate container, nothing lost', async () => {
    const report = await runFaultScenario({ resources: 200, shieldZones: 5, seed: 6, maxRuns: 3 });

    expect(report.drifted).toHaveLength(200);
    expect(report.runs.length).toBeLessThanOrEqual(3);
    expect(report.runs.at(-1)?.failed).toBe(0);
    expect(report.finalPlan).toEqual({
      resources: 200,
      toUpdate: 0,
      unchanged: 200,
      skipped: 0,
      errors: 0,
      destructive: 0,
    });
    expect(report.finalPlanWrites).toBe(0);
    expect(report.differences).toEqual([]);
    expect(report.duplicateContainers).toEqual([]);
    expect(report.refusedAppPatches).toBe(0);
    // The faults really happened: every kind of refusal, drops, and replies lost after the
    // emulator had applied the request (the scripted E4 ones at least).
    expect([429, 500, 503, 0].filter((s) => !report.statuses.has(s))).toEqual([]);
    expect(report.lostReplies).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
