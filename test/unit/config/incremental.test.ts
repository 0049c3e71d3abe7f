import { renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDesiredStateLoader } from '../../../src/config/loader.js';
import { ReconcileError } from '../../../src/errors.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';

const DNS = (name: string, id: number, dnssec = true): string =>
  `apiVersion: edgesync/v1\nkind: DnsZone\nmetadata: { name: ${name} }\nspec: { id: ${id}, dnssec: ${dnssec} }\n`;
const LIST =
  'apiVersion: edgesync/v1\nkind: AccessList\nmetadata: { name: office }\nspec: { shieldZoneId: 42, id: 9001, entriesFile: office.txt }\n';

function repo(): string {
  return writeTree(tempDir(), {
    'a.yaml': `${DNS('a1', 1)}---\n${DNS('a2', 2)}`,
    'b.yaml': DNS('b1', 3),
    'c/lists.yaml': LIST,
    'c/office.txt': '203.0.113.1\n',
  });
}

describe('the incremental loader (daemon)', () => {
  it('first load parses every file and reports every subject as added', async () => {
    const loader = createDesiredStateLoader();

    const result = await loader.load(repo());

    expect(result.stats).toEqual({ files: 3, parsed: 3, reused: 0 });
    expect(result.changes).toEqual({
      added: ['AccessList/office', 'DnsZone/a1', 'DnsZone/a2', 'DnsZone/b1'],
      changed: [],
      removed: [],
    });
  });

  it('an unchanged directory parses nothing and reports no change', async () => {
    const dir = repo();
    const loader = createDesiredStateLoader();
    const first = await loader.load(dir);

    const second = await loader.load(dir);

    expect(second.stats).toEqual({ files: 3, parsed: 0, reused: 3 });
    expect(second.changes).toEqual({ added: [], changed: [], removed: [] });
    expect(second.state.digest).toBe(first.state.digest);
    expect(second.state.resources[0]).toBe(first.state.resources[0]);
  });

  it('one file changed: only that file is parsed again, and only its changed subjects are reported', async () => {
    const dir = repo();
    const loader = createDesiredStateLoader();
    const first = await loader.load(dir);
    writeFileSync(join(dir, 'a.yaml'), `${DNS('a1', 1, false)}---\n${DNS('a2', 2)}---\n${DNS('a3', 4)}`);

    const second = await loader.load(dir);

    expect(second.stats).toEqual({ files: 3, parsed: 1, reused: 2 });
    expect(second.changes).toEqual({ added: ['DnsZone/a3'], changed: ['DnsZone/a1'], removed: [] });
    expect(second.state.digest).not.toBe(first.state.digest);
  });

  it('a removed file reports its subjects as removed', async () => {
    const dir = repo();
    const loader = createDesiredStateLoader();
    await loader.load(dir);
    unlinkSync(join(dir, 'a.yaml'));

    const second = await loader.load(dir);

    expect(second.stats).toEqual({ files: 2, parsed: 0, reused: 2 });
    expect(second.changes).toEqual({ added: [], changed: [], removed: ['DnsZone/a1', 'DnsZone/a2'] });
  });

  it('a resource moved to another file is neither added nor removed', async () => {
    const dir = repo();
    const loader = createDesiredStateLoader();
    await loader.load(dir);
    writeFileSync(join(dir, 'a.yaml'), DNS('a1', 1));
    writeFileSync(join(dir, 'b.yaml'), `${DNS('b1', 3)}---\n${DNS('a2', 2)}`);

    const second = await loader.load(dir);

    expect(second.stats.parsed).toBe(2);
    expect(second.changes).toEqual({ added: [], changed: [], removed: [] });
  });

  it('an entriesFile edit re-parses the YAML file that reads it', async () => {
    const dir = repo();
    const loader = createDesiredStateLoader();
    await loader.load(dir);
    writeFileSync(join(dir, 'c/office.txt'), '203.0.113.1\n203.0.113.2\n');

    const second = await loader.load(dir);

    expect(second.stats).toEqual({ files: 3, parsed: 1, reused: 2 });
    expect(second.changes).toEqual({ added: [], changed: ['AccessList/office'], removed: [] });
  });

  it('a broken reload throws, keeps what parsed, and the fix is measured against the last good load', async () => {
    const dir = repo();
    const loader = createDesiredStateLoader();
    await loader.load(dir);
    writeFileSync(join(dir, 'b.yaml'), DNS('b1', 'x' as unknown as number));

    const failed = await loader.load(dir).catch((err: unknown) => err);
    writeFileSync(join(dir, 'b.yaml'), DNS('b1', 5));
    const fixed = await loader.load(dir);

    expect(failed).toBeInstanceOf(ReconcileError);
    expect((failed as ReconcileError).message).toBe(`1 problem in ${dir}`);
    expect(fixed.stats).toEqual({ files: 3, parsed: 1, reused: 2 });
    expect(fixed.changes).toEqual({ added: [], changed: ['DnsZone/b1'], removed: [] });
  });

  it('sees a same-size rewrite made within the same file-time tick as the previous load', async () => {
    const dir = repo();
    const loader = createDesiredStateLoader();
    await loader.load(dir);
    writeFileSync(join(dir, 'b.yaml'), DNS('b1', 7));
    await loader.load(dir);
    // Same size, written at once: size and (coarse) modification time may both be unchanged.
    writeFileSync(join(dir, 'b.yaml'), DNS('b1', 8));

    const third = await loader.load(dir);

    expect(third.changes).toEqual({ added: [], changed: ['DnsZone/b1'], removed: [] });
    expect(third.state.resources.find((r) => r.subject === 'DnsZone/b1')?.spec).toEqual({
      id: 8,
      dnssec: true,
    });
  });

  it('inside a changed file, unchanged documents are reused and only moved to their new lines', async () => {
    const app =
      'apiVersion: edgesync/v1\nkind: ContainerApp\nmetadata: { name: web }\nspec:\n  appId: abc\n  regionSettings:\n    nodeSelectors: { disk: ssd }\n';
    const dir = writeTree(tempDir(), { 'all.yaml': `${DNS('a1', 1)}---\n${app}---\n${DNS('a2', 2)}` });
    const loader = createDesiredStateLoader();
    const first = await loader.load(dir);
    writeFileSync(
      join(dir, 'all.yaml'),
      `# moved down by one line\n${DNS('a1', 1)}---\n${app}---\n${DNS('a2', 3)}`,
    );

    const second = await loader.load(dir);

    expect(second.changes).toEqual({ added: [], changed: ['DnsZone/a2'], removed: [] });
    expect(second.state.resources.map((r) => [r.subject, r.source.line])).toEqual([
      ['DnsZone/a1', 2],
      ['ContainerApp/web', 7],
      ['DnsZone/a2', 15],
    ]);
    expect(first.state.warnings.map((w) => w.line)).toEqual([12]);
    expect(second.state.warnings.map((w) => w.line)).toEqual([13]);
    // Reused, not re-parsed: the same canonical spec object.
    expect(second.state.resources[1]?.spec).toBe(first.state.resources[1]?.spec);
    expect(second.state.resources[2]?.spec).not.toBe(first.state.resources[2]?.spec);
  });

  it('a reused document whose entriesFile changed is parsed again', async () => {
    const dir = writeTree(tempDir(), {
      'all.yaml': `${DNS('a1', 1)}---\n${LIST}`,
      'office.txt': '203.0.113.1\n',
    });
    const loader = createDesiredStateLoader();
    await loader.load(dir);
    writeFileSync(join(dir, 'all.yaml'), `${DNS('a1', 2)}---\n${LIST}`);
    writeFileSync(join(dir, 'office.txt'), '203.0.113.1\n203.0.113.2\n');

    const second = await loader.load(dir);

    expect(second.changes).toEqual({ added: [], changed: ['AccessList/office', 'DnsZone/a1'], removed: [] });
  });

  it('cross-document rules follow each reload: a duplicate appears, then goes', async () => {
    const dir = repo();
    const loader = createDesiredStateLoader();
    await loader.load(dir);
    writeFileSync(join(dir, 'b.yaml'), `${DNS('b1', 3)}---\n${DNS('a1', 1)}`);

    const failed = await loader.load(dir).catch((err: unknown) => err);
    writeFileSync(join(dir, 'a.yaml'), DNS('a2', 2));
    const fixed = await loader.load(dir);

    expect((failed as ReconcileError).details?.issues).toEqual([
      {
        file: 'b.yaml',
        line: 8,
        col: 19,
        path: 'metadata.name',
        message: 'duplicate name: DnsZone/a1 is already declared at a.yaml:3:19',
        severity: 'error',
      },
      {
        file: 'b.yaml',
        line: 9,
        col: 13,
        path: 'spec.id',
        message: 'targets the same DNS zone (id 1) as DnsZone/a1 at a.yaml:4:13',
        severity: 'error',
      },
    ]);
    expect(fixed.stats.parsed).toBe(1);
    expect(fixed.changes).toEqual({ added: [], changed: [], removed: [] });
  });

  it('a git-sync style swap of the config symlink reuses the parse of files whose bytes are the same', async () => {
    const parent = tempDir();
    const rev1 = writeTree(join(parent, 'rev1'), { 'a.yaml': DNS('a1', 1), 'b.yaml': DNS('b1', 3) });
    const rev2 = writeTree(join(parent, 'rev2'), { 'a.yaml': DNS('a1', 1), 'b.yaml': DNS('b1', 3, false) });
    symlinkSync(rev1, join(parent, 'current'));
    const loader = createDesiredStateLoader();
    await loader.load(join(parent, 'current'));
    symlinkSync(rev2, join(parent, 'next'));
    renameSync(join(parent, 'next'), join(parent, 'current'));

    const second = await loader.load(join(parent, 'current'));

    expect(second.state.configDir).toBe(rev2);
    expect(second.stats).toEqual({ files: 2, parsed: 1, reused: 1 });
    expect(second.changes).toEqual({ added: [], changed: ['DnsZone/b1'], removed: [] });
    rmSync(rev1, { recursive: true });
  });
});
