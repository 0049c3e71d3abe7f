import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { desiredStateJsonSchemaText } from '../../../src/config/json-schema.js';
import { cli } from '../../helpers/cli.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const BROKEN = {
  'dns.yaml':
    'apiVersion: edgesync/v1\nkind: DnsZone\nmetadata: { name: example-com }\nspec:\n  id: 1\n  dnssec: "yes"\n  extra: 1\n',
};

describe('edgesync validate', () => {
  it('exits 0 on config-examples and prints the summary', async () => {
    const run = await cli(['validate', '--config', 'config-examples'], { cwd: ROOT });

    expect(run.code).toBe(0);
    expect(run.stdout).toBe('18 resources in 7 files are valid\n');
    expect(run.stderr).toBe('');
  });

  it('exits 1 and prints every issue with the path as given, then the count', async () => {
    const dir = writeTree(tempDir(), BROKEN);
    const given = relative(ROOT, dir);

    const run = await cli(['validate', '--config', given], { cwd: ROOT });

    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      [
        `${join(given, 'dns.yaml')}:6:11: expected true or false, got string (at spec.dnssec)`,
        `${join(given, 'dns.yaml')}:7:3: unknown key "extra" (at spec.extra)`,
        `edgesync: CONFIG_INVALID: 2 problems in ${given}`,
        '',
      ].join('\n'),
    );
  });

  it('--json prints the issues as a JSON array on stdout only', async () => {
    const dir = writeTree(tempDir(), BROKEN);

    const run = await cli(['validate', '--config', dir, '--json'], { cwd: ROOT });

    expect(run.code).toBe(1);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual([
      {
        file: 'dns.yaml',
        line: 6,
        col: 11,
        path: 'spec.dnssec',
        message: 'expected true or false, got string',
        severity: 'error',
      },
      {
        file: 'dns.yaml',
        line: 7,
        col: 3,
        path: 'spec.extra',
        message: 'unknown key "extra"',
        severity: 'error',
      },
    ]);
  });

  it('--json on a valid config prints an empty array', async () => {
    const run = await cli(['validate', '--config', 'config-examples', '--json'], { cwd: ROOT });

    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([]);
  });

  it('takes the directory from EDGESYNC_CONFIG, and a missing one is one clear line and exit 1', async () => {
    const run = await cli(['validate'], { env: { EDGESYNC_CONFIG: 'no-such-dir' }, cwd: ROOT });

    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'no-such-dir: the config directory does not exist\nedgesync: CONFIG_INVALID: 1 problem in no-such-dir\n',
    );
  });

  it('defaults to ./config, also when EDGESYNC_CONFIG is empty', async () => {
    const cwd = writeTree(tempDir(), {
      'config/dns.yaml': BROKEN['dns.yaml'].replace('"yes"', 'true').replace('  extra: 1\n', ''),
    });

    const run = await cli(['validate'], { cwd });
    const emptyEnv = await cli(['validate'], { cwd, env: { EDGESYNC_CONFIG: '' } });

    expect(run.code).toBe(0);
    expect(run.stdout).toBe('1 resource in 1 file is valid\n');
    expect(emptyEnv).toEqual(run);
  });

  it('prints warnings and still exits 0', async () => {
    const dir = writeTree(tempDir(), {
      'app.yaml':
        'apiVersion: edgesync/v1\nkind: ContainerApp\nmetadata: { name: web }\nspec:\n  appId: abc\n  regionSettings:\n    nodeSelectors: { disk: ssd }\n',
    });

    const run = await cli(['validate', '--config', dir], { cwd: ROOT });

    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      `${dir}/app.yaml:7:20: warning: nodeSelectors are write-only in the API: edgesync sends them but cannot see drift on them (at spec.regionSettings.nodeSelectors)\n`,
    );
    expect(run.stdout).toBe('1 resource in 1 file is valid, with 1 warning\n');
  });
});

describe('edgesync schema', () => {
  it('prints the JSON Schema', async () => {
    const run = await cli(['schema'], { cwd: ROOT });

    expect(run.code).toBe(0);
    expect(run.stdout).toBe(desiredStateJsonSchemaText());
    expect(JSON.parse(run.stdout).$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  });
});
