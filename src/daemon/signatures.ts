/**
 * Webhook signatures: HMAC-SHA256 over the raw body bytes, compared in constant time against
 * every configured secret (several lines in the secret file = rotation).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { ReconcileError } from '../errors.js';

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

/** `sha256=<hex>` of the body under one secret. */
export function signBody(secret: string, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * True when `header` (`sha256=<64 hex>`, GitHub's X-Hub-Signature-256 and our X-Signature)
 * is the HMAC of `body` under any of `secrets`. Length is checked before timingSafeEqual,
 * which throws on unequal lengths; the compare itself takes the same time for any mismatch.
 */
export function verifySignature(
  secrets: readonly string[],
  body: Buffer,
  header: string | undefined,
): boolean {
  const match = header === undefined ? null : SIGNATURE.exec(header.trim());
  if (match === null || match[1] === undefined) return false;
  const given = Buffer.from(match[1].toLowerCase(), 'hex');
  let ok = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(body).digest();
    // No early return: every secret is tried, so timing does not reveal which one matched.
    if (expected.length === given.length && timingSafeEqual(expected, given)) ok = true;
  }
  return ok;
}

/**
 * The trimmed non-empty lines of a secret file. A read error becomes USAGE with `cannotRead(code)`
 * as its message, which names the file but never holds its content.
 */
export async function readSecretLines(
  path: string,
  cannotRead: (code: string) => string,
  options: { readonly keepEmpty?: boolean } = {},
): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new ReconcileError('USAGE', cannotRead((err as NodeJS.ErrnoException).code ?? 'error'));
  }
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  // Kept, the empty lines leave every line at its number (for an error that names it).
  return options.keepEmpty === true ? lines : lines.filter((line) => line !== '');
}

/** Reads the webhook secret file: one secret per non-empty line (trimmed). */
export async function readSecretFile(path: string): Promise<string[]> {
  const secrets = await readSecretLines(
    path,
    (code) => `cannot read the webhook secret file ${path}: ${code}`,
  );
  if (secrets.length === 0)
    throw new ReconcileError('USAGE', `the webhook secret file ${path} holds no secret`);
  return secrets;
}
