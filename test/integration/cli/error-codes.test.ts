/**
 * Every error line of the CLI names its code (docs/errors.md): a user who reads
 * `edgesync: STATE_IO: cannot create the state directory …: ENOTDIR` can look it up. Real
 * files, the CLI in-process against the emulator.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../src/emulator/index.js';
import { ERROR_CODES } from '../../../src/errors.js';
import { cli } from '../../helpers/cli.js';
import { RULE_YAML } from '../../helpers/daemon.js';
import { TEST_KEY, TEST_SEED, withEmulator } from '../../helpers/emulator.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';

/** The lines of `stderr` that start with the program's name, minus warnings and notes. */
function errorLines(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => /^edgesync( emulator)?: /.test(line) && !/^edgesync: (warning|note): /.test(line));
}

describe('CLI error lines', () => {
  let emu: Emulator;
  let env: Record<string, string>;
  beforeEach(async () => {
    emu = await withEmulator(TEST_SEED);
    env = {
      EDGESYNC_ACCESS_KEY: TEST_KEY,
      EDGESYNC_BASE_URL: emu.url,
      EDGESYNC_CONFIG: writeTree(tempDir(), { 'rule.yaml': RULE_YAML }),
    };
  });
  afterEach(async () => {
    await emu.close();
  });

  it('a state directory that cannot be created is STATE_IO, named on the line', async () => {
    const file = join(tempDir(), 'not-a-dir');
    writeFileSync(file, 'x');
    const run = await cli(['apply', '--state-dir', join(file, 'state')], { env });

    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^edgesync: STATE_IO: cannot create the state directory .*ENOTDIR/);
  });

  it('a state file that cannot be saved is STATE_IO, named on the line', async () => {
    const state = tempDir();
    // A directory where the state file goes: the rename of the saved state fails.
    mkdirSync(join(state, 'state.json', 'in-the-way'), { recursive: true });
    const run = await cli(['apply', '--state-dir', state], { env });

    expect(run.code).toBe(1);
    expect(errorLines(run.stderr).join('\n')).toMatch(/^edgesync: STATE_IO: /m);
  });

  it.each([
    ['an unknown flag', ['plan', '--dry-run'], {}, 'USAGE'],
    ['no access key', ['plan'], { EDGESYNC_ACCESS_KEY: '' }, 'USAGE'],
    ['the --access-key flag', ['plan', '--access-key', 'k'], {}, 'USAGE'],
    ['an invalid config', ['apply'], { EDGESYNC_CONFIG: 'bad' }, 'CONFIG_INVALID'],
    ['a wrong key', ['plan'], { EDGESYNC_ACCESS_KEY: 'wrong' }, 'API_AUTH'],
    ['nothing to export', ['export'], {}, 'USAGE'],
    ['a missing saved plan', ['apply', 'missing.json'], {}, 'PLAN_FILE_INVALID'],
  ])('%s: every error line names a documented code (%j)', async (_name, argv, extra, code) => {
    const config = writeTree(tempDir(), { 'bad.yaml': 'kind: [' });
    const runEnv: Record<string, string> = { ...env, ...extra };
    if (runEnv.EDGESYNC_CONFIG === 'bad') runEnv.EDGESYNC_CONFIG = config;
    const run = await cli(argv, { env: runEnv, cwd: tempDir() });

    expect(run.code).toBe(1);
    const lines = errorLines(run.stderr);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      const named = /^edgesync( emulator)?: ([A-Z_]+): /.exec(line)?.[2];
      expect(named, line).toBeDefined();
      expect(Object.keys(ERROR_CODES)).toContain(named);
    }
    expect(lines.at(-1)).toMatch(new RegExp(`^edgesync: ${code}: `));
  });
});
