/** Throwaway directories for tests that need files git cannot hold (symlinks, empty dirs, bad bytes). */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';

const created: string[] = [];

afterEach(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A new empty directory, removed after the current test. */
export function tempDir(prefix = 'edgesync-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/** Writes files (path relative to `dir` → text or bytes), creating folders; returns `dir`. */
export function writeTree(dir: string, files: Readonly<Record<string, string | Uint8Array>>): string {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}
