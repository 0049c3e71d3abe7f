/**
 * The secret reader on its own: what a file's value is (one trailing line break removed), and
 * the refusals it makes itself even though the schema already refuses the same input — a
 * config loaded some other way must still never read the daemon's own environment or a file
 * outside the secrets directory.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { secretFileValue } from '../../../src/domain/secret-sources.js';
import { createSecretReader } from '../../../src/secrets/reader.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';

describe('secret file values', () => {
  it.each([
    ['value', 'value'],
    ['value\n', 'value'],
    ['value\r\n', 'value'],
    ['value\n\n', 'value\n'],
    ['value \n', 'value '],
    ['line one\nline two\n', 'line one\nline two'],
  ])('%j is %j', (text, value) => {
    expect(secretFileValue(text)).toBe(value);
  });
});

describe('createSecretReader', () => {
  it('reads only EDGESYNC_SECRET_* variables of its environment', async () => {
    const reader = createSecretReader({
      env: { EDGESYNC_ACCESS_KEY: 'the-key', EDGESYNC_SECRET_DB: 'db-value', HOME: '/root' },
    });

    expect(await reader.read({ env: 'EDGESYNC_SECRET_DB' })).toEqual({ value: 'db-value' });
    expect(await reader.read({ env: 'EDGESYNC_ACCESS_KEY' })).toEqual({
      error:
        '"EDGESYNC_ACCESS_KEY" cannot be read: only variables named EDGESYNC_SECRET_<NAME> (letters, digits, _) may be read, not "EDGESYNC_ACCESS_KEY"',
    });
    expect(await reader.read({ env: 'HOME' })).toMatchObject({
      error: expect.stringContaining('cannot be read'),
    });
  });

  it('reads files inside the directory, and nothing that could leave it', async () => {
    const dir = writeTree(tempDir(), {
      'db/url': 'postgres://u:p@db/app\n',
      'bad.bin': Buffer.from([0xff, 0xfe]),
    });
    const outside = writeTree(tempDir(), { x: 'outside\n' });
    symlinkSync(outside, join(dir, 'link'));
    const reader = createSecretReader({ env: {}, secretsDir: dir });

    expect(await reader.read({ file: 'db/url' })).toEqual({ value: 'postgres://u:p@db/app' });
    expect(await reader.read({ file: '../x' })).toEqual({
      error:
        'secret file "../x" must stay inside the secrets directory: no empty, ".", ".." or hidden segments ("../x")',
    });
    expect(await reader.read({ file: join(outside, 'x') })).toMatchObject({
      error: expect.stringContaining('not absolute'),
    });
    expect(await reader.read({ file: 'link/x' })).toEqual({
      error: `secret file "link/x" resolves outside the secrets directory ${dir}`,
    });
    expect(await reader.read({ file: 'db' })).toEqual({ error: 'secret file "db" is not a regular file' });
    expect(await reader.read({ file: 'bad.bin' })).toEqual({
      error: 'secret file "bad.bin" is not UTF-8 text',
    });
  });

  it('takes a file of exactly 64 KiB and refuses one byte more', async () => {
    const dir = writeTree(tempDir(), { fits: 'a'.repeat(64 * 1024), over: 'a'.repeat(64 * 1024 + 1) });
    const reader = createSecretReader({ env: {}, secretsDir: dir });

    expect(await reader.read({ file: 'fits' })).toEqual({ value: 'a'.repeat(64 * 1024) });
    expect(await reader.read({ file: 'over' })).toEqual({
      error: 'secret file "over" is larger than 64 KiB',
    });
  });

  it('refuses a FIFO at once instead of waiting for a writer', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const reader = createSecretReader({ env: {}, secretsDir: dir });

    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<'hung'>((done) => {
      timer = setTimeout(() => done('hung'), 2000);
    });
    try {
      expect(await Promise.race([reader.read({ file: 'pipe' }), hung])).toEqual({
        error: 'secret file "pipe" is not a regular file',
      });
    } finally {
      clearTimeout(timer);
      // Releases an open() still blocked on the FIFO, so a failure does not hang the run.
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // No reader waiting: nothing to release.
      }
    }
  });
});
