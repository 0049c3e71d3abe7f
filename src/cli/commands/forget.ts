/**
 * `edgesync forget SUBJECT...`: stop managing a custom WAF rule or access list without deleting
 * it (docs/design.md, Pruning). It drops the subjects' entries from the state's inventory, so `--prune` never
 * deletes those objects; remove (or never re-add) the documents too, or a document without an
 * id would adopt its object again by key on the next apply.
 */
import { realpathSync } from 'node:fs';
import { openStateStore, type StateStore } from '../../engine/state.js';
import { ReconcileError } from '../../errors.js';
import type { CommandRegistrar } from '../command.js';
import { configDirFrom } from '../config-dir.js';
import { type CliIo, errorLine } from '../io.js';
import { addStateOptions, lockTimeoutMsOf, type StateFlags, stateBackendOf } from '../state-options.js';

interface ForgetFlags extends StateFlags {
  config?: string;
}

export const registerForget: CommandRegistrar = (program, io, setExitCode) => {
  const command = program
    .command('forget')
    .description(
      'stop managing custom rules or lists (by Kind/name) without deleting them: drop them from the inventory',
    )
    .argument('<subjects...>', 'subjects as plans print them, e.g. WafCustomRule/block-admin')
    .option('--config <dir>', 'desired-state directory (env EDGESYNC_CONFIG, default ./config)');
  addStateOptions(command, { lockTimeout: true }).action(async (subjects: string[], flags: ForgetFlags) => {
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

/**
 * Takes the writer's lease first (a running daemon holds it: refused at once naming it, or
 * waited for with --lock-timeout), so no daemon can save its older inventory over this change
 * or prune from it (docs/state.md, The writer's lease).
 */
async function runForget(subjects: readonly string[], flags: ForgetFlags, io: CliIo): Promise<number> {
  const { backend, warnings } = stateBackendOf(flags, configPath(flags, io), io);
  for (const warning of warnings) io.stderr.write(`edgesync: warning: ${warning}\n`);
  try {
    const lease = await backend.acquire('forget', { timeoutMs: lockTimeoutMsOf(flags), signal: io.signal });
    try {
      return await forgetIn(await openStateStore(backend, { lease }), subjects, io);
    } finally {
      await lease.release();
    }
  } finally {
    await backend.close();
  }
}

async function forgetIn(state: StateStore, subjects: readonly string[], io: CliIo): Promise<number> {
  if (state.warning !== undefined) throw new ReconcileError('STATE_IO', state.warning);
  const inventory = state.inventory();
  const unknown = subjects.filter((subject) => !inventory.has(subject));
  if (unknown.length > 0) {
    io.stderr.write(errorLine('USAGE', `not in the inventory (nothing forgotten): ${unknown.join(', ')}`));
    return 1;
  }
  for (const subject of subjects) {
    const entry = inventory.get(subject);
    state.setInventory(subject, undefined);
    io.stdout.write(
      `forgotten ${subject}: ${entry?.kind} #${entry?.id} ${JSON.stringify(entry?.key)} in Shield Zone ${entry?.shieldZoneId} stays live, unmanaged\n`,
    );
  }
  await state.save();
  return 0;
}
