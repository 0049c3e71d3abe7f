/**
 * Two documents for one live object (issue 23 item 5) that only the live listing can tell
 * apart: a ManagedAccessList by `listId` and another by `name` of the same list. Both are
 * errors naming each other, at plan and apply, and the emulator's journal shows that nothing
 * was sent for either; the other resources still apply.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../src/emulator/index.js';
import { cli } from '../../helpers/cli.js';
import { cliSession } from '../../helpers/cli-session.js';

const DOC = 'apiVersion: edgesync/v1\n';

// TEST_SEED's zone 42 has the managed list 5, "VPN Providers", configuration 10005.
const CONFIG = {
  'by-id.yaml': `${DOC}kind: ManagedAccessList\nmetadata: { name: vpn-by-id }\nspec: { shieldZoneId: 42, listId: 5, enabled: true }\n`,
  'by-name.yaml': `${DOC}kind: ManagedAccessList\nmetadata: { name: vpn-by-name }\nspec: { shieldZoneId: 42, name: vpn providers, enabled: false, action: Block }\n`,
  'dns.yaml': `${DOC}kind: DnsZone\nmetadata: { name: example-com }\nspec: { id: 12345, dnssec: false }\n`,
};

const conflict = (other: string) =>
  `reaches the same live object (shield-zone:42/list-configuration:10005) as ${other}: two documents for one object would undo each other on every run, so neither is applied; keep one`;

describe('two documents for one live object, told apart only by the listing', () => {
  let emu: Emulator;
  let env: Record<string, string>;
  beforeEach(async () => {
    ({ emu, env } = await cliSession(CONFIG));
  });
  afterEach(async () => {
    await emu.close();
  });

  it('plan marks both as errors naming each other', async () => {
    const run = await cli(['plan', '--json'], { env });

    const plan = JSON.parse(run.stdout);
    const bySubject = new Map(plan.changes.map((c: { subject: string }) => [c.subject, c]));
    expect(bySubject.get('ManagedAccessList/vpn-by-id')).toMatchObject({
      action: 'error',
      requests: [],
      error: {
        code: 'CONFIG_INVALID',
        message: conflict('ManagedAccessList/vpn-by-name (by-name.yaml:1:1)'),
      },
    });
    expect(bySubject.get('ManagedAccessList/vpn-by-name')).toMatchObject({
      action: 'error',
      requests: [],
      error: { code: 'CONFIG_INVALID', message: conflict('ManagedAccessList/vpn-by-id (by-id.yaml:1:1)') },
    });
    expect(emu.journal.writes()).toEqual([]);
  });

  it('apply sends nothing for either, applies the rest, and keeps refusing on the next run', async () => {
    const first = await cli(['apply'], { env });
    const second = await cli(['apply'], { env });

    expect(first.code).not.toBe(0);
    expect(second.code).not.toBe(0);
    // The DNS zone's change, once; not one E3 request for the list both documents reach.
    expect(emu.journal.writes().map((w) => `${w.method} ${w.path}`)).toEqual([
      'DELETE /dnszone/12345/dnssec',
    ]);
    expect(first.stderr + first.stdout).toContain(
      conflict('ManagedAccessList/vpn-by-name (by-name.yaml:1:1)'),
    );
  });
});
