/**
 * A file's documents are parsed piece by piece (its `---` pieces) and reused piece by piece
 * when the file changes. Whatever the edits, a reload must give exactly what a fresh
 * loader gives for the same files: the same resources at the same lines, the same warnings,
 * the same errors.
 */
import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDesiredStateLoader, type DesiredStateLoader } from '../../../src/config/loader.js';
import { ReconcileError } from '../../../src/errors.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';

const DNS = (name: string, id: number): string =>
  `apiVersion: edgesync/v1\nkind: DnsZone\nmetadata: { name: ${name} }\nspec: { id: ${id}, dnssec: true }\n`;

/** Documents of every sort a file may hold: valid, warned, invalid, broken YAML, empty, with a dependency. */
const PIECES: readonly string[] = [
  DNS('zone-a', 1),
  DNS('zone-b', 2),
  `# a comment before the document\n${DNS('zone-c', 3)}`,
  `${DNS('zone-d', 4)}...\n# after the end marker\n`,
  'apiVersion: edgesync/v1\nkind: ContainerApp\nmetadata: { name: web }\nspec:\n  appId: abc\n  regionSettings:\n    nodeSelectors: { disk: ssd }\n',
  'apiVersion: edgesync/v1\nkind: DnsZone\nmetadata: { name: bad-spec }\nspec: { id: 5, dnssec: maybe }\n',
  'apiVersion: edgesync/v1\nkind: DnsZone\nmetadata: { name: broken }\nspec: [1,\n',
  '# only a comment\n',
  'apiVersion: edgesync/v1\nkind: AccessList\nmetadata: { name: office }\nspec: { shieldZoneId: 42, id: 9001, entriesFile: office.txt }\n',
  'apiVersion: edgesync/v1\nkind: DnsZone\nmetadata: { name: Not_A_Name }\nspec: { id: 6, dnssec: false }\n',
];

/** What a load says: the resources and warnings, or every issue of the error. */
async function outcome(loader: DesiredStateLoader, dir: string): Promise<unknown> {
  try {
    const { state } = await loader.load(dir);
    return {
      resources: state.resources.map((r) => ({
        subject: r.subject,
        source: r.source,
        digest: r.digest,
        spec: r.spec,
      })),
      warnings: state.warnings,
    };
  } catch (err) {
    if (err instanceof ReconcileError) return { issues: err.details?.issues };
    throw err;
  }
}

/** A small deterministic PRNG, so a failure names a sequence that can be replayed. */
function prng(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state % n;
  };
}

describe('parsing a file piece by piece', () => {
  it('after any sequence of edits, a reload gives what a fresh load of the same files gives', async () => {
    const dir = writeTree(tempDir(), { 'office.txt': '203.0.113.1\n' });
    const file = join(dir, 'all.yaml');
    const random = prng(7);
    // Distinct names per position would make the documents unique; repeats are fine too: a
    // duplicate name is one more error both loads must agree on.
    const pieces = [PIECES[0], PIECES[4], PIECES[1], PIECES[3]] as string[];
    const loader = createDesiredStateLoader();
    for (let step = 0; step < 60; step += 1) {
      const at = random(pieces.length + 1);
      const piece = PIECES[random(PIECES.length)] as string;
      const operation = random(3);
      if (operation === 0 || pieces.length < 2) pieces.splice(at, 0, piece);
      else if (operation === 1) pieces.splice(Math.min(at, pieces.length - 1), 1);
      else pieces[Math.min(at, pieces.length - 1)] = piece;
      if (random(4) === 0) writeFileSync(join(dir, 'office.txt'), `203.0.113.${step}\n`);
      writeFileSync(file, pieces.join('---\n'));
      // A distinct mtime for each version, so the loader never takes it for the last one.
      utimesSync(file, step + 1, step + 1);

      const incremental = await outcome(loader, dir);
      const fresh = await outcome(createDesiredStateLoader(), dir);

      expect(incremental, `step ${step}: ${JSON.stringify(pieces.map((p) => PIECES.indexOf(p)))}`).toEqual(
        fresh,
      );
    }
  });

  it('a file of thousands of documents is reloaded piece by piece, its later documents moved', async () => {
    const documents = Array.from({ length: 3_000 }, (_, i) => DNS(`zone-${i}`, i + 1));
    const dir = writeTree(tempDir(), { 'zones.yaml': documents.join('---\n') });
    const loader = createDesiredStateLoader();
    const first = await loader.load(dir);
    documents[1_500] = DNS('zone-1500', 99_999);
    writeFileSync(join(dir, 'zones.yaml'), `# one more line\n${documents.join('---\n')}`);

    const second = await loader.load(dir);

    expect(first.state.resources).toHaveLength(3_000);
    expect(first.state.resources[2_999]?.source).toEqual({ file: 'zones.yaml', line: 2_999 * 5 + 1, col: 1 });
    expect(second.changes).toEqual({ added: [], changed: ['DnsZone/zone-1500'], removed: [] });
    expect(second.state.resources[2_999]?.source.line).toBe(2_999 * 5 + 2);
    expect(await outcome(loader, dir)).toEqual(await outcome(createDesiredStateLoader(), dir));
  });
});
