/**
 * Hostile config (issue 6): every case of the invalid-input corpus, committed or built at run
 * time, goes through `edgesync apply` against a live emulator, and not one request reaches
 * the API — not a write, not even a read — nor is a state directory created.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { cliAgainst } from '../helpers/cli.js';
import { withEmulator } from '../helpers/emulator.js';
import { GIT_CONFIG_TOKEN, INVALID_TREES } from '../helpers/invalid-trees.js';
import { MAIN } from '../helpers/spawn-daemon.js';
import { tempDir } from '../helpers/temp-dir.js';

const CORPUS = fileURLToPath(new URL('../fixtures/desired/invalid/', import.meta.url));
const committed = readdirSync(CORPUS).sort();

describe('the invalid-input corpus through apply', () => {
  let emu: Emulator;
  beforeAll(async () => {
    emu = await withEmulator();
  });
  afterAll(async () => {
    await emu.close();
  });
  beforeEach(() => {
    emu.journal.clear();
  });

  async function apply(configDir: string) {
    const stateDir = join(tempDir(), 'state');
    const run = await cliAgainst(emu, ['apply', '--config', configDir, '--state-dir', stateDir]);
    return { ...run, stateDirCreated: existsSync(stateDir), requests: emu.journal.count() };
  }

  it('covers every committed case and every runtime-built one', () => {
    expect(committed.length).toBeGreaterThanOrEqual(40);
    expect(INVALID_TREES.length).toBe(10);
  });

  it.each(committed)('%s: exit 1, no request at all, no state written', async (name) => {
    const dir = join(CORPUS, name);
    // The loader's corpus test holds these lines exactly; here they prove apply failed for them.
    const expected = readFileSync(join(dir, 'expected.txt'), 'utf8').trimEnd().split('\n');
    const errors = expected.filter((line) => !/^[^ ]+?: warning: /.test(line)).length;

    const run = await apply(dir);

    expect(run.code).toBe(1);
    expect(run.requests).toBe(0);
    expect(run.stateDirCreated).toBe(false);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `${[...expected, `edgesync: CONFIG_INVALID: ${errors} problem${errors === 1 ? '' : 's'} in ${dir}`].join('\n')}\n`,
    );
  });

  it.each(INVALID_TREES)('$name: exit 1, no request at all, no state written', async (tree) => {
    const run = await apply(tree.build());

    expect(run.code).toBe(1);
    expect(run.requests).toBe(0);
    expect(run.stateDirCreated).toBe(false);
    // Its lines and nothing else, then the one-line summary; nothing on stdout.
    expect(run.stderr.trimEnd().split('\n')).toEqual([...tree.lines, expect.stringMatching(/^edgesync: /)]);
    expect(run.stdout).toBe('');
    // Issue 23: a `.git/config` named as an entriesFile never shows its token anywhere.
    expect(run.stderr).not.toContain(GIT_CONFIG_TOKEN);
  });
});

/** `edgesync validate` as a real process with a small V8 heap: exit code, stderr, peak RSS. */
function validateInProcess(
  configDir: string,
  heapMb = 64,
): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve) => {
    // 64 MB of old space: the documents below, composed, take hundreds of megabytes.
    execFile(
      process.execPath,
      [`--max-old-space-size=${heapMb}`, MAIN, 'validate', '--config', configDir],
      { timeout: 120_000, maxBuffer: 1024 * 1024 },
      (error, _stdout, stderr) => {
        const failed = error as (Error & { code?: number | string; signal?: string }) | null;
        resolve({
          code: typeof failed?.code === 'number' ? failed.code : failed === null ? 0 : null,
          signal: failed?.signal ?? null,
          stderr,
        });
      },
    );
  });
}

describe('nesting depth (issue 23): a small file built to exhaust memory', () => {
  // The built CLI (npm run build): the process and its heap limit are the measure.
  it.each([
    ['1 MB', 500_000],
    ['4 MB', 2_000_000],
  ])(
    'a %s file of [[[[…]]]] is refused at its 65th bracket, in a 64 MB heap',
    async (_size, levels) => {
      const dir = tempDir();
      writeFileSync(join(dir, 'deep.yaml'), `${'['.repeat(levels)}${']'.repeat(levels)}\n`);

      const run = await validateInProcess(dir);

      // Composed, the old loader ran out of this heap (V8 aborts: no exit code, SIGABRT).
      expect({ code: run.code, signal: run.signal }).toEqual({ code: 1, signal: null });
      expect(run.stderr).toBe(
        `${dir}/deep.yaml:1:65: YAML nested deeper than 64 levels (collections inside collections); refused unparsed as a guard against documents built to exhaust memory\nedgesync: CONFIG_INVALID: 1 problem in ${dir}\n`,
      );
    },
    130_000,
  );
});

describe('list width and document count: a file built to exhaust memory', () => {
  // The built CLI in a 64 MB heap, as above: the width twin of the depth cap.
  it.each([
    [
      'a 500 KB flow list of 250,000 items',
      `x: [${Array.from({ length: 250_000 }, () => '1').join(',')}]\n`,
      '/wide.yaml:1:',
      'more than 200000 YAML nodes in one file',
    ],
    [
      'a million empty documents',
      '---\n'.repeat(1_000_000),
      '/wide.yaml:20001:1:',
      'more than 20000 YAML documents',
    ],
  ])(
    '%s is refused at file:line:col, in a 64 MB heap',
    async (_name, text, where, message) => {
      const dir = tempDir();
      writeFileSync(join(dir, 'wide.yaml'), text);

      const run = await validateInProcess(dir);

      expect({ code: run.code, signal: run.signal }).toEqual({ code: 1, signal: null });
      expect(run.stderr).toContain(`${dir}${where}`);
      expect(run.stderr).toContain(message);
      expect(run.stderr).toContain(`edgesync: CONFIG_INVALID: 1 problem in ${dir}`);
    },
    130_000,
  );

  // Real configurations load in a small heap. An entriesFile of 50,000 lines fits the 64 MB the
  // hostile files above are refused in; 50,000 inline entries peak near 60 MB (the YAML nodes of
  // 50,000 scalars and their validated copy live at once), so 64 MB aborts now and then: 96.
  it.each([
    ['inline entries', 96, 'entries:\n', (entries: string[]) => entries.map((e) => `    - ${e}`).join('\n')],
    ['an entriesFile', 64, 'entriesFile: big.txt\n', () => ''],
  ])(
    'an access list of 50,000 %s still loads, in a %i MB heap',
    async (_name, heapMb, field, listed) => {
      const entries = Array.from(
        { length: 50_000 },
        (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      );
      const dir = tempDir();
      writeFileSync(
        join(dir, 'list.yaml'),
        `apiVersion: edgesync/v1\nkind: AccessList\nmetadata: { name: big }\nspec:\n  shieldZoneId: 42\n  name: Big\n  type: IP\n  ${field}${listed(entries)}\n`,
      );
      writeFileSync(join(dir, 'big.txt'), `${entries.join('\n')}\n`);

      const run = await validateInProcess(dir, heapMb);

      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
    },
    130_000,
  );
});
