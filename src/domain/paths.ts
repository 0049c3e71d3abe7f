/** Path containment, shared by every reader of a file that a document names. */
import { sep } from 'node:path';

/** True when `path` is `root` or inside it (both absolute and normalised). */
export function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}
