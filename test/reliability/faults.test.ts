/**
 * Reliability under API faults (issue 6), fast variant: 200 changes of every kind converge
 * within 3 reconciles while a fifth of the calls fail. `npm run soak` runs 1,000.
 */
import { describe, it } from 'vitest';
import { expectConverged, runFaultScenario } from '../helpers/fault-convergence.js';

describe('applying 200 changes while 20 % of API calls fail', () => {
  it('converges within 3 runs: live equals desired, no duplicate container, nothing lost', async () => {
    const report = await runFaultScenario({ resources: 200, shieldZones: 5, seed: 6, maxRuns: 3 });

    expectConverged(report, 200);
  }, 60_000);
});
