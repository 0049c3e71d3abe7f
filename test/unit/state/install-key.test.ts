/**
 * The install key: written (mode 0600) once it was used, reused after, tightened when loose,
 * replaced when broken, never written by a read-only plan or when no secret was digested.
 */
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileBackend, INSTALL_KEY_FILE } from '../../../src/state/file-backend.js';
import { openInstallKey as openKeyIn } from '../../../src/state/install-key.js';

/** The install key of state directory `dir`, through the file store. */
const openInstallKey = (dir: string, options?: { readOnly?: boolean }) =>
  openKeyIn(fileBackend(dir).installKey, options);

import { tempDir } from '../../helpers/temp-dir.js';

describe('openInstallKey', () => {
  it('writes a random key (mode 0600) once used, and digests with it the same way after a reopen', async () => {
    const dir = tempDir();
    const first = await openInstallKey(dir);
    const digest = first.digest('secret');
    await first.persist();

    const again = await openInstallKey(dir);
    const elsewhere = await openInstallKey(tempDir());

    expect(statSync(join(dir, INSTALL_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, INSTALL_KEY_FILE), 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    expect(digest).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(again.digest('secret')).toBe(digest);
    expect(elsewhere.digest('secret')).not.toBe(digest);
  });

  it('writes nothing when no secret was digested, or when read-only', async () => {
    const unused = tempDir();
    const readOnly = tempDir();

    await (await openInstallKey(unused)).persist();
    const key = await openInstallKey(readOnly, { readOnly: true });
    key.digest('x');
    await key.persist();

    expect(existsSync(join(unused, INSTALL_KEY_FILE))).toBe(false);
    expect(existsSync(join(readOnly, INSTALL_KEY_FILE))).toBe(false);
  });

  it('tightens a readable key to 0600 and replaces one that is not a key, with a warning', async () => {
    const dir = tempDir();
    const original = await openInstallKey(dir);
    original.digest('x');
    await original.persist();
    chmodSync(join(dir, INSTALL_KEY_FILE), 0o644);
    const loose = await openInstallKey(dir);
    const tightened = statSync(join(dir, INSTALL_KEY_FILE)).mode & 0o777;
    writeFileSync(join(dir, INSTALL_KEY_FILE), 'garbage');

    const replaced = await openInstallKey(dir);
    replaced.digest('x');
    await replaced.persist();

    expect(loose.warning).toBeUndefined();
    expect(tightened).toBe(0o600);
    expect(replaced.warning).toBe(
      `${join(dir, INSTALL_KEY_FILE)} is not a key and is replaced: drift causes of secrets are unknown once`,
    );
    expect(readFileSync(join(dir, INSTALL_KEY_FILE), 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    expect(statSync(join(dir, INSTALL_KEY_FILE)).mode & 0o777).toBe(0o600);
  });
});
