/**
 * Issue 23 item 5 in the daemon: a new document for a live object that an unchanged document
 * already holds. The file-change run covers only changed resources, so it must bring the
 * documents that could share the object along, or it would write the object once before a
 * full run refused both. The emulator's journal shows that nothing is written for either.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { edit, until, useDaemonFixture, writeDaemonConfig } from '../helpers/daemon.js';

const fx = useDaemonFixture();
const DOC = 'apiVersion: edgesync/v1\n';

describe('two documents for one managed list, the second added while the daemon runs', () => {
  it('the file-change run refuses both and sends nothing for the list', async () => {
    const config = writeDaemonConfig(join(fx.root, 'config'));
    // TEST_SEED's managed list 5 "VPN Providers" in zone 42, disabled: this document enables it.
    edit(
      config,
      'shield/vpn.yaml',
      `${DOC}kind: ManagedAccessList\nmetadata: { name: vpn-by-id }\nspec: { shieldZoneId: 42, listId: 5, enabled: true }\n`,
    );
    const d = await fx.start(config);
    await until(() => fx.emu.journal.entries().some((entry) => entry.path.endsWith('/api-guardian')), 'E9');
    expect(fx.emu.journal.writes().map((w) => `${w.method} ${w.path}`)).toContain(
      'PATCH /shield/shield-zone/42/access-lists/configurations/10005',
    );
    fx.emu.journal.clear();

    edit(
      config,
      'shield/vpn-by-name.yaml',
      `${DOC}kind: ManagedAccessList\nmetadata: { name: vpn-by-name }\nspec: { shieldZoneId: 42, name: VPN Providers, enabled: false }\n`,
    );
    const finished = await d.waitForEvent('reconcile.finished', () => true, 2);

    expect(d.events('reconcile.started')[1]).toMatchObject({ trigger: 'file-change', resources: 2 });
    expect(finished.counts).toMatchObject({ applied: 0, failed: 2 });
    expect(fx.emu.journal.writes()).toEqual([]);
    expect(fx.emu.state.accessListConfig(42, 10005)?.isEnabled).toBe(true);
  });
});
