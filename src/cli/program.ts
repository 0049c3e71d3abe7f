/**
 * The command-line program: one commander `Command`, one module per sub-command.
 * Every command returns an exit code; nothing here calls `process.exit`.
 */
import { Command, CommanderError } from 'commander';
import { ReconcileError } from '../errors.js';
import type { CommandRegistrar } from './command.js';
import { registerCompletion } from './commands/completion.js';
import { type CliIo, errorLine } from './io.js';
import { VERSION } from './version.js';

export type { CliIo } from './io.js';

/**
 * Every sub-command, in the order `--help` lists them, each module loaded when it is needed: a
 * command's module brings what its action uses (`run` the daemon and PostgreSQL, `plan` the
 * API client and undici), and `edgesync validate` in a pre-commit hook or a CI step need not
 * wait for all of it. Loading them all is about 0.3 s of CPU more than the loader alone
 * (docs/performance.md, Latest figures).
 */
const COMMANDS: Readonly<Record<string, () => Promise<CommandRegistrar>>> = {
  validate: async () => (await import('./commands/validate.js')).registerValidate,
  plan: async () => (await import('./commands/plan.js')).registerPlan,
  apply: async () => (await import('./commands/apply.js')).registerApply,
  run: async () => (await import('./commands/run.js')).registerRun,
  schema: async () => (await import('./commands/schema.js')).registerSchema,
  emulator: async () => (await import('./commands/emulator.js')).registerEmulatorCommand,
  inspect: async () => (await import('./commands/inspect.js')).registerInspect,
  export: async () => (await import('./commands/export.js')).registerExport,
  forget: async () => (await import('./commands/forget.js')).registerForget,
  state: async () => (await import('./commands/state.js')).registerState,
};

/**
 * The commands an invocation needs: the one it names, or all of them (no command, a flag such
 * as --help or --version, an unknown name that commander should answer, `completion`).
 */
function commandsFor(argv: readonly string[]): string[] {
  const first = argv[0];
  return first !== undefined && Object.hasOwn(COMMANDS, first) ? [first] : Object.keys(COMMANDS);
}

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
  for (const name of commandsFor(argv)) {
    const register = await (COMMANDS[name] as () => Promise<CommandRegistrar>)();
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
