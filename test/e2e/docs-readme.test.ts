/**
 * README.md's command blocks run as documented (test/helpers/doc-session.ts has the
 * conventions), against an emulator of the example repository's account.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runDocument } from '../helpers/doc-session.js';
import { requireBuild } from '../helpers/spawn-daemon.js';

describe('README.md', () => {
  beforeAll(() => {
    requireBuild();
  });

  it('every command block runs and prints what it shows; the ones that cannot run say why', async () => {
    const run = await runDocument('README.md');

    expect(run.failures).toEqual([]);
    expect(run.ran).toBeGreaterThan(10);
    expect(run.skipped.map((s) => s.replace(/^README\.md:\d+: /, ''))).toEqual([
      'starts the daemon, which runs until Ctrl-C, and the whole test suite',
      'talks to the demo daemon the block above starts; test/e2e/daemon.test.ts runs it',
      'installs edgesync globally',
      'changes your shell setup; test/e2e/completion.test.ts runs these in bash, zsh and fish',
      'runs the daemon until it is stopped, with your secrets files',
    ]);
  }, 120_000);
});
