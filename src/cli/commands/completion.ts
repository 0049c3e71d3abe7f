/**
 * `edgesync completion bash|zsh|fish|powershell` prints a shell completion script; the script
 * asks the hidden `edgesync complete -- <words>` for the candidates as the user types. Both
 * come from @bomb.sh/tab's commander adapter, which reads the commands, flags and `choices` from
 * the program itself, so a new command or flag completes with no change here. It must be
 * registered last: the adapter walks the commands that exist when it is called. The library
 * prints through `console.log` (the process's stdout), so this is the one command whose output
 * does not go through `CliIo`.
 */
import tab from '@bomb.sh/tab/commander';
import type { Command } from 'commander';

export function registerCompletion(program: Command): void {
  tab(program, { completionCommandName: 'completion' });
  program.commands
    .find((command) => command.name() === 'completion')
    ?.description('print a shell completion script: source <(edgesync completion bash), or zsh, fish');
}
