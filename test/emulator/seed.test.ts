import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSeedFile, parseSeed, SeedError, startEmulator } from '../../src/emulator/index.js';
import { call, TEST_KEY } from '../helpers/emulator.js';

const EXAMPLE = new URL('../../src/emulator/examples/seed.yaml', import.meta.url);

function seedError(text: string): SeedError {
  try {
    parseSeed(text, 'seed.yaml');
  } catch (err) {
    if (err instanceof SeedError) return err;
    throw err;
  }
  throw new Error('expected a SeedError');
}

describe('seed file', () => {
  it('loads the example seed and serves it', async () => {
    const seed = await loadSeedFile(EXAMPLE.pathname);
    const emu = await startEmulator({ accessKey: TEST_KEY, seed });
    try {
      const rule = await call(emu, 'GET', '/shield/waf/custom-rule/1234');
      const lists = await call(emu, 'GET', '/shield/shield-zone/42/access-lists');
      const bots = await call(emu, 'GET', '/shield/shield-zone/42/bot-categorization');

      expect(rule.json).toMatchObject({
        ruleConfiguration: { actionType: 1, operatorType: 17, severityType: 2, transformationTypes: [19, 8] },
      });
      expect((lists.json as { customLists: { listId: number }[] }).customLists.map((l) => l.listId)).toEqual([
        9001, 9002,
      ]);
      expect(emu.state.accessList(42, 9002)?.content).toBe('KP\nIR');
      expect(emu.state.accessList(42, 9001)?.content).toBe('203.0.113.0/24\n198.51.100.7\n');
      expect(
        (bots.json as { categories: { bots: { category: number }[] }[] }).categories[1]?.bots[0]?.category,
      ).toBe(2);
      expect(emu.state.app('Go1e5FdmzoQdr3O')?.containerTemplates[0]?.id).toBe('web0000000001');
      expect(emu.state.dnsZone(12345)?.DnsSecEnabled).toBe(true);
      expect(emu.state.counts()).toEqual({
        shieldZones: 1,
        customRules: 2,
        customAccessLists: 2,
        managedAccessLists: 2,
        apps: 1,
        dnsZones: 2,
      });
    } finally {
      await emu.close();
    }
  });

  it('treats an empty file as an empty account', () => {
    expect(parseSeed('', 'empty.yaml')).toEqual({ shieldZones: [], apps: [], dnsZones: [], pullZones: [] });
  });

  it.each([
    {
      label: 'an unknown key',
      text: 'shieldZones:\n  - id: 1\n    plan: Basic\n',
      line: "seed.yaml:3:11: unknown field 'plan' (at shieldZones[0].plan)",
    },
    {
      label: 'an unknown enum name',
      text: 'shieldZones:\n  - id: 1\n    customRules:\n      - id: 5\n        ruleName: x\n        ruleConfiguration: { actionType: Deny }\n',
      line: "seed.yaml:6:42: actionType 'Deny' is not one of Block, Log, Challenge, Allow, Bypass (or their integers) (at shieldZones[0].customRules[0].ruleConfiguration.actionType)",
    },
    {
      label: 'a forbidden operator value',
      text: 'shieldZones:\n  - id: 1\n    customRules:\n      - id: 5\n        ruleName: x\n        ruleConfiguration: { actionType: 1, operatorType: 13 }\n',
      line: "seed.yaml:6:59: operatorType '13' is not one of",
    },
    {
      label: 'a missing required key (points at the parent)',
      text: 'dnsZones:\n  - id: 7\n',
      line: 'seed.yaml:2:5: Invalid input: expected string, received undefined (at dnsZones[0].domain)',
    },
    {
      label: 'a duplicate rule id across zones',
      text: 'shieldZones:\n  - id: 1\n    customRules: [{ id: 5, ruleName: a, ruleConfiguration: { actionType: 1 } }]\n  - id: 2\n    customRules: [{ id: 5, ruleName: b, ruleConfiguration: { actionType: 1 } }]\n',
      line: 'seed.yaml:5:25: duplicate custom rule id 5 (at shieldZones[1].customRules[0].id)',
    },
    {
      label: 'an app mount of an unknown volume',
      text: 'apps:\n  - id: a1\n    name: app\n    containerTemplates:\n      - name: web\n        imageRegistryId: "1"\n        imageNamespace: n\n        imageName: i\n        imageTag: t\n        volumeMounts: [{ name: nope, mountPath: /x }]\n',
      line: "seed.yaml:10:32: Volume 'nope' is not a volume of the application. (at apps[0].containerTemplates[0].volumeMounts[0].name)",
    },
    {
      label: 'a YAML syntax error',
      text: 'shieldZones: [\n',
      line: 'seed.yaml:2:1:',
    },
  ])('reports $label with file:line:col', ({ text, line }) => {
    const error = seedError(text);

    expect(error.message).toContain(line);
  });

  it('reports every problem at once', () => {
    const error = seedError('shieldZones:\n  - id: -1\n    bogus: 1\ndnsZones: 3\n');

    expect(error.issues.map((i) => i.path)).toEqual([
      'shieldZones[0].id',
      'shieldZones[0].bogus',
      'dnsZones',
    ]);
  });

  it('validates a seed given in code the same way', async () => {
    await expect(
      startEmulator({ accessKey: TEST_KEY, seed: { dnsZones: [{ id: 1, domain: '' }] } }),
    ).rejects.toThrow(SeedError);
  });

  it('names the file when it cannot be read', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'edgesync-seed-'));
    const missing = join(dir, 'missing.yaml');
    await writeFile(join(dir, 'other.yaml'), '');

    await expect(loadSeedFile(missing)).rejects.toThrow(`${missing}: cannot read the seed file`);
  });
});
