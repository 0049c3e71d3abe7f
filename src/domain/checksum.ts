/**
 * The hash of the API's access-list checksum (the PHP client's example confirms it), which
 * edgesync also uses for its digests of files and resources.
 */
import { createHash } from 'node:crypto';

/** Lowercase hex SHA-256 of bytes, or of a string's UTF-8 bytes. */
export function sha256Hex(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}
