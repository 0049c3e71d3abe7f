/**
 * The benchmark's record decision (bench/results-file.ts): a quick run leaves the tracked
 * bench/results.json alone, a run of record merges into it by section. The test lives beside
 * the bench (test/ never imports bench/: test/unit/bench-apart.test.ts), so the two go
 * together.
 */
import { mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { saveResults } from './results-file.js';

const RECORDED = {
  configLoad: { measuredAt: '2026-12-01T00:00:00.000Z', machine: 'old', loadMs: 900 },
  scale: { measuredAt: '2026-12-01T00:00:00.000Z', machine: 'old', sizes: [1000] },
};

/** A results file as a clone has it, dated in the past so that a rewrite would show. */
function resultsFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'edgesync-bench-')), 'results.json');
  writeFileSync(path, `${JSON.stringify(RECORDED, null, 2)}\n`);
  utimesSync(path, new Date('2026-01-01'), new Date('2026-01-01'));
  return path;
}

describe('bench/results.json', () => {
  it('a run without --record leaves the file as it was: same bytes, same mtime', () => {
    const path = resultsFile();
    const before = { text: readFileSync(path, 'utf8'), mtimeMs: statSync(path).mtimeMs };

    const wrote = saveResults(
      path,
      { configLoad: { measuredAt: 'now', machine: 'this', loadMs: 1 } },
      { record: false },
    );

    expect(wrote).toBe(false);
    expect({ text: readFileSync(path, 'utf8'), mtimeMs: statSync(path).mtimeMs }).toEqual(before);
  });

  it('a run of record replaces the sections it ran and keeps the others', () => {
    const path = resultsFile();

    const wrote = saveResults(
      path,
      { configLoad: { measuredAt: 'now', machine: 'this', loadMs: 1 } },
      { record: true },
    );

    expect(wrote).toBe(true);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      configLoad: { measuredAt: 'now', machine: 'this', loadMs: 1 },
      scale: RECORDED.scale,
    });
    expect(statSync(path).mtimeMs).toBeGreaterThan(new Date('2026-01-01').getTime());
  });

  it('a run of record starts the file when there is none', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'edgesync-bench-')), 'results.json');

    saveResults(path, { scale: RECORDED.scale }, { record: true });

    expect(readFileSync(path, 'utf8')).toBe(`${JSON.stringify({ scale: RECORDED.scale }, null, 2)}\n`);
  });
});
