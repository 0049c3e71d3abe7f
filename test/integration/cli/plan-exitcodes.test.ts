/**
 * `plan`'s exit codes and what a pull-request comment shows, through the CLI against the
 * emulator: `--detailed-exitcode` exits 2 only when apply would write; drift apply does not
 * write (a suspended rule) and what only `--prune` would delete are not changes, and
 * `--drift-exitcode` makes them exit 3. The text and Markdown plans always show what `--prune`
 * would delete, so a comment never says "No changes" about a plan a pruning daemon would act on.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../src/emulator/index.js';
import { cli } from '../../helpers/cli.js';
import { cliSession } from '../../helpers/cli-session.js';
import { writeTree } from '../../helpers/temp-dir.js';

const DOC = 'apiVersion: edgesync/v1\n';

function ruleDoc(name: string, ruleName: string, extra = ''): string {
  return `${DOC}kind: WafCustomRule
metadata: { name: ${name}${extra} }
spec:
  shieldZoneId: 42
  ruleName: ${ruleName}
  ruleConfiguration: { actionType: Block, operatorType: BEGINSWITH, variableTypes: { REQUEST_URI: "" }, value: /admin }
`;
}

describe('plan exit codes', () => {
  let emu: Emulator;
  let config: string;
  let env: Record<string, string>;
  const plan = (...flags: string[]) => cli(['plan', ...flags], { env });
  beforeEach(async () => {
    ({ emu, config, env } = await cliSession({
      'a.yaml': ruleDoc('a', 'Rule A'),
      'b.yaml': ruleDoc('b', 'Rule B'),
    }));
  });
  afterEach(async () => {
    await emu.close();
  });

  it('creates: 2 with --detailed-exitcode and with --drift-exitcode; 0 without either', async () => {
    expect((await plan()).code).toBe(0);
    expect((await plan('--detailed-exitcode')).code).toBe(2);
    expect((await plan('--drift-exitcode')).code).toBe(2);
  });

  it('in sync: 0 with either flag', async () => {
    expect((await cli(['apply'], { env })).code).toBe(0);
    emu.journal.clear();

    expect((await plan('--detailed-exitcode')).code).toBe(0);
    expect((await plan('--drift-exitcode')).code).toBe(0);
    expect(emu.journal.writes()).toEqual([]);
  });

  it('drift on a suspended rule is not written: --detailed-exitcode 0, --drift-exitcode 3', async () => {
    expect((await cli(['apply'], { env })).code).toBe(0);
    const rule = emu.state.customRules(42).find((r) => r.ruleName === 'Rule A');
    if (rule?.ruleConfiguration) rule.ruleConfiguration.value = '/changed-by-hand';
    writeTree(config, { 'a.yaml': ruleDoc('a', 'Rule A', ', suspend: true') });

    const detailed = await plan('--detailed-exitcode');
    const strict = await plan('--drift-exitcode');

    expect(detailed.stdout).toContain(
      'Plan: 0 to change, 1 not written (suspended or report-only), 1 unchanged.\n',
    );
    expect(detailed.code).toBe(0);
    expect(strict.code).toBe(3);
  });

  it('a removed document with --prune off: exit 0 (3 with --drift-exitcode); text and Markdown show what --prune would delete', async () => {
    expect((await cli(['apply'], { env })).code).toBe(0);
    const id = emu.state.customRules(42).find((r) => r.ruleName === 'Rule B')?.id;
    rmSync(join(config, 'b.yaml'));
    emu.journal.clear();

    const text = await plan('--detailed-exitcode');
    const markdown = await plan('--detailed-exitcode', '--format', 'markdown');
    const strict = await plan('--drift-exitcode');
    const pruning = await plan('--detailed-exitcode', '--prune', '--force');

    expect(text).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        `API: ${emu.url}`,
        '',
        'No changes without --prune.',
        '',
        'With --prune (EDGESYNC_PRUNE=true) these would be deleted; --prune is off here, so they are not changes:',
        `  - WafCustomRule #${id} "Rule B" in Shield Zone 42 (was WafCustomRule/b)`,
        '',
        'Plan: 0 to change, 1 unchanged. Information: 1 to delete with --prune, which is off.',
        '',
      ].join('\n'),
    });
    expect(markdown.code).toBe(0);
    expect(markdown.stdout).toMatch(
      /^\*\*Plan: 0 to change, 1 unchanged\. Information: 1 to delete with --prune, which is off\.\*\*\n/,
    );
    expect(markdown.stdout).toContain(
      [
        'No changes without `--prune`.',
        '',
        '**With --prune (EDGESYNC_PRUNE=true) these would be deleted; --prune is off here, so they are not changes:**',
        '',
        `- \`WafCustomRule #${id} "Rule B" in Shield Zone 42 (was WafCustomRule/b)\``,
      ].join('\n'),
    );
    expect(markdown.stdout).not.toContain('No changes. Live state matches');
    expect(strict.code).toBe(3);
    expect(pruning.code).toBe(2);
    expect(emu.journal.writes()).toEqual([]);
  });

  it('an error is 1 whatever else the plan holds', async () => {
    writeTree(config, {
      'c.yaml': `${DOC}kind: WafCustomRule\nmetadata: { name: c }\nspec: { id: 999999, shieldZoneId: 42, ruleName: X, ruleConfiguration: { actionType: Block, operatorType: RX, variableTypes: { REQUEST_URI: "" } } }\n`,
    });

    expect((await plan('--detailed-exitcode')).code).toBe(1);
    expect((await plan('--drift-exitcode')).code).toBe(1);
  });
});
