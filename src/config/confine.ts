/**
 * Where a file named inside the desired state may be read from: inside one directory, never
 * through a name that starts with `.`. Used for `entriesFile` (confined to the config
 * directory). Secret files under `--secrets-dir` do not use it: `secrets/reader.ts` checks
 * the name as written the same way (`secretFilePathProblem`) but must let a link lead into a
 * dot-folder, since Kubernetes mounts Secrets as links into `..data`.
 *
 * Why dot-names: the config directory is usually a git checkout, and its dot-folders hold
 * what must never be published — `.git/config` (a CI checkout's token), the state directory,
 * `.emulator/`. A document's entries end up in plan comments, audit logs and live lists, so
 * a pull request that names such a file would leak it. The YAML walk skips dot-names too,
 * and refuses a link into a dot-folder (`hiddenTargetProblem`).
 *
 * `.` and `..` are navigation, not names: `./lists/office.txt` is `lists/office.txt`, and
 * `..` may climb as long as the path stays inside the directory. What is checked is the
 * path after that navigation, and again after symlinks are resolved, so neither
 * `sub/../.git/config` nor a symlink `lists/x.txt → ../.git/config` gets through.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { isInside } from '../domain/paths.js';

export { isInside } from '../domain/paths.js';

/** The first segment of a root-relative path whose name starts with `.`, if any. */
export function hiddenSegment(relativeToRoot: string): string | undefined {
  return relativeToRoot.split(/[\\/]/).find((segment) => segment.startsWith('.') && segment !== '');
}

/** `a/b/c` whatever the platform separator. */
function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

/** A confined path: `file` relative to the root (`/` separators), `real` the resolved path to read. */
export type ConfinedPath =
  | { readonly file: string; readonly real: string }
  | { readonly file: string | undefined; readonly error: string };

/**
 * Resolves `relativePath`, written relative to the folder `base` (an absolute path inside
 * `root`), confined to `root` (a real path): an absolute path, a path or symlink leading
 * outside `root`, a name starting with `.` on the way (before or after symlinks), or a
 * missing file is an error saying why. `relativeTo` names the base in the message
 * (`this YAML file`, `--secrets-dir`).
 */
export function confinedPath(
  root: string,
  base: string,
  relativePath: string,
  relativeTo: string,
): ConfinedPath {
  if (isAbsolute(relativePath)) {
    return { file: undefined, error: `must be a path relative to ${relativeTo}, not ${relativePath}` };
  }
  const abs = resolve(base, relativePath);
  if (!isInside(root, abs)) {
    return { file: undefined, error: `${relativePath} is outside the ${directoryName(relativeTo)}` };
  }
  const file = toPosix(relative(root, abs));
  const hidden = hiddenSegment(file);
  if (hidden !== undefined) return { file, error: `${file} is refused: ${hiddenReason(hidden)}` };
  let real: string;
  try {
    real = realpathSync(abs);
  } catch {
    return { file, error: `file ${file} does not exist` };
  }
  if (!isInside(root, real)) {
    return { file, error: `${file} is a symlink that leaves the ${directoryName(relativeTo)}; refused` };
  }
  const problem = hiddenTargetProblem(root, real);
  if (problem !== undefined) return { file, error: `${file} ${problem}` };
  return { file, real };
}

/**
 * Why a symlink resolved to `real` (a real path inside `root`) is refused because its target
 * lies under a dot-name, or undefined: shared by `confinedPath` and the YAML walk, so a link
 * cannot make either read what both skip by name.
 */
export function hiddenTargetProblem(root: string, real: string): string | undefined {
  const target = toPosix(relative(root, real));
  const hidden = hiddenSegment(target);
  return hidden === undefined ? undefined : `is a symlink to ${target}, refused: ${hiddenReason(hidden)}`;
}

function directoryName(relativeTo: string): string {
  return relativeTo.startsWith('--') ? `${relativeTo} directory` : 'config directory';
}

function hiddenReason(segment: string): string {
  return `${segment} starts with "."; dot-files and dot-folders (.git, the state directory, .emulator) are never read`;
}
