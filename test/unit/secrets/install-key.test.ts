/** The install key: created once with mode 0600, reused, tightened, never created by a read-only plan. */
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INSTALL_KEY_FILE, openInstallKey } from '../../../src/secrets/install-key.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('openInstallKey', () => {
  it('creates a random key (mode 0600) once, and digests with it the same way after a reopen', async () => {
    const dir = tempDir();
    const other = tempDir();

    const first = await openInstallKey(dir);
    const again = await openInstallKey(dir);
    const elsewhere = await openInstallKey(other);

    expect(statSync(join(dir, INSTALL_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, INSTALL_KEY_FILE), 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    expect(first.digest('secret')).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(again.digest('secret')).toBe(first.digest('secret'));
    expect(elsewhere.digest('secret')).not.toBe(first.digest('secret'));
  });

  it('tightens a readable key to 0600 and replaces one that is not a key, with a warning', async () => {
    const dir = tempDir();
    await openInstallKey(dir);
    chmodSync(join(dir, INSTALL_KEY_FILE), 0o644);
    const loose = await openInstallKey(dir);
    const tightened = statSync(join(dir, INSTALL_KEY_FILE)).mode & 0o777;
    writeFileSync(join(dir, INSTALL_KEY_FILE), 'garbage');

    const replaced = await openInstallKey(dir);

    expect(loose.warning).toBeUndefined();
    expect(tightened).toBe(0o600);
    expect(replaced.warning).toBe(
      `${join(dir, INSTALL_KEY_FILE)} was not a key and was replaced: drift causes of secrets are unknown once`,
    );
    expect(readFileSync(join(dir, INSTALL_KEY_FILE), 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    expect(statSync(join(dir, INSTALL_KEY_FILE)).mode & 0o777).toBe(0o600);
  });

  it('writes nothing when read-only: a missing key is an ephemeral one', async () => {
    const dir = tempDir();

    const key = await openInstallKey(dir, { readOnly: true });

    expect(key.digest('x')).toMatch(/^hmac-sha256:/);
    expect(existsSync(join(dir, INSTALL_KEY_FILE))).toBe(false);
  });
});
