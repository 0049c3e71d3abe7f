/**
 * The per-install key of the state directory (design §8). The state never stores a secret or
 * a plain hash of one (a SHA-256 of a short secret is a lookup away from the secret): where it
 * must remember something derived from a secret — the digest that tells `desired-changed` from
 * `out-of-band` — it stores an HMAC keyed by 32 random bytes kept in `install.key` (mode 0600)
 * beside the state file. Losing the key costs what losing the state costs: the drift labels.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { chmod, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';

export const INSTALL_KEY_FILE = 'install.key';

/** HMAC-SHA256 of `data` under the install key, as `hmac-sha256:<hex>`. */
export type KeyedDigest = (data: string) => string;

/** The key's digest function, and a warning when the key had to be replaced or could not be read. */
export interface InstallKey {
  readonly digest: KeyedDigest;
  readonly warning?: string;
}

const KEY_TEXT = /^[0-9a-f]{64}$/;

function digestWith(key: Buffer): KeyedDigest {
  return (data) => `hmac-sha256:${createHmac('sha256', key).update(data).digest('hex')}`;
}

/** A key that lives as long as the process: for in-memory state stores and read-only plans. */
export function ephemeralInstallKey(): InstallKey {
  return { digest: digestWith(randomBytes(32)) };
}

async function writeNewKey(path: string): Promise<Buffer> {
  const key = randomBytes(32);
  const temporary = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(`${key.toString('hex')}\n`, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temporary, path);
  } catch (err) {
    await unlink(temporary).catch(() => undefined);
    throw err;
  }
  return key;
}

/**
 * Opens the install key of state directory `dir`, creating it (mode 0600) when missing or
 * unreadable, and tightening a looser mode. With `readOnly` (`plan`) nothing is written: a
 * missing key gives an ephemeral one, so a plan before the first apply labels nothing wrongly
 * (there is nothing recorded to compare with).
 */
export async function openInstallKey(dir: string, options: { readOnly?: boolean } = {}): Promise<InstallKey> {
  const path = join(dir, INSTALL_KEY_FILE);
  let text: string | undefined;
  try {
    text = (await readFile(path, 'utf8')).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && options.readOnly !== true) throw err;
  }
  if (text !== undefined && KEY_TEXT.test(text)) {
    if (options.readOnly !== true && ((await stat(path)).mode & 0o077) !== 0) await chmod(path, 0o600);
    return { digest: digestWith(Buffer.from(text, 'hex')) };
  }
  const broken = text !== undefined;
  if (options.readOnly === true) {
    return broken
      ? { ...ephemeralInstallKey(), warning: `${path} is not a key: drift causes of secrets are unknown` }
      : ephemeralInstallKey();
  }
  const key = await writeNewKey(path);
  return broken
    ? {
        digest: digestWith(key),
        warning: `${path} was not a key and was replaced: drift causes of secrets are unknown once`,
      }
    : { digest: digestWith(key) };
}
