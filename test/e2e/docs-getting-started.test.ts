/**
 * docs/getting-started.md's command blocks run as documented (test/helpers/doc-session.ts has
 * the conventions): the emulator it starts, the example repository, and the adoption of an
 * account (the session's emulator stands in for the real one).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runDocument } from '../helpers/doc-session.js';
import { requireBuild } from '../helpers/spawn-daemon.js';

describe('docs/getting-started.md', () => {
  beforeAll(() => {
    requireBuild();
  });

  it('every command block runs and prints what it shows; the ones that cannot run say why', async () => {
    const run = await runDocument('docs/getting-started.md');

    expect(run.failures).toEqual([]);
    expect(run.ran).toBeGreaterThan(10);
    expect(run.skipped.map((s) => s.replace(/^docs\/getting-started\.md:\d+: /, ''))).toEqual([
      'installs edgesync globally',
    ]);
  }, 120_000);
});
