/**
 * Reliability under API faults (issue 6), full size: 1,000 changes of every kind over 50
 * Shield Zones converge within 3 reconciles while a fifth of the calls fail.
 */
import { describe, it } from 'vitest';
import { expectConverged, runFaultScenario } from '../helpers/fault-convergence.js';

describe('applying 1,000 changes while 20 % of API calls fail', () => {
  it.each([1, 2, 3])(
    'converges within 3 runs: live equals desired, no duplicate container, nothing lost (fault seed %i)',
    async (seed) => {
      const report = await runFaultScenario({ resources: 1000, shieldZones: 50, seed, maxRuns: 3 });

      expectConverged(report, 1000);
    },
  );
});
