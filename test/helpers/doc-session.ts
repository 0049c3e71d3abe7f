/**
 * Runs a document's command blocks (test/e2e/docs-*.test.ts): the docs stay true. The command blocks of README.md and docs/getting-started.md run, as a
 * reader would run them, with the built binary as `edgesync`, and their documented outcome is
 * checked. The Markdown is the source; the conventions (CONTRIBUTING.md, Docs that run):
 *
 * - Every ```sh and ```console block runs, in document order, in one shell session per
 *   document: variables exported and the directory changed by one command hold for the next.
 * - In a ```sh block every line is a command (`\` continues it) that must exit 0, or the code a
 *   trailing `(exit N)` in its comment names. In a ```console block, `$ ` starts a command and
 *   the lines under it are its output: each must appear in what the command printed, in that
 *   order (`…` stands for text left out); `$ echo $?` shows the exit code of the command before.
 * - `<!-- doc-test: skip: REASON -->` on the line above a fence: the block is not run (a
 *   global install, a daemon that runs until Ctrl-C). The test lists the skipped blocks by
 *   reason, so nothing is left out silently.
 * - `<!-- doc-test: background -->`: the block's one command keeps running (the emulator); the
 *   session goes on once it printed `listening on URL`, and it is stopped at the end.
 *
 * The session: an empty directory holding a copy of `config-examples/` (as a clone has it);
 * `EDGESYNC_ACCESS_KEY=demo` and
 * `EDGESYNC_BASE_URL` pointing at an emulator seeded with config-examples' account (the
 * account a command without `--base-url` reaches). The one rewrite: the port 8899 the
 * getting-started emulator is started on becomes a free one (and `127.0.0.1:8899` in later
 * commands with it), and `/tmp/` paths land inside the session's directory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadSeedFile, startEmulator } from '../../src/emulator/index.js';
import { MAIN, REPO } from './spawn-daemon.js';
import { tempDir, writeTree } from './temp-dir.js';

/** One fenced block of a document. */
interface Block {
  readonly doc: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly lang: 'sh' | 'console';
  readonly text: string;
  readonly marker?: { kind: 'skip'; reason: string } | { kind: 'background' };
}

/** One command of a block, with what it must print and its exit code. */
interface Step {
  readonly block: Block;
  readonly command: string;
  /** Lines the output must contain, in order (console blocks). */
  readonly output: readonly string[];
  /** The exit code required, or `any` when the next step echoes `$?`. */
  readonly exit: number | 'any';
}

const MARKER = /^<!--\s*doc-test:\s*(skip|background)\s*(?::\s*(.*?))?\s*-->$/;

