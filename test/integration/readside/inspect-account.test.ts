/**
 * `edgesync inspect zones` and `inspect apps` against the emulator over real HTTP, in-process:
 * the ids a newcomer needs for the YAML (Shield Zones beside their pull zone's name and
 * hostnames, DNS zones, apps), the exact tables, `--json`, the requests sent (every listing
 * followed page by page), and a failure as one line with exit 1.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator, EmulatorSeed } from '../../../src/emulator/index.js';
import { cliAgainst } from '../../helpers/cli.js';
import { MINIMAL_TEMPLATE, TEST_SEED, withEmulator } from '../../helpers/emulator.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

/** The requests the emulator received, as `METHOD path?query`. */
function requests(e: Emulator): string[] {
  return e.journal.entries().map((entry) => {
    const query = new URLSearchParams(entry.query).toString();
    return `${entry.method} ${entry.path}${query === '' ? '' : `?${query}`}`;
  });
}

async function start(seed: EmulatorSeed = TEST_SEED): Promise<Emulator> {
  emu = await withEmulator(seed);
  return emu;
}

describe('inspect zones', () => {
  it('lists each Shield Zone with its pull zone, and the DNS zones, reading each listing once', async () => {
    const e = await start();

    const result = await cliAgainst(e, ['inspect', 'zones']);

    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(
      [
        'SHIELD ZONE  PULL ZONE  NAME          HOSTNAMES                         PLAN      WAF',
        '         42       1042  shop          shop.example.com, shop.b-cdn.net  Advanced  yes',
        '         43         43  (not listed)                                    Basic     yes',
        '',
        'DNS ZONE  DOMAIN       DNSSEC',
        '   12345  example.com  yes',
        '   12346  example.org  no',
        '',
        '2 Shield Zones (spec.shieldZoneId of rules, lists and ShieldZone documents), 2 DNS zones (spec.id of DnsZone documents).',
        '',
      ].join('\n'),
    );
    expect(result.code).toBe(0);
    expect(requests(e).sort()).toEqual([
      'GET /dnszone?page=1&perPage=1000',
      'GET /pullzone?page=1&perPage=1000',
      'GET /shield/shield-zones?page=1&perPage=100',
    ]);
  });

  it('follows the Shield Zone listing past its first page', async () => {
    const shieldZones = Array.from({ length: 150 }, (_, i) => ({ id: 1000 + i, pullZoneId: 5000 + i }));
    const e = await start({ shieldZones, pullZones: [{ id: 5149, name: 'last' }] });

    const result = await cliAgainst(e, ['inspect', 'zones', '--json']);

    const document = JSON.parse(result.stdout) as {
      shieldZones: Array<{ shieldZoneId: number; pullZone: { Name: string } | null }>;
    };
    expect(document.shieldZones.map((z) => z.shieldZoneId)).toEqual(shieldZones.map((z) => z.id));
    expect(document.shieldZones.at(-1)?.pullZone?.Name).toBe('last');
    expect(document.shieldZones[0]?.pullZone).toBeNull();
    expect(e.journal.count({ operation: 'listShieldZones' })).toBe(2);
  });

  it('--json puts each pull zone beside its Shield Zone, as the API sent both', async () => {
    const e = await start();

    const result = await cliAgainst(e, ['inspect', 'zones', '--json']);

    const document = JSON.parse(result.stdout);
    expect(document.shieldZones[0]).toMatchObject({
      shieldZoneId: 42,
      pullZoneId: 1042,
      planType: 1,
      customWafRulesLimit: 10,
      pullZone: {
        Id: 1042,
        Name: 'shop',
        Hostnames: [
          expect.objectContaining({ Value: 'shop.b-cdn.net', IsSystemHostname: true }),
          expect.objectContaining({ Value: 'shop.example.com', IsSystemHostname: false }),
        ],
      },
    });
    expect(document.shieldZones[1]).toMatchObject({ shieldZoneId: 43, pullZoneId: 43, pullZone: null });
    expect(document.dnsZones.map((z: { Id: number }) => z.Id)).toEqual([12345, 12346]);
  });

  it('a wrong key is one line on stderr naming the check, and exit 1', async () => {
    const e = await start();

    const result = await cliAgainst(e, ['inspect', 'zones'], { key: 'wrong-key' });

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^edgesync: API_AUTH: [^\n]*401[^\n]*; check the access key \(EDGESYNC_ACCESS_KEY or --access-key-file\)\n$/,
    );
  });
});

describe('inspect apps', () => {
  it('lists each app by id with its name and status', async () => {
    const e = await start({
      ...TEST_SEED,
      apps: [
        ...(TEST_SEED.apps ?? []),
        {
          id: 'app2',
          name: 'image resizer',
          status: 'failing',
          containerTemplates: [MINIMAL_TEMPLATE],
        },
      ],
    });

    const result = await cliAgainst(e, ['inspect', 'apps']);

    expect(result.stdout).toBe(
      [
        'APP ID  NAME           STATUS',
        'app1    storefront     active',
        'app2    image resizer  failing',
        '',
        '2 apps (spec.appId of ContainerApp documents, or find one by spec.name).',
        '',
      ].join('\n'),
    );
    expect(result.code).toBe(0);
    expect(requests(e)).toEqual(['GET /mc/apps?limit=1000']);
  });

  it('--json is the listing as the API sent it; an account without apps says so', async () => {
    const e = await start();
    const json = await cliAgainst(e, ['inspect', 'apps', '--json']);
    await e.close();
    const empty = await cliAgainst(await start({}), ['inspect', 'apps']);

    expect(JSON.parse(json.stdout)).toEqual([{ id: 'app1', name: 'storefront', status: 'active' }]);
    expect([empty.code, empty.stdout]).toEqual([0, 'No container apps.\n']);
  });
});
