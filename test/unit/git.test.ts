/**
 * The revision of a loaded config directory, on real repositories: a `git rev-parse HEAD`
 * started before the load answers only for the directory the load read. A git-sync swap of
 * the link in between must not label the new checkout with the old one's commit.
 */
import { realpathSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveRevision, startGitHead } from '../../src/git.js';
import { git } from '../helpers/git.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A repository with one commit; returns its real path and the commit's SHA. */
function repository(content: string): { dir: string; sha: string } {
  const dir = realpathSync(tempDir());
  git(dir, 'init', '--quiet', '-b', 'main');
  writeFileSync(join(dir, 'zone.yaml'), content);
  git(dir, 'add', '.');
  git(dir, 'commit', '--quiet', '-m', content);
  return { dir, sha: git(dir, 'rev-parse', 'HEAD') };
}

describe('resolveRevision', () => {
  it("takes the started rev-parse's answer for the directory it asked, without asking again", async () => {
    const repo = repository('a: 1\n');
    const pending = startGitHead(repo.dir);
    await pending.head;
    // A commit after that answer: asking git again would give its SHA instead.
    writeFileSync(join(repo.dir, 'zone.yaml'), 'a: 3\n');
    git(repo.dir, 'commit', '--quiet', '-am', 'later');

    expect(await resolveRevision(repo.dir, 'f'.repeat(64), pending)).toBe(repo.sha);
    expect(await resolveRevision(repo.dir, 'f'.repeat(64))).toBe(git(repo.dir, 'rev-parse', 'HEAD'));
    expect(git(repo.dir, 'rev-parse', 'HEAD')).not.toBe(repo.sha);
  });

  it('asks again when the link moved to another checkout before the load read it', async () => {
    const old = repository('a: 1\n');
    const fresh = repository('a: 2\n');
    const link = join(tempDir(), 'config');
    symlinkSync(old.dir, link);
    const pending = startGitHead(realpathSync(link));
    // git-sync publishes the next revision by swapping the link; the load then reads it.
    unlinkSync(link);
    symlinkSync(fresh.dir, link);

    const revision = await resolveRevision(realpathSync(link), 'f'.repeat(64), pending);

    expect(await pending.head).toBe(old.sha);
    expect(revision).toBe(fresh.sha);
  });

  it('falls back to the config digest outside a git work tree', async () => {
    const dir = realpathSync(tempDir());

    expect(await resolveRevision(dir, `abcdef012345${'0'.repeat(52)}`, startGitHead(dir))).toBe(
      'config:abcdef012345',
    );
  });
});
