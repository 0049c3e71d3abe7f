/**
 * `edgesync state show` and `edgesync state migrate` (docs/state.md, Operating the state):
 * what the state store holds, for operators, and moving a state between a directory and a
 * database (either way). `migrate` holds the lease of both stores while it copies, so no writer
 * changes either meanwhile; it copies the document, the notifications' memory and the install
 * key, and refuses a target that already holds a state unless `--force`.
 */
import { resolve } from 'node:path';
import { openStateStore } from '../../engine/state.js';
import { ReconcileError } from '../../errors.js';
import type { StateBackend } from '../../state/backend.js';
import { fileBackend } from '../../state/file-backend.js';
import { postgresBackend } from '../../state/postgres-backend.js';
import type { CommandRegistrar } from '../command.js';
import { addConfigOption, type ConfigFlags, configDirFrom } from '../config-dir.js';
import type { CliIo } from '../io.js';
import { useColor } from '../settings.js';
import {
  addStateOptions,
  defaultInstance,
  leaseMsOf,
  lockTimeoutMsOf,
  passwordOf,
  type StateFlags,
  stateBackendOf,
} from '../state-options.js';
import { renderTable } from '../tables.js';

interface ShowFlags extends StateFlags, ConfigFlags {
  json?: boolean;
}

interface MigrateFlags extends StateFlags, ConfigFlags {
  from?: string;
  to: string;
  force?: boolean;
}

/** The records every store keeps apart from the document. */
const RECORDS = ['notify', 'unclaimed'] as const;

export const registerState: CommandRegistrar = (program, io, setExitCode) => {
  const state = program
    .command('state')
    .description('show or move what edgesync remembers (the state store)');
  const show = state
    .command('show')
    .description('print the inventory (what edgesync created or adopted) and who holds the lease')
    .option('--json', 'print it as JSON');
  addStateOptions(addConfigOption(show), { lockTimeout: false }).action(async (flags: ShowFlags) => {
    setExitCode(await runShow(flags, io));
  });
  const migrate = state
    .command('migrate')
    .description(
      'copy the state from one store to another: a directory or a postgres:// URL, either way (--from defaults to the store the other commands use)',
    )
    .option('--from <dir-or-url>', 'the store to copy from (default: --state-dir / --state-url as for apply)')
    .requiredOption('--to <dir-or-url>', 'the store to copy to')
    .option('--force', 'replace a state the target already holds');
  addStateOptions(addConfigOption(migrate), { lockTimeout: true }).action(async (flags: MigrateFlags) => {
    setExitCode(await runMigrate(flags, io));
  });
};

async function runShow(flags: ShowFlags, io: CliIo): Promise<number> {
  const { backend } = stateBackendOf(flags, configDirFrom(flags.config, io).path, io);
  try {
    const state = await openStateStore(backend, { readOnly: true });
    const lease = await backend.holder();
    const inventory = [...state.inventory()].sort(([a], [b]) => a.localeCompare(b));
    if (flags.json === true) {
      const body = {
        store: backend.kind,
        location: backend.location,
        leader: lease === undefined ? null : { ...lease.holder, term: lease.term },
        inventory: inventory.map(([subject, entry]) => ({ subject, ...entry })),
        resources: state.resources().size,
        runs: state.runs(),
        ...(state.warning === undefined ? {} : { warning: state.warning }),
      };
      io.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
      return 0;
    }
    if (state.warning !== undefined) io.stderr.write(`edgesync: warning: ${state.warning}\n`);
    const rows = inventory.map(([subject, entry]) => [
      subject,
      entry.kind,
      String(entry.shieldZoneId),
      String(entry.id),
      entry.key,
    ]);
    const lines = [
      `State: ${backend.kind} store ${backend.location}`,
      lease === undefined
        ? 'Lease: free'
        : `Lease: pid ${lease.holder.pid} on host ${lease.holder.host} (edgesync ${lease.holder.command}, since ${lease.holder.since}), term ${lease.term}`,
      `Inventory: ${rows.length} ${rows.length === 1 ? 'object' : 'objects'}; ${state.resources().size} resources with a last-applied record`,
      ...(rows.length === 0
        ? []
        : [
            '',
            ...renderTable(
              [
                { header: 'SUBJECT' },
                { header: 'KIND' },
                { header: 'ZONE', align: 'right' },
                { header: 'ID', align: 'right' },
                { header: 'NAME' },
              ],
              rows,
              { color: useColor(io) },
            ),
          ]),
    ];
    io.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  } finally {
    await backend.close();
  }
}

/**
 * A store named by `--from`/`--to`: a postgres:// URL, else a directory; with neither, the
 * store the state flags name (`--state-dir`, `--state-url`, their variables, the default).
 */
function storeOf(where: string | undefined, flags: MigrateFlags, io: CliIo): StateBackend {
  const configDir = configDirFrom(flags.config, io).path;
  if (where === undefined) return stateBackendOf(flags, configDir, io).backend;
  const leaseMs = leaseMsOf(flags);
  if (/^postgres(ql)?:\/\//.test(where)) {
    const password = passwordOf(flags, io);
    return postgresBackend({
      url: where,
      instance: flags.instance ?? defaultInstance(configDir),
      ...(password === undefined ? {} : { password }),
      ...(leaseMs === undefined ? {} : { leaseMs }),
    });
  }
  return fileBackend(resolve(io.cwd, where), leaseMs === undefined ? {} : { leaseMs });
}

async function runMigrate(flags: MigrateFlags, io: CliIo): Promise<number> {
  const from = storeOf(flags.from, flags, io);
  const to = storeOf(flags.to, flags, io);
  const wait = { timeoutMs: lockTimeoutMsOf(flags), signal: io.signal };
  try {
    if (from.location === to.location) {
      throw new ReconcileError('USAGE', `--from and --to name the same store, ${from.location}`);
    }
    const fromLease = await from.acquire('state migrate', wait);
    try {
      await to.prepare();
      const toLease = await to.acquire('state migrate', wait);
      try {
        const source = await from.readDocument();
        if (source?.text === undefined) {
          throw new ReconcileError('USAGE', `${from.location} holds no state to migrate`);
        }
        // Parsed by the store's own schema: an unreadable source is refused, not copied.
        const parsed = await openStateStore(from, { readOnly: true });
        if (parsed.warning !== undefined) throw new ReconcileError('STATE_IO', parsed.warning);
        const existing = await to.readDocument();
        if (existing?.text !== undefined && flags.force !== true) {
          throw new ReconcileError('USAGE', `${to.location} already holds a state; --force replaces it`);
        }
        const key = await from.installKey.read({ readOnly: true });
        if (key !== undefined) await to.installKey.write(key, toLease);
        for (const name of RECORDS) {
          const text = await from.readRecord(name);
          if (text !== undefined) await to.writeRecord(name, text, toLease);
        }
        await to.writeDocument(source.text, toLease);
        const entries = parsed.inventory().size;
        io.stdout.write(
          `migrated the state of ${from.location} to ${to.location}: ${entries} inventory ${entries === 1 ? 'entry' : 'entries'}, ${parsed.resources().size} resource records, ${parsed.runs().length} runs${key === undefined ? '' : ', the install key'}\n`,
        );
        return 0;
      } finally {
        await toLease.release();
      }
    } finally {
      await fromLease.release();
    }
  } finally {
    await Promise.all([from.close(), to.close()]);
  }
}
