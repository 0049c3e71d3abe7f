/**
 * What a newcomer meets on day one, with exact text: a wrong key or an unreachable API said
 * once on stderr with the API's URL and the error code (a ShieldZone document, which reads
 * nothing, used to defeat that and print a false "1 unchanged"); the API named in every plan
 * format; `--access-key` and a `--schedule` typo refused in one line each.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../src/emulator/index.js';
import { cli } from '../../helpers/cli.js';
import { TEST_KEY, withEmulator } from '../../helpers/emulator.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';

const DOC = 'apiVersion: edgesync/v1\n';
const CONFIG = {
  'rules.yaml': `${DOC}kind: WafCustomRule
metadata: { name: block-sqli }
spec:
  id: 1234
  shieldZoneId: 42
  ruleName: Block SQLi
  ruleConfiguration: { actionType: Block, operatorType: RX, variableTypes: { REQUEST_URI: "", ARGS: "" } }
---
${DOC}kind: ShieldZone
metadata: { name: zone-42 }
spec: { shieldZoneId: 42, customWafRules: shared }
`,
  'dns.yaml': `${DOC}kind: DnsZone
metadata: { name: example-com }
spec: { id: 12345, dnssec: false }
`,
};

describe('the first day', () => {
  let emu: Emulator;
  let config: string;
  let env: Record<string, string>;
  beforeEach(async () => {
    emu = await withEmulator();
    config = writeTree(tempDir(), CONFIG);
    env = { EDGESYNC_ACCESS_KEY: TEST_KEY, EDGESYNC_CONFIG: config, EDGESYNC_STATE_DIR: tempDir() };
  });
  afterEach(async () => {
    await emu.close();
  });

  it.each(['plan', 'apply'])(
    'a wrong key on %s is one line on stderr naming the API and the code',
    async (command) => {
      const result = await cli([command, '--base-url', emu.url], {
        env: { ...env, EDGESYNC_ACCESS_KEY: 'wrong-key' },
      });

      expect([result.code, result.stdout, result.stderr]).toEqual([
        1,
        '',
        `edgesync: API_AUTH: cannot read the API at ${emu.url} (every one of 2 resources): list custom WAF rules (GET /shield/waf/custom-rules/42?page=1&perPage=1000) failed: 401 Unauthorized (UnauthorizedResult); check the access key (EDGESYNC_ACCESS_KEY or --access-key-file)\n`,
      ]);
      expect(emu.journal.writes()).toEqual([]);
    },
  );

  it('an unreachable API is one line naming its URL', async () => {
    const closed = emu.url;
    await emu.close();
    emu = await withEmulator();

    const result = await cli(['plan', '--base-url', closed], { env });

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      new RegExp(
        `^edgesync: API_UNAVAILABLE: cannot read the API at ${closed.replaceAll('.', '\\.')} \\(every one of 2 resources\\): [^\\n]*connection refused[^\\n]*\\n$`,
      ),
    );
  }, 30_000);

  it('the plan names the API it read, in text, Markdown and JSON', async () => {
    const text = await cli(['plan', '--base-url', emu.url], { env });
    const markdown = await cli(['plan', '--base-url', emu.url, '--format', 'markdown'], { env });
    const json = await cli(['plan', '--base-url', emu.url, '--json'], { env });

    expect(text.stdout.split('\n').slice(0, 2)).toEqual([`API: ${emu.url}`, '']);
    expect(markdown.stdout.split('\n').slice(0, 6)).toEqual([
      expect.stringMatching(/^\*\*Plan: /),
      '',
      expect.stringMatching(/^edgesync plan of revision `/),
      '',
      `API: \`${emu.url}\``,
      '',
    ]);
    expect(JSON.parse(json.stdout).api).toBe(emu.url);
  });

  it('--access-key is one line that says what to use instead, and never echoes the value', async () => {
    const separate = await cli(['plan', '--access-key', 'sk-live-123']);
    const joined = await cli(['apply', '--access-key=sk-live-123']);

    const line =
      'edgesync: USAGE: --access-key is not accepted: a key on the command line shows in `ps` and shell history; set EDGESYNC_ACCESS_KEY or pass --access-key-file FILE\n';
    expect([separate.code, separate.stdout, separate.stderr]).toEqual([1, '', line]);
    expect([joined.code, joined.stdout, joined.stderr]).toEqual([1, '', line]);
  });

  it('a --schedule typo is one line with an example of the syntax', async () => {
    const result = await cli(['run', '--schedule', '*/5 * * *'], { env });

    expect([result.code, result.stdout, result.stderr]).toEqual([
      1,
      '',
      'edgesync: USAGE: --schedule "*/5 * * *" is not a cron expression: five fields, minute hour day-of-month month day-of-week (a sixth in front for seconds), e.g. --schedule "*/5 * * * *" for every five minutes\n',
    ]);
  });

  it('an unknown flag is the error and a pointer to --help, not the whole help', async () => {
    const result = await cli(['plan', '--dry-run']);

    expect([result.code, result.stdout, result.stderr]).toEqual([
      1,
      '',
      "edgesync: USAGE: unknown option '--dry-run'\n(add --help to list the flags)\n",
    ]);
  });
});
