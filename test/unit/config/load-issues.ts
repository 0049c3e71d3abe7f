/** Test helper: load a directory and return the printed issue lines of its CONFIG_INVALID error. */
import { formatIssue } from '../../../src/config/issues.js';
import { createDesiredStateLoader, type LoaderOptions } from '../../../src/config/loader.js';
import type { ConfigIssue } from '../../../src/config/types.js';
import { ReconcileError } from '../../../src/errors.js';

/** The issues a failing load reports; throws if the load succeeds or fails otherwise. */
export async function loadIssues(dir: string, options: LoaderOptions = {}): Promise<ConfigIssue[]> {
  try {
    await createDesiredStateLoader(options).load(dir);
  } catch (err) {
    if (err instanceof ReconcileError && err.code === 'CONFIG_INVALID')
      return err.details?.issues as ConfigIssue[];
    throw err;
  }
  throw new Error(`${dir} loaded without problems`);
}

/** The printed lines of a failing load. */
export async function loadIssueLines(dir: string, options?: LoaderOptions): Promise<string[]> {
  return (await loadIssues(dir, options)).map((issue) => formatIssue(issue));
}
