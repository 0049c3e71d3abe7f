import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { driftCause, MAX_RUN_RECORDS, openStateStore } from '../../../src/engine/state.js';
import { fileBackend, STATE_FILE } from '../../../src/state/file-backend.js';
import { tempDir } from '../../helpers/temp-dir.js';

const run = (i: number) => ({
  revision: `r${i}`,
  trigger: 'test',
  startedAt: new Date(0).toISOString(),
  durationMs: i,
  result: 'success' as const,
  counts: { applied: i },
});

describe('state store', () => {
  it('round-trips records, hints and runs, keeping the last 20 runs and no temporary file', async () => {
    const dir = join(tempDir(), 'state');
    const store = await openStateStore(fileBackend(dir));
    store.markInSync('DnsZone/a', 'digest-a', 'rev1', { nodeSelectors: { disk: 'ssd' } });
    store.setHint('AccessList/l', { checksum: 'abc' });
    for (let i = 0; i < 25; i += 1) store.addRun(run(i));
    await store.save();

    const reopened = await openStateStore(fileBackend(dir));

    expect(reopened.resource('DnsZone/a')).toMatchObject({
      digest: 'digest-a',
      revision: 'rev1',
      remember: { nodeSelectors: { disk: 'ssd' } },
    });
    expect(reopened.hint('AccessList/l')).toEqual({ checksum: 'abc' });
    expect(reopened.runs().map((r) => r.revision)).toEqual(
      Array.from({ length: MAX_RUN_RECORDS }, (_, i) => `r${i + 5}`),
    );
    expect(readdirSync(dir)).toEqual([STATE_FILE]);
  });

  it('writes the document in pieces that make the JSON of the whole, with records of many subjects and none', async () => {
    const dir = join(tempDir(), 'state');
    const store = await openStateStore(fileBackend(dir));
    // More subjects than one piece holds, names that need escaping, and an empty inventory.
    for (let i = 0; i < 1000; i += 1) store.markInSync(`WafCustomRule/r-${i}"\\`, `digest-${i}`, 'rev1');
    store.setHint('AccessList/l', { checksum: 'abc' });
    store.setRollout('ContainerApp/a', {
      status: 'succeeded',
      health: 'active',
      at: new Date(0).toISOString(),
      revision: 'rev1',
      digest: 'd',
      objectId: 7,
    });
    store.addRun(run(1));
    await store.save();

    const text = readFileSync(join(dir, STATE_FILE), 'utf8');
    const parsed = JSON.parse(text) as { resources: Record<string, unknown>; inventory: unknown };
    expect(text).toBe(`${JSON.stringify(parsed)}\n`);
    expect(Object.keys(parsed.resources)).toHaveLength(1000);
    expect(parsed.resources['WafCustomRule/r-999"\\']).toMatchObject({
      digest: 'digest-999',
      revision: 'rev1',
    });
    expect(parsed.inventory).toEqual({});
    const reopened = await openStateStore(fileBackend(dir));
    expect(reopened.resource('WafCustomRule/r-0"\\')?.digest).toBe('digest-0');
    expect(reopened.rollout('ContainerApp/a')?.objectId).toBe(7);
  });

  it('writes the records as they were when the save started, whatever changes while it is written', async () => {
    const dir = join(tempDir(), 'state');
    const backend = fileBackend(dir);
    let during: (() => void) | undefined;
    // The file store, with a change made after the first chunk of the document is taken.
    const store = await openStateStore({
      ...backend,
      writeDocument: (text, lease) =>
        backend.writeDocument(
          (function* chunks() {
            let first = true;
            for (const chunk of text) {
              yield chunk;
              if (first) during?.();
              first = false;
            }
          })(),
          lease,
        ),
    });
    for (let i = 0; i < 1000; i += 1) store.markInSync(`WafCustomRule/r-${i}`, `digest-${i}`, 'rev1');
    store.setInventory('WafCustomRule/r-0', { kind: 'WafCustomRule', shieldZoneId: 1, id: 7, key: 'r-0' });
    during = () => {
      store.setInventory('WafCustomRule/r-0', undefined);
      store.setHint('AccessList/late', { checksum: 'late' });
      store.setRollout('ContainerApp/late', {
        status: 'succeeded',
        health: 'active',
        at: new Date(0).toISOString(),
        revision: 'rev2',
        digest: 'd',
        objectId: 8,
      });
    };
    await store.save();

    const written = JSON.parse(readFileSync(join(dir, STATE_FILE), 'utf8')) as Record<
      string,
      Record<string, unknown>
    >;
    expect(Object.keys(written.resources ?? {})).toHaveLength(1000);
    expect(written.inventory).toEqual({
      'WafCustomRule/r-0': { kind: 'WafCustomRule', shieldZoneId: 1, id: 7, key: 'r-0' },
    });
    expect(written.hints).toEqual({});
    expect(written.rollouts).toBeUndefined();
    during = undefined;
    await store.save();
    const next = await openStateStore(fileBackend(dir));
    expect(Object.fromEntries(next.inventory())).toEqual({});
    expect(next.hint('AccessList/late')).toEqual({ checksum: 'late' });
    expect(next.rollout('ContainerApp/late')?.objectId).toBe(8);
  });

  it('shows a deferred run while it lives but never writes it: an older build must still read the file', async () => {
    const dir = join(tempDir(), 'state');
    const store = await openStateStore(fileBackend(dir));
    store.addRun(run(1));
    store.addRun({ ...run(2), result: 'deferred', counts: { toUpdate: 1, destructive: 1 } });
    await store.save();

    expect(store.runs().map((r) => r.result)).toEqual(['success', 'deferred']);
    const written = JSON.parse(readFileSync(join(dir, STATE_FILE), 'utf8')) as { runs: { result: string }[] };
    // The results every earlier build knows.
    expect(written.runs.map((r) => r.result)).toEqual(['success']);
    expect((await openStateStore(fileBackend(dir))).runs().map((r) => r.revision)).toEqual(['r1']);
  });

  it('sets a corrupt file aside with a warning and starts empty', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, STATE_FILE), '{"version":1,"resources":{"x": tr');

    const store = await openStateStore(fileBackend(dir));

    expect(store.warning).toMatch(
      /^the state document in .* was unreadable and was moved to .*state\.json\.corrupt-\d+$/,
    );
    expect(store.resource('x')).toBeUndefined();
    expect(readdirSync(dir).filter((f) => f.startsWith(`${STATE_FILE}.corrupt-`))).toHaveLength(1);
  });

  it('read-only (plan) neither creates, moves nor writes anything', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, STATE_FILE), 'not json');
    const missing = join(dir, 'never-created');

    const corrupt = await openStateStore(fileBackend(dir), { readOnly: true });
    const absent = await openStateStore(fileBackend(missing), { readOnly: true });
    corrupt.markInSync('A/a', 'd', 'r');
    await corrupt.save();
    await absent.save();

    expect(readFileSync(join(dir, STATE_FILE), 'utf8')).toBe('not json');
    expect(readdirSync(dir)).toEqual([STATE_FILE]);
    expect(corrupt.warning).toMatch(/unreadable: drift causes are unknown$/);
  });

  it('labels drift by comparing digests', () => {
    expect(driftCause(undefined, 'd1')).toBe('unknown');
    expect(driftCause({ digest: 'd1', at: '', revision: '' }, 'd1')).toBe('out-of-band');
    expect(driftCause({ digest: 'd0', at: '', revision: '' }, 'd1')).toBe('desired-changed');
  });

  it('reload reads what another writer saved since (a forget), keeping the deferred runs only this process has', async () => {
    const dir = tempDir();
    const entry = { kind: 'WafCustomRule' as const, shieldZoneId: 42, id: 7, key: 'Seven' };
    const daemon = await openStateStore(fileBackend(dir));
    daemon.setInventory('WafCustomRule/seven', entry);
    daemon.setInventory('WafCustomRule/eight', { ...entry, id: 8, key: 'Eight' });
    await daemon.save();
    daemon.addRun({ ...run(1), startedAt: new Date(5).toISOString(), result: 'deferred' });
    const forget = await openStateStore(fileBackend(dir));
    forget.setInventory('WafCustomRule/seven', undefined);
    await forget.save();

    await daemon.reload();

    expect([...daemon.inventory().keys()]).toEqual(['WafCustomRule/eight']);
    expect(daemon.runs().map((r) => r.result)).toEqual(['deferred']);
  });
});
