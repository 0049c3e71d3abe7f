/**
 * `edgesync validate [--config DIR] [--json]`: loads and validates the desired state offline.
 *
 * Prints every problem, one per line as `file:line:col: message (at path)`, to stderr, with
 * paths joined to the --config given so a terminal or editor can open them; then a summary.
 * `--json` prints only a JSON array of every issue (errors and warnings) to stdout.
 * Exit 0 when valid (warnings allowed), 1 when invalid or unreadable.
 */
import { join } from 'node:path';
import type { Command } from 'commander';
import { formatIssue } from '../../config/issues.js';
import { loadDesiredState } from '../../config/loader.js';
import type { ConfigIssue } from '../../config/types.js';
import { ReconcileError } from '../../errors.js';
import { addConfigOption, type ConfigFlags, configDirFrom } from '../config-dir.js';
import { type CliIo, errorLine } from '../io.js';

interface ValidateFlags extends ConfigFlags {
  readonly json?: boolean;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** Runs validate; returns the exit code. */
async function runValidate(flags: ValidateFlags, io: CliIo): Promise<number> {
  const dir = configDirFrom(flags.config, io);
  const display = (issue: ConfigIssue): string =>
    formatIssue(issue, issue.file === '.' ? dir.given : join(dir.given, issue.file));
  try {
    const state = await loadDesiredState(dir.path);
    if (flags.json) {
      io.stdout.write(`${JSON.stringify(state.warnings, null, 2)}\n`);
      return 0;
    }
    for (const issue of state.warnings) io.stderr.write(`${display(issue)}\n`);
    const warnings = state.warnings.length === 0 ? '' : `, with ${plural(state.warnings.length, 'warning')}`;
    const verb = state.resources.length === 1 ? 'is' : 'are';
    io.stdout.write(
      `${plural(state.resources.length, 'resource')} in ${plural(state.fileCount, 'file')} ${verb} valid${warnings}\n`,
    );
    return 0;
  } catch (err) {
    if (!(err instanceof ReconcileError) || err.code !== 'CONFIG_INVALID') throw err;
    const issues = (err.details?.issues ?? []) as ConfigIssue[];
    if (flags.json) {
      io.stdout.write(`${JSON.stringify(issues, null, 2)}\n`);
      return 1;
    }
    for (const issue of issues) io.stderr.write(`${display(issue)}\n`);
    const errors = issues.filter((issue) => issue.severity === 'error').length;
    io.stderr.write(errorLine('CONFIG_INVALID', `${plural(errors, 'problem')} in ${dir.given}`));
    return 1;
  }
}

/** Registers `validate` on the program. */
export function registerValidate(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  addConfigOption(
    program
      .command('validate')
      .description('check the desired state offline: every problem as file:line:col: message'),
  )
    .option('--json', 'print every issue as a JSON array on stdout')
    .action(async (flags: ValidateFlags) => {
      setExitCode(await runValidate(flags, io));
    });
}
