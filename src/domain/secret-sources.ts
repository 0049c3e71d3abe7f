/**
 * The rules of a container secret's source (`valueFrom`), shared by the desired-state schema
 * (which checks their form offline) and the resolver (which checks them again before it
 * reads anything): only `EDGESYNC_SECRET_*` variables, and files named relative to the
 * secrets directory that cannot leave it.
 */

/** Prefix of the only environment variables a `valueFrom.env` may name. */
export const SECRET_ENV_PREFIX = 'EDGESYNC_SECRET_';

/** The names a `valueFrom.env` may give. */
export const SECRET_ENV_NAME = /^EDGESYNC_SECRET_[A-Za-z0-9_]+$/;

/** Largest secret file read (bytes): a certificate chain fits, a misnamed dump does not. */
export const MAX_SECRET_FILE_BYTES = 64 * 1024;

/** One `valueFrom`: an environment variable of edgesync's process, or a file of the secrets directory. */
export type SecretSource = { readonly env: string } | { readonly file: string };

/** Why `name` may not be read as a secret, or undefined when it may. */
export function secretEnvNameProblem(name: string): string | undefined {
  if (SECRET_ENV_NAME.test(name)) return undefined;
  return `only variables named ${SECRET_ENV_PREFIX}<NAME> (letters, digits, _) may be read, not ${JSON.stringify(name)}`;
}

/**
 * Why `path` is not a safe name of a file inside the secrets directory, or undefined. A safe
 * path is relative, uses `/` separators, and has no empty, `.` or `..` segment and no segment
 * starting with `.` (docs/design.md, Safety invariants: nothing hidden is ever read as a secret — `.git`, the
 * Kubernetes `..data` links). The loader's `entriesFile` has a check of its own; the two
 * state the same rule for different roots.
 */
export function secretFilePathProblem(path: string): string | undefined {
  if (path === '') return 'must not be empty';
  if (path.includes('\0')) return 'must not contain a NUL character';
  if (path.includes('\\')) return 'must use / as separator, not \\';
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) {
    return `must be relative to the secrets directory, not absolute (${JSON.stringify(path)})`;
  }
  for (const segment of path.split('/')) {
    if (segment === '' || segment.startsWith('.')) {
      return `must stay inside the secrets directory: no empty, ".", ".." or hidden segments (${JSON.stringify(path)})`;
    }
  }
  return undefined;
}

/** A stable text key of a source: `env:NAME` or `file:PATH`. */
export function secretSourceKey(source: SecretSource): string {
  return 'env' in source ? `env:${source.env}` : `file:${source.file}`;
}

/** How a source is named in messages: `EDGESYNC_SECRET_DB` or `secret file db-url`. */
export function describeSecretSource(source: SecretSource): string {
  return 'env' in source ? source.env : `secret file ${JSON.stringify(source.file)}`;
}

/**
 * A secret file's value: its text with one trailing line break (`\n` or `\r\n`) removed,
 * since editors and `echo` add one; any other whitespace is part of the value.
 */
export function secretFileValue(text: string): string {
  if (text.endsWith('\r\n')) return text.slice(0, -2);
  if (text.endsWith('\n')) return text.slice(0, -1);
  return text;
}

/**
 * Whether a variable's name looks like it holds a secret: it contains, in any case, PASSWORD,
 * PASSWD, SECRET, TOKEN, KEY, CREDENTIAL, PRIVATE or AUTH. Plans never print such values even
 * when the YAML does not mark them, and `export` writes them as `valueFrom` placeholders.
 * Erring towards hiding costs a `(sensitive)` too many; the other way round leaks.
 */
export function looksSecret(name: string): boolean {
  return /PASSWORD|PASSWD|SECRET|TOKEN|KEY|CREDENTIAL|PRIVATE|AUTH/i.test(name);
}

/** A source's value, or why it has none (missing, empty, too large, outside the directory). */
export type SecretRead = { readonly value: string } | { readonly error: string };

/** Reads `valueFrom` sources; never throws: every failure is a `{ error }` naming the source, never a value. */
export interface SecretReader {
  read(source: SecretSource): Promise<SecretRead>;
}
