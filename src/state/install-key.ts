/**
 * The per-install key of the state store (docs/secrets.md). The state never stores a secret or
 * a plain hash of one (a SHA-256 of a short secret is a lookup away from the secret): where it
 * must remember something derived from a secret — the digest that tells `desired-changed` from
 * `out-of-band` — it stores an HMAC keyed by 32 random bytes the store keeps (`install.key`,
 * mode 0600, in a state directory). Losing the key costs what losing the state costs: the drift
 * labels.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { KeyStorage, Lease } from './backend.js';

/** HMAC-SHA256 of `data` under the install key, as `hmac-sha256:<hex>`. */
export type KeyedDigest = (data: string) => string;

/** The key's digest function, how to keep a new key, and a warning when the file was not a key. */
export interface InstallKey {
  readonly digest: KeyedDigest;
  /**
   * Writes the key to the state directory (mode 0600) if this process made it and used it; a
   * no-op otherwise. The state store calls it before it writes a record digested with it, so
   * the directory holds a key only once some app has secrets.
   */
  persist(): Promise<void>;
  readonly warning?: string;
}

const KEY_TEXT = /^[0-9a-f]{64}$/;

function hmacWith(key: Buffer): KeyedDigest {
  return (data) => `hmac-sha256:${createHmac('sha256', key).update(data).digest('hex')}`;
}

/** A key of this process only; `storage` given: written there by `persist` once used. */
function newKey(storage: KeyStorage | undefined, lease: Lease | undefined, warning?: string): InstallKey {
  const key = randomBytes(32);
  const hmac = hmacWith(key);
  let used = false;
  let written = false;
  return {
    digest: (data) => {
      used = true;
      return hmac(data);
    },
    async persist() {
      if (storage === undefined || !used || written) return;
      await storage.write(`${key.toString('hex')}\n`, lease);
      written = true;
    },
    ...(warning === undefined ? {} : { warning }),
  };
}

/** A key that lives as long as the process: for in-memory state stores and read-only plans. */
export function ephemeralInstallKey(): InstallKey {
  return newKey(undefined, undefined);
}

/**
 * Opens the install key kept in `storage`. A missing or broken key is replaced by a new one,
 * written by `persist` once it was used. With `readOnly` (`plan`) nothing is ever written: the
 * new key is ephemeral, and a plan before the first apply labels nothing wrongly (there is no
 * record to compare with).
 */
export async function openInstallKey(
  storage: KeyStorage,
  /** `lease`: the writer's lease the key's write carries (refused once it is not current). */
  options: { readOnly?: boolean; lease?: Lease } = {},
): Promise<InstallKey> {
  const readOnly = options.readOnly === true;
  const text = (await storage.read({ readOnly }))?.trim();
  if (text !== undefined && KEY_TEXT.test(text)) {
    return { digest: hmacWith(Buffer.from(text, 'hex')), persist: async () => undefined };
  }
  const where = storage.location;
  const warning =
    text === undefined
      ? undefined
      : readOnly
        ? `${where} is not a key: drift causes of secrets are unknown`
        : `${where} is not a key and is replaced: drift causes of secrets are unknown once`;
  return newKey(readOnly ? undefined : storage, options.lease, warning);
}
