/**
 * The hash of the API's access-list checksum (the PHP client's example confirms it), which
 * edgesync also uses for its digests of files and resources.
 */
import { hash } from 'node:crypto';

/**
 * Lowercase hex SHA-256 of bytes, or of a string's UTF-8 bytes. The one-shot `hash` rather
 * than a Hash object: a load digests every resource, and for small inputs building the object
 * costs more than the hashing.
 */
export function sha256Hex(data: Uint8Array | string): string {
  return hash('sha256', data, 'hex');
}
