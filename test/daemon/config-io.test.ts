/**
 * Too many open files is a failure of the machine, not of the desired state: the loader
 * reports it as CONFIG_IO (retried by the daemon), never as CONFIG_INVALID (which stalls it
 * until the files change). A real EMFILE: a child process with a small descriptor limit fills
 * its descriptor table, then loads a valid config directory with the built loader.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.js';
import { writeDaemonConfig } from '../helpers/daemon.js';
import { REPO, useSpawnedDaemons } from '../helpers/spawn-daemon.js';
import { tempDir } from '../helpers/temp-dir.js';

useSpawnedDaemons();

const SCRIPT = `
import { openSync } from 'node:fs';
const { loadDesiredState } = await import(process.argv[1]);
try { for (;;) openSync('/dev/null', 'r'); } catch {}
try { await loadDesiredState(process.argv[2]); console.log('{"loaded":true}'); }
catch (err) { console.log(JSON.stringify({ code: err.code, message: err.message })); }
`;

describe('EMFILE while loading', () => {
  it('is CONFIG_IO, which is retried, and names the directory', () => {
    const config = writeDaemonConfig(join(tempDir(), 'config'));
    const loader = join(REPO, 'dist/src/config/loader.js');

    const out = execFileSync(
      'sh',
      [
        '-c',
        'ulimit -n 1024 && exec "$0" --input-type=module -e "$1" "$2" "$3"',
        process.execPath,
        SCRIPT,
        loader,
        config,
      ],
      { encoding: 'utf8' },
    );

    expect(JSON.parse(out)).toEqual({ code: 'CONFIG_IO', message: `cannot read ${config}: EMFILE` });
    expect(ERROR_CODES.CONFIG_IO.retryable).toBe(true);
  });
});
