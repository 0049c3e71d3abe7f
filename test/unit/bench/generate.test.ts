import { describe, expect, it } from 'vitest';
import { generateRepository } from '../../../bench/generate.js';
import { createDesiredStateLoader } from '../../../src/config/loader.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('the benchmark repository generator', () => {
  it('writes a repository that loads with no problem and holds what it says', async () => {
    const repo = generateRepository(tempDir(), { resources: 500, shieldZones: 5 });

    const { state } = await createDesiredStateLoader({ workers: 0 }).load(repo.dir);

    expect(repo.counts).toEqual({
      WafCustomRule: 400,
      AccessList: 30,
      ManagedAccessList: 10,
      ContainerApp: 20,
      DnsZone: 40,
    });
    expect(state.resources).toHaveLength(500);
    expect(state.warnings).toEqual([]);
    expect(state.fileCount).toBe(repo.yamlFiles.length);
    expect(new Set(state.resources.map((r) => r.subject))).toEqual(
      new Set(repo.resources.map((r) => `${r.kind}/${r.name}`)),
    );
  });

  it('is deterministic', () => {
    const a = generateRepository(tempDir(), { resources: 100 });
    const b = generateRepository(tempDir(), { resources: 100 });

    expect(b.resources.map((r) => r.ids)).toEqual(a.resources.map((r) => r.ids));
    expect(b.yamlBytes).toBe(a.yamlBytes);
  });
});
