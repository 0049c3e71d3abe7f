/**
 * `edgesync schema`: prints the JSON Schema (draft 2020-12) of a desired-state document, for
 * editors: save it and point yaml-language-server's `$schema` modeline at it.
 */
import type { Command } from 'commander';
import { desiredStateJsonSchemaText } from '../../config/json-schema.js';
import type { CliIo } from '../io.js';

/** Registers `schema` on the program. */
export function registerSchema(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('schema')
    .description('print the JSON Schema of the desired-state format (for yaml-language-server)')
    .action(() => {
      io.stdout.write(desiredStateJsonSchemaText());
      setExitCode(0);
    });
}
