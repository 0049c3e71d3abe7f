/**
 * `export` reads the state where `plan` and `apply` keep it (docs/secrets.md, `export`): with
 * no `--state-dir`, the default state location of `--config` (else `./config`); with
 * `--state-url`, the PostgreSQL store. A literal that the last apply sent as `sensitive: true`
 * is then exported as a placeholder, though its name does not look secret; without the state
 * only the name can tell, and it is exported as it is.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../src/emulator/index.js';
import { cli } from '../../helpers/cli.js';
import { TEST_KEY, TEST_SEED, withEmulator } from '../../helpers/emulator.js';
import { PG_PASSWORD, usePostgres } from '../../helpers/postgres.js';
import { storefrontYaml } from '../../helpers/secrets.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';

const LEGACY = 'legacy-literal-5e21b7-never-print';
const PLACEHOLDER = ['        - name: LEGACY', '          valueFrom: { env: EDGESYNC_SECRET_LEGACY }'].join(
  '\n',
);
const APP = storefrontYaml(`        - { name: LOG_LEVEL, value: info }
        - { name: LEGACY, value: ${LEGACY}, sensitive: true }`);

const pgs = usePostgres();

describe('export finds the state the other commands use', () => {
  let emu: Emulator;
  let home: string;
  let api: Record<string, string>;
  beforeEach(async () => {
    emu = await withEmulator(TEST_SEED);
    home = tempDir();
    // The default state location is under $XDG_STATE_HOME: a fresh one per test.
    api = { EDGESYNC_ACCESS_KEY: TEST_KEY, EDGESYNC_BASE_URL: emu.url, XDG_STATE_HOME: join(home, 'state') };
  });
  afterEach(async () => {
    await emu.close();
  });

  it('without --state-dir: the default state location of --config, or of ./config', async () => {
    const cwd = tempDir();
    const config = writeTree(join(cwd, 'config'), { 'storefront.yaml': APP });
    const applied = await cli(['apply', '--config', config], { env: api, cwd });
    expect(applied.code).toBe(0);

    const byFlag = await cli(['export', '--app', 'app1', '--config', config], { env: api, cwd: tempDir() });
    const byDefault = await cli(['export', '--app', 'app1'], { env: api, cwd });
    const elsewhere = await cli(['export', '--app', 'app1'], { env: api, cwd: tempDir() });

    for (const run of [byFlag, byDefault]) {
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(PLACEHOLDER);
      expect(run.stdout + run.stderr).not.toContain(LEGACY);
      expect(run.stderr).toContain('LEGACY was applied as a secret and is written as valueFrom');
    }
    // Another directory's state (none): only the name can tell, and LEGACY does not look secret.
    expect(elsewhere.stdout).toContain(`value: ${LEGACY}`);
  });

  it('with --state-url: the PostgreSQL store apply wrote', async () => {
    const url = await pgs.database();
    const passwordFile = join(tempDir(), 'pg-password');
    writeFileSync(passwordFile, `${PG_PASSWORD}\n`);
    const store = ['--state-url', url, '--state-password-file', passwordFile, '--instance', 'storefront'];
    const config = writeTree(tempDir(), { 'storefront.yaml': APP });
    const applied = await cli(['apply', '--config', config, ...store], { env: api });
    expect(applied.code).toBe(0);

    const exported = await cli(['export', '--app', 'app1', ...store], { env: api });

    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain(PLACEHOLDER);
    expect(exported.stdout + exported.stderr).not.toContain(LEGACY);
    expect(exported.stdout + exported.stderr).not.toContain(PG_PASSWORD);
  });
});
