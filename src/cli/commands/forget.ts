/**
 * `edgesync forget SUBJECT...`: stop managing a custom WAF rule or access list without deleting
 * it (docs/design.md, Pruning). It drops the subjects' entries from the state's inventory, so `--prune` never
 * deletes those objects; remove (or never re-add) the documents too, or a document without an
 * id would adopt its object again by key on the next apply.
 */
import { realpathSync } from 'node:fs';
import { openStateStore } from '../../engine/state.js';
import { ReconcileError } from '../../errors.js';
import type { CommandRegistrar } from '../command.js';
import { configDirFrom } from '../config-dir.js';
import { type CliIo, errorLine } from '../io.js';
import { stateDir } from '../settings.js';

interface ForgetFlags {
  config?: string;
  stateDir?: string;
}

export const registerForget: CommandRegistrar = (program, io, setExitCode) => {
  program
    .command('forget')
    .description(
      'stop managing custom rules or lists (by Kind/name) without deleting them: drop them from the inventory',
    )
    .argument('<subjects...>', 'subjects as plans print them, e.g. WafCustomRule/block-admin')
    .option('--config <dir>', 'desired-state directory (env EDGESYNC_CONFIG, default ./config)')
    .option(
      '--state-dir <dir>',
      'state directory (env EDGESYNC_STATE_DIR, default .edgesync-state beside the config directory)',
    )
    .action(async (subjects: string[], flags: ForgetFlags) => {
      setExitCode(await runForget(subjects, flags, io));
    });
};

function configPath(flags: ForgetFlags, io: CliIo): string {
  const dir = configDirFrom(flags.config, io).path;
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

async function runForget(subjects: readonly string[], flags: ForgetFlags, io: CliIo): Promise<number> {
  const state = await openStateStore(stateDir(flags, configPath(flags, io), io));
  if (state.warning !== undefined) throw new ReconcileError('STATE_IO', state.warning);
  const inventory = state.inventory();
  const unknown = subjects.filter((subject) => inventory[subject] === undefined);
  if (unknown.length > 0) {
    io.stderr.write(errorLine('USAGE', `not in the inventory (nothing forgotten): ${unknown.join(', ')}`));
    return 1;
  }
  for (const subject of subjects) {
    const entry = inventory[subject];
    state.setInventory(subject, undefined);
    io.stdout.write(
      `forgotten ${subject}: ${entry?.kind} #${entry?.id} ${JSON.stringify(entry?.key)} in Shield Zone ${entry?.shieldZoneId} stays live, unmanaged\n`,
    );
  }
  await state.save();
  return 0;
}