/** The runnable blocks of a Markdown file, with their markers. */
function blocksOf(doc: string, markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const open = /^(\s*)```(\S*)\s*$/.exec(lines[i] as string);
    if (open === null) continue;
    const indent = (open[1] as string).length;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j] as string); j += 1)
      body.push((lines[j] as string).slice(indent));
    const lang = open[2];
    if (lang === 'sh' || lang === 'console') {
      const above =
        (lines[i - 1] ?? '').trim() === '' ? (lines[i - 2] ?? '').trim() : (lines[i - 1] ?? '').trim();
      const marked = MARKER.exec(above);
      const marker =
        marked === null
          ? undefined
          : marked[1] === 'skip'
            ? { kind: 'skip' as const, reason: marked[2] ?? '' }
            : { kind: 'background' as const };
      blocks.push({
        doc,
        line: i + 1,
        lang,
        text: body.join('\n'),
        ...(marker === undefined ? {} : { marker }),
      });
    }
    i = j;
  }
  return blocks;
}

/** A block's commands: `\`-continued lines joined; comment-only and blank lines dropped. */
function stepsOf(block: Block): Step[] {
  const steps: { command: string; output: string[] }[] = [];
  const raw = block.text.split('\n');
  for (let i = 0; i < raw.length; i += 1) {
    let line = raw[i] as string;
    if (block.lang === 'console') {
      if (!line.startsWith('$ ')) {
        const last = steps.at(-1);
        if (last !== undefined && line.trim() !== '') last.output.push(line.trim());
        continue;
      }
      line = line.slice(2);
    } else if (line.trim() === '' || line.trim().startsWith('#')) {
      continue;
    }
    while (line.endsWith('\\') && i + 1 < raw.length) {
      i += 1;
      line = `${line.slice(0, -1)}${(raw[i] as string).replace(/^\$ /, '')}`;
    }
    steps.push({ command: line, output: [] });
  }
  return steps.map((step, index) => {
    const declared = /#.*\(exit (\d+)\)\s*$/.exec(step.command);
    const echoedNext = steps[index + 1]?.command.trim() === 'echo $?';
    return {
      block,
      command: step.command,
      output: step.output,
      exit: declared !== null ? Number(declared[1]) : echoedNext ? 'any' : 0,
    };
  });
}

/** Whether `want` (with `…` for elided text) occurs in `line`. */
function lineMatches(line: string, want: string): boolean {
  const parts = want.split('…').map((part) => part.trim());
  let from = 0;
  for (const part of parts) {
    const at = line.indexOf(part, from);
    if (at === -1) return false;
    from = at + part.length;
  }
  return true;
}

/** The wanted lines not found in `output` in order (empty when all are). */
function missingLines(output: string, wanted: readonly string[]): string[] {
  const lines = output.split('\n');
  let at = 0;
  const missing: string[] = [];
  for (const want of wanted) {
    const found = lines.findIndex((line, index) => index >= at && lineMatches(line, want));
    if (found === -1) missing.push(want);
    else at = found + 1;
  }
  return missing;
}

/** What one command did. */
interface Ran {
  readonly code: number | null;
  readonly output: string;
}

/**
 * A shell session: each command runs in a fresh `bash -c` that first restores the exported
 * variables, the directory and `$?` the previous one left, and saves them after.
 */
class Session {
  readonly #state: string;
  readonly #rewrites: Array<[string, string]> = [];
  readonly #background: ChildProcess[] = [];
  #last = 0;

  constructor(
    readonly dir: string,
    env: Readonly<Record<string, string>>,
  ) {
    this.#state = join(dir, '.session');
    mkdirSync(this.#state);
    mkdirSync(join(dir, 'tmp'));
    const exports = Object.entries(env).map(([k, v]) => `export ${k}=${JSON.stringify(v)}`);
    writeFileSync(join(this.#state, 'env.sh'), `${exports.join('\n')}\n`);
    writeFileSync(join(this.#state, 'cwd'), dir);
    this.#rewrites.push(['/tmp/', `${join(dir, 'tmp')}/`]);
  }

  /** The command (or an output line the doc shows) with this session's rewrites. */
  rewrite(command: string): string {
    let out = command;
    for (const [from, to] of this.#rewrites) out = out.split(from).join(to);
    return out;
  }

  #prelude(): string {
    const state = this.#state;
    return `source "${state}/env.sh"; cd "$(cat "${state}/cwd")" || exit 97`;
  }

  run(command: string): Promise<Ran> {
    const state = this.#state;
    const script = `${this.#prelude()}; (exit ${this.#last}); eval "$1"; __rc=$?; export -p > "${state}/env.sh"; pwd > "${state}/cwd"; exit $__rc`;
    return new Promise((resolve, reject) => {
      // stdin is /dev/null: bash reads ~/.bashrc when stdin is a socket (node's pipes are).
      const child = spawn('bash', ['-c', script, 'bash', this.rewrite(command)], {
        env: { PATH: process.env.PATH ?? '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      child.on('error', reject);
      child.on('close', (code) => {
        this.#last = code ?? 1;
        resolve({ code, output });
      });
    });
  }

  /**
   * Starts a command that keeps running (the emulator) and waits for its `listening on URL`;
   * a fixed port in it becomes a free one, and later commands name the real one.
   */
  start(command: string): Promise<Ran> {
    const fixed = /--port (\d+)/.exec(command)?.[1];
    const line = this.rewrite(fixed === undefined ? command : command.replace(`--port ${fixed}`, '--port 0'));
    return new Promise((resolve, reject) => {
      // Its own process group, so that stop() ends the command and not only its shell.
      const child = spawn('bash', ['-c', `${this.#prelude()}; eval "$1"`, 'bash', line], {
        env: { PATH: process.env.PATH ?? '' },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      this.#background.push(child);
      let output = '';
      const timer = setTimeout(
        () => resolve({ code: null, output: `${output}\n(no "listening on" in 20 s)` }),
        20_000,
      );
      child.stdout.on('data', (d) => {
        output += d;
        const url = /listening on http:\/\/([\d.]+:\d+)/.exec(output)?.[1];
        if (url === undefined) return;
        clearTimeout(timer);
        if (fixed !== undefined) this.#rewrites.push([`127.0.0.1:${fixed}`, url]);
        resolve({ code: 0, output });
      });
      child.stderr.on('data', (d) => (output += d));
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, output });
      });
    });
  }

  stop(): void {
    for (const child of this.#background) {
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
    }
  }
}

/** What running a document found. */
interface DocRun {
  /** One entry per command whose exit code or output is not what the doc shows. */
  readonly failures: readonly string[];
  /** `doc:line: reason` of every block marked skip. */
  readonly skipped: readonly string[];
  /** How many commands ran. */
  readonly ran: number;
}

const SEED = join(REPO, 'config-examples/.emulator/seed.yaml');

/** Runs every block of `doc` (a path under the repository) in a new session. */
export async function runDocument(doc: string): Promise<DocRun> {
  const blocks = blocksOf(doc, readFileSync(join(REPO, doc), 'utf8'));
  const dir = tempDir('edgesync-doc-');
  cpSync(join(REPO, 'config-examples'), join(dir, 'config-examples'), { recursive: true });
  writeTree(dir, { '.bin/edgesync': `#!/bin/sh\nexec "${process.execPath}" "${MAIN}" "$@"\n` });
  chmodSync(join(dir, '.bin/edgesync'), 0o755);
  const account = await startEmulator({ accessKey: 'demo', seed: await loadSeedFile(SEED), journal: false });
  const session = new Session(dir, {
    PATH: `${join(dir, '.bin')}:${process.env.PATH ?? ''}`,
    HOME: dir,
    NO_COLOR: '1',
    EDGESYNC_ACCESS_KEY: 'demo',
    EDGESYNC_BASE_URL: account.url,
  });
  const failures: string[] = [];
  const skipped: string[] = [];
  let ran = 0;
  try {
    for (const block of blocks) {
      const where = `${doc}:${block.line}`;
      if (block.marker?.kind === 'skip') {
        skipped.push(`${where}: ${block.marker.reason}`);
        continue;
      }
      const steps = stepsOf(block);
      if (block.marker?.kind === 'background') {
        const [step, ...rest] = steps;
        if (step === undefined || rest.length > 0)
          failures.push(`${where}: a background block holds one command`);
        if (step === undefined) continue;
        const started = await session.start(step.command);
        ran += 1;
        if (started.code !== 0)
          failures.push(`${where}: $ ${step.command}\n  did not start:\n${started.output}`);
        continue;
      }
      for (const step of steps) {
        const result = await session.run(step.command);
        ran += 1;
        const problems: string[] = [];
        if (step.exit !== 'any' && result.code !== step.exit)
          problems.push(`exit ${result.code}, the doc says ${step.exit}`);
        const missing = missingLines(
          result.output,
          step.output.map((line) => session.rewrite(line)),
        );
        if (missing.length > 0)
          problems.push(`missing from the output: ${missing.map((m) => JSON.stringify(m)).join(', ')}`);
        if (problems.length > 0) {
          failures.push(
            `${where}: $ ${step.command}\n  ${problems.join('\n  ')}\n  output:\n${result.output.slice(0, 3000)}`,
          );
        }
      }
    }
  } finally {
    session.stop();
    await account.close();
  }
  return { failures, skipped, ran };
}
