/**
 * The command-line program: one commander `Command`, one module per sub-command.
 * Every command returns an exit code; nothing here calls `process.exit`.
 */
import { Command, CommanderError } from 'commander';
import { ReconcileError } from '../errors.js';
import type { CommandRegistrar } from './command.js';
import { registerApply } from './commands/apply.js';
import { registerCompletion } from './commands/completion.js';
import { registerEmulatorCommand } from './commands/emulator.js';
import { registerExport } from './commands/export.js';
import { registerForget } from './commands/forget.js';
import { registerInspect } from './commands/inspect.js';
import { registerPlan } from './commands/plan.js';
import { registerRun } from './commands/run.js';
import { registerSchema } from './commands/schema.js';
import { registerState } from './commands/state.js';
import { registerValidate } from './commands/validate.js';
import { type CliIo, errorLine } from './io.js';
import { VERSION } from './version.js';

export type { CliIo } from './io.js';

const COMMANDS: readonly CommandRegistrar[] = [
  registerValidate,
  registerPlan,
  registerApply,
  registerRun,
  registerSchema,
  registerEmulatorCommand,
  registerInspect,
  registerExport,
  registerForget,
  registerState,
];

/**
 * `--access-key KEY` is a common habit from other tools, but a key in a flag shows in `ps`
 * and shell history: every command except `emulator` (whose key is a local test key) refuses
 * it in one line that says what to use instead. The value is never echoed.
 */
const ACCESS_KEY_FLAG_MESSAGE =
  '--access-key is not accepted: a key on the command line shows in `ps` and shell history; set EDGESYNC_ACCESS_KEY or pass --access-key-file FILE';

function usesAccessKeyFlag(argv: readonly string[]): boolean {
  if (argv[0] === 'emulator') return false;
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some(
    (arg) => arg === '--access-key' || arg.startsWith('--access-key='),
  );
}

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  if (usesAccessKeyFlag(argv)) {
    io.stderr.write(errorLine('USAGE', ACCESS_KEY_FLAG_MESSAGE));
    return 1;
  }
  let exitCode = 0;
  const program = new Command('edgesync')
    .description('GitOps reconciler for bunny.net Shield/WAF, Magic Containers and DNSSEC')
    .version(VERSION)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // Commander's own refusals (an unknown flag, a missing argument) are usage errors.
      outputError: (s, write) => write(s.replace(/^error: /, 'edgesync: USAGE: ')),
    })
    // A pointer, not the whole help: the error line stays visible.
    .showHelpAfterError('(add --help to list the flags)');
  for (const register of COMMANDS) {
    register(program, io, (code) => {
      exitCode = code;
    });
  }
  // Last: it reads the commands and flags registered above.
  registerCompletion(program);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end through exitOverride with exit code 0.
      return err.exitCode === 0 ? 0 : 1;
    }
    if (err instanceof ReconcileError) {
      io.stderr.write(errorLine(err.code, err.message));
      return 1;
    }
    io.stderr.write(
      errorLine(
        'INTERNAL',
        `internal error, please report it: ${err instanceof Error ? err.stack : String(err)}`,
      ),
    );
    return 1;
  }
}

/**
 * The real process as a CliIo; SIGTERM, SIGINT and SIGHUP abort the signal once, with the
 * signal's name as the reason. SIGHUP is a graceful stop like SIGTERM, not a reload: a
 * terminal that closes sends it, and a daemon killed mid-apply by it left no log line.
 */
export function processIo(): CliIo {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => controller.abort(signal);
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  process.once('SIGHUP', onSignal);
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    signal: controller.signal,
  };
}
