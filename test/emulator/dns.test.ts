import { describe, expect } from 'vitest';
import { call, test } from '../helpers/emulator.js';

describe('DNS zones and DNSSEC', () => {
  test('GET /dnszone lists zones by id in pages of perPage (5-1000), with a search filter', async ({
    emu,
  }) => {
    const all = await call(emu, 'GET', '/dnszone');
    const first = await call(emu, 'GET', '/dnszone?page=1&perPage=5');
    const search = await call(emu, 'GET', '/dnszone?search=.ORG');
    const tooSmall = await call(emu, 'GET', '/dnszone?perPage=4');
    const unauthorized = await call(emu, 'GET', '/dnszone', { key: 'wrong' });

    expect(all.status).toBe(200);
    expect(all.json).toMatchObject({ CurrentPage: 1, TotalItems: 2, HasMoreItems: false });
    expect(
      (all.json as { Items: { Id: number; DnsSecEnabled: boolean }[] }).Items.map((z) => [
        z.Id,
        z.DnsSecEnabled,
      ]),
    ).toEqual([
      [12345, true],
      [12346, false],
    ]);
    expect(first.json).toMatchObject({ CurrentPage: 1, TotalItems: 2, HasMoreItems: false });
    expect((search.json as { Items: { Domain: string }[] }).Items.map((z) => z.Domain)).toEqual([
      'example.org',
    ]);
    expect(tooSmall.status).toBe(400);
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.text).toBe('');
    expect(emu.journal.entries().map((e) => e.operation)).toEqual(Array(5).fill('listDnsZones'));
  });

  test('GET /dnszone crosses pages: HasMoreItems until the last page; perPage is 5-1000', async ({ emu }) => {
    // Four more zones than the seed's two: six in all, so perPage=5 makes a second page of one.
    for (const id of [20001, 20002, 20003, 20004]) {
      emu.state.addDnsZone({ id, domain: `zone-${id}.example`, dnsSecEnabled: false });
    }
    const first = await call(emu, 'GET', '/dnszone?page=1&perPage=5');
    const second = await call(emu, 'GET', '/dnszone?page=2&perPage=5');
    const pastEnd = await call(emu, 'GET', '/dnszone?page=3&perPage=5');
    const largest = await call(emu, 'GET', '/dnszone?perPage=1000');
    const tooLarge = await call(emu, 'GET', '/dnszone?perPage=1001');
    const ids = (json: unknown) => (json as { Items: { Id: number }[] }).Items.map((z) => z.Id);

    expect(first.json).toMatchObject({ CurrentPage: 1, TotalItems: 6, HasMoreItems: true });
    expect(ids(first.json)).toEqual([12345, 12346, 20001, 20002, 20003]);
    expect(second.json).toMatchObject({ CurrentPage: 2, TotalItems: 6, HasMoreItems: false });
    expect(ids(second.json)).toEqual([20004]);
    expect(pastEnd.json).toMatchObject({ CurrentPage: 3, TotalItems: 6, HasMoreItems: false, Items: [] });
    expect(largest.status).toBe(200);
    expect(ids(largest.json)).toHaveLength(6);
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.json).toMatchObject({ ErrorKey: 'validation.invalid' });
  });

  test('GET /dnszone/{id} answers the PascalCase zone model', async ({ emu }) => {
    const result = await call(emu, 'GET', '/dnszone/12345');

    expect(result.status).toBe(200);
    expect(result.json).toMatchObject({ Id: 12345, Domain: 'example.com', DnsSecEnabled: true, Records: [] });
  });

  test('E5 DELETE disables DNSSEC and answers the status object with Enabled false', async ({ emu }) => {
    const result = await call(emu, 'DELETE', '/dnszone/12345/dnssec');
    const zone = await call(emu, 'GET', '/dnszone/12345');

    expect(result.status).toBe(200);
    expect(result.json).toMatchObject({ Enabled: false, DsConfigured: false });
    expect((zone.json as { DnsSecEnabled: boolean }).DnsSecEnabled).toBe(false);
  });

  test('E5 on an already disabled zone is 200 with Enabled false', async ({ emu }) => {
    const result = await call(emu, 'DELETE', '/dnszone/12346/dnssec');

    expect(result.status).toBe(200);
    expect((result.json as { Enabled: boolean }).Enabled).toBe(false);
  });

  test('E5 and GET on an unknown zone are 404 with an empty body', async ({ emu }) => {
    const deleted = await call(emu, 'DELETE', '/dnszone/1/dnssec');
    const read = await call(emu, 'GET', '/dnszone/1');

    expect(deleted.status).toBe(404);
    expect(deleted.text).toBe('');
    expect(read.status).toBe(404);
    expect(read.text).toBe('');
  });

  test('POST enables DNSSEC with stable DS data, and repeating it never rotates the key', async ({ emu }) => {
    const first = await call(emu, 'POST', '/dnszone/12346/dnssec');
    const again = await call(emu, 'POST', '/dnszone/12346/dnssec');
    await call(emu, 'DELETE', '/dnszone/12346/dnssec');
    const reEnabled = await call(emu, 'POST', '/dnszone/12346/dnssec');

    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({
      Enabled: true,
      Algorithm: 13,
      Flags: 257,
      DigestType: 'SHA256 (2)',
      Digest: expect.stringMatching(/^[0-9A-F]{64}$/),
      DsRecord: expect.stringMatching(/^example\.org\. 3600 IN DS \d+ 13 2 [0-9A-F]{64}$/),
      PublicKey: expect.any(String),
      KeyTag: expect.any(Number),
    });
    expect(again.json).toEqual(first.json);
    expect(reEnabled.json).toEqual(first.json);
    expect(emu.state.dnsZone(12346)?.DnsSecEnabled).toBe(true);
  });

  test('a non-numeric zone id is a core-style 400', async ({ emu }) => {
    const result = await call(emu, 'GET', '/dnszone/abc');

    expect(result.status).toBe(400);
    expect(result.json).toMatchObject({ ErrorKey: 'validation.invalid', Field: 'id' });
  });
});
