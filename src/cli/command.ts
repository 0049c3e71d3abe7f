/**
 * The shape of a sub-command module. Apart from `program.ts`, so that the command modules,
 * which `program.ts` imports, never import it back.
 */
import type { Command } from 'commander';
import type { CliIo } from './io.js';

/** A sub-command module registers itself on the program and reports its exit code. */
export type CommandRegistrar = (program: Command, io: CliIo, setExitCode: (code: number) => void) => void;
