/**
 * Where the state directory may be (docs/state.md): never inside the config directory or the
 * git work tree that holds it. A state file committed into the repository is never read (its
 * forged inventory entry would let `--prune` delete a rule edgesync never owned), an explicit
 * state directory inside either is refused with a message, and the default lies outside both.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { defaultStateDir } from '../../../src/state/location.js';
import { cli, cliAgainst } from '../../helpers/cli.js';
import { test } from '../../helpers/emulator.js';
import { git } from '../../helpers/git.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';

const RULE = `apiVersion: edgesync/v1
kind: WafCustomRule
metadata: { name: block-admin }
spec:
  shieldZoneId: 42
  ruleName: Block admin
  ruleConfiguration: { actionType: Block, operatorType: BEGINSWITH, variableTypes: { REQUEST_URI: "" }, value: /admin }
`;

/** A state document claiming live rule #1235 ("Log scanners", never created by edgesync). */
const FORGED = JSON.stringify({
  version: 2,
  resources: {},
  hints: {},
  runs: [],
  inventory: {
    'WafCustomRule/log-scanners': { kind: 'WafCustomRule', shieldZoneId: 42, id: 1235, key: 'Log scanners' },
  },
});

/** A git repository with the config in `config/` and, committed, a forged `.edgesync-state/`. */
function repositoryWithForgedState(): { repo: string; config: string } {
  const repo = tempDir();
  const config = writeTree(join(repo, 'config'), { 'rule.yaml': RULE });
  writeTree(repo, { '.edgesync-state/state.json': FORGED });
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'config, and a state file a pull request added');
  return { repo, config };
}

describe('the state directory', () => {
  test('a state file committed into the config repository is never read: --prune deletes nothing it claims', async ({
    emu,
  }) => {
    const { repo, config } = repositoryWithForgedState();
    const home = tempDir();

    const applied = await cliAgainst(emu, ['apply', '--prune', '--config', config], {
      env: { XDG_STATE_HOME: home },
    });

    expect(applied.code).toBe(0);
    expect(emu.state.customRule(1235)?.ruleName).toBe('Log scanners');
    expect(emu.journal.writes().filter((w) => w.method === 'DELETE')).toEqual([]);
    // The state went to the default, outside the repository, and says so about the old one.
    const used = defaultStateDir(config, { XDG_STATE_HOME: home });
    expect(used.startsWith(join(home, 'edgesync', 'config-'))).toBe(true);
    expect(existsSync(join(used, 'state.json'))).toBe(true);
    expect(applied.stderr).toContain(
      `edgesync: warning: ${join(repo, '.edgesync-state')} (the state directory of an earlier edgesync) is not used any more; the state is kept in ${used}.`,
    );
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  test('an explicit state directory inside the config directory or its git work tree is refused, before any request', async ({
    emu,
  }) => {
    const { repo, config } = repositoryWithForgedState();
    const inConfig = join(config, 'state');
    const inTree = join(repo, 'state');

    const byFlag = await cliAgainst(emu, ['apply', '--config', config, '--state-dir', inConfig]);
    const byEnv = await cliAgainst(emu, ['apply', '--config', config], {
      env: { EDGESYNC_STATE_DIR: inTree },
    });
    const plan = await cliAgainst(emu, ['plan', '--config', config, '--state-dir', inConfig]);
    const forget = await cli(['forget', 'WafCustomRule/x', '--config', config, '--state-dir', inTree]);

    expect(byFlag).toEqual({
      code: 1,
      stdout: '',
      stderr: `edgesync: USAGE: the state directory ${inConfig} is inside the config directory ${config}: a commit could write it, and a document could read it. Choose a directory outside it (--state-dir or EDGESYNC_STATE_DIR), or leave both unset for the default\n`,
    });
    expect(byEnv.stderr).toBe(
      `edgesync: USAGE: the state directory ${inTree} is inside the git work tree ${repo} that holds the config directory: a commit could write it, and a document could read it. Choose a directory outside it (--state-dir or EDGESYNC_STATE_DIR), or leave both unset for the default\n`,
    );
    expect(plan.code).toBe(1);
    expect(forget.code).toBe(1);
    expect(existsSync(inConfig)).toBe(false);
    expect(existsSync(inTree)).toBe(false);
    expect(emu.journal.entries().length).toBe(0);
  });

  test('a state directory outside any work tree, beside the config directory, is allowed', async ({
    emu,
  }) => {
    const root = tempDir();
    const config = writeTree(join(root, 'config'), { 'rule.yaml': RULE });
    const stateDir = join(root, 'state');
    mkdirSync(stateDir);
    writeFileSync(join(stateDir, 'notes'), '');

    const applied = await cliAgainst(emu, ['apply', '--config', config, '--state-dir', stateDir]);

    expect(applied.code).toBe(0);
    expect(readdirSync(stateDir).sort()).toEqual(['notes', 'state.json']);
  });
});
