/**
 * Shell completion (`edgesync completion bash|zsh|fish`), as a user meets it: the built binary
 * answers the scripts' `edgesync complete -- <words>` requests, and each shell, started
 * interactively in a real pseudo-terminal (util-linux `script`) with the generated script
 * sourced, completes a partly typed command line when Tab is pressed. The completed line is
 * then echoed (Ctrl-A `echo "COMPLETED: ` Ctrl-E `"`), so the test reads what the shell's own
 * completion machinery put on the line. A shell that is not installed is skipped, by name.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAIN, requireBuild, runBinary } from '../helpers/spawn-daemon.js';
import { tempDir, writeTree } from '../helpers/temp-dir.js';

const BASH_COMPLETION = '/usr/share/bash-completion/bash_completion';

function installed(program: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function run(args: string[]): Promise<{ code: number | null; stdout: string }> {
  return runBinary(args);
}

/** The candidates `edgesync complete -- …words` prints, without descriptions or the directive line. */
async function candidates(...words: string[]): Promise<string[]> {
  const { code, stdout } = await run(['complete', '--', ...words]);
  expect(code).toBe(0);
  const lines = stdout.trimEnd().split('\n');
  expect(lines.at(-1)).toMatch(/^:\d+$/);
  return lines.slice(0, -1).map((line) => line.split('\t')[0] as string);
}

/** What each typed line becomes after one Tab. */
const LINES: ReadonlyArray<readonly [typed: string, completed: string]> = [
  ['edgesync pl', 'edgesync plan'],
  ['edgesync plan --detailed-e', 'edgesync plan --detailed-exitcode'],
  ['edgesync plan --format mar', 'edgesync plan --format markdown'],
];

interface Shell {
  name: 'bash' | 'zsh' | 'fish';
  ready: boolean;
  /** The shell's command line and environment, given a home whose rc file sources the script. */
  start(home: string): { command: string; env: Record<string, string> };
  rc(home: string): Record<string, string>;
}

const SHELLS: readonly Shell[] = [
  {
    name: 'bash',
    // The generated script uses bash-completion's `_get_comp_words_by_ref`, as distributions' bash has it.
    ready: installed('bash') && existsSync(BASH_COMPLETION),
    rc: () => ({
      '.bashrc': `PS1='$ '\nsource ${BASH_COMPLETION}\nsource <(edgesync completion bash)\n`,
    }),
    start: (home) => ({ command: `bash --rcfile ${join(home, '.bashrc')} -i`, env: {} }),
  },
  {
    name: 'zsh',
    ready: installed('zsh'),
    rc: () => ({
      '.zshrc':
        "PS1='$ '\nbindkey -e\nautoload -U compinit && compinit -u\nsource <(edgesync completion zsh)\n",
    }),
    start: (home) => ({ command: 'zsh -i', env: { ZDOTDIR: home } }),
  },
  {
    name: 'fish',
    ready: installed('fish'),
    rc: () => ({
      // Present, so fish does not start generating man-page completions in the background.
      '.local/share/fish/generated_completions/.keep': '',
      '.config/fish/config.fish':
        "function fish_prompt; echo '$ '; end\nset -g fish_autosuggestion_enabled 0\nedgesync completion fish | source\n",
    }),
    start: (home) => ({ command: 'fish --private -i', env: { XDG_CONFIG_HOME: join(home, '.config') } }),
  },
];

/**
 * Starts `shell` in a pseudo-terminal, types each line with one Tab, and returns the lines as
 * the shell completed them. `edgesync` on its PATH is the built binary.
 */
function completeIn(shell: Shell, typed: readonly string[]): Promise<string[]> {
  const home = tempDir('edgesync-completion-');
  writeTree(home, {
    ...shell.rc(home),
    'bin/edgesync': `#!/bin/sh\nexec "${process.execPath}" "${MAIN}" "$@"\n`,
  });
  execFileSync('chmod', ['+x', join(home, 'bin/edgesync')]);
  const { command, env } = shell.start(home);
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], {
      cwd: home,
      env: {
        HOME: home,
        PATH: `${join(home, 'bin')}:${process.env.PATH ?? ''}`,
        TERM: 'dumb',
        ...env,
      },
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', () => {
      // A shell redraws its line with \r and escape sequences: the echo's output is a line of its own.
      const lines = stripVTControlCharacters(out).split(/\r\n|\r|\n/);
      resolve(lines.flatMap((line) => /^COMPLETED: (.*?)\s*$/.exec(line)?.slice(1) ?? []));
    });
    // Tab completes; Ctrl-A, text, Ctrl-E turn the completed line into an echo of itself.
    for (const line of typed) child.stdin.write(`${line}\t\x01echo "COMPLETED: \x05"\n`);
    child.stdin.end('exit\n');
  });
}

describe('shell completion', () => {
  beforeAll(() => {
    requireBuild();
  });

  it('the completion entry point lists commands, subcommands, flags and choices', async () => {
    const [commands, inspect, planFlags, formats] = await Promise.all([
      candidates(''),
      candidates('inspect', ''),
      candidates('plan', '--'),
      candidates('plan', '--format', ''),
    ]);

    expect(commands).toEqual(
      expect.arrayContaining(['validate', 'plan', 'apply', 'run', 'export', 'inspect', 'completion']),
    );
    expect(commands).not.toContain('complete');
    expect(inspect).toEqual(
      expect.arrayContaining(['bots', 'waf-catalog', 'api-guardian', 'optimal-region']),
    );
    expect(planFlags).toEqual(
      expect.arrayContaining(['--config', '--only', '--prune', '--detailed-exitcode', '--format', '--out']),
    );
    expect(formats).toEqual(['text', 'markdown', 'json']);
  });

  it('edgesync completion powershell prints a script that asks edgesync complete (no PowerShell here to run it)', async () => {
    const { code, stdout } = await run(['completion', 'powershell']);

    expect(code).toBe(0);
    expect(stdout).toContain("& edgesync complete '--'");
  });

  describe.each(SHELLS.map((shell) => [shell.name, shell] as const))('%s', (_, shell) => {
    it.skipIf(!shell.ready)(
      'completes commands, flags and their values on Tab',
      async () => {
        const completed = await completeIn(
          shell,
          LINES.map(([typed]) => typed),
        );

        expect(completed).toEqual(LINES.map(([, line]) => line));
      },
      30_000,
    );
  });
});
