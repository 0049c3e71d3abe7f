/**
 * `edgesync export --shield-zone N | --app ID | --dns-zone N [--out DIR [--force]]`: live
 * objects as desired-state YAML, to adopt an existing account. Each flag may be repeated and
 * the flags combined. Stdout gets one stream of documents; `--out` one file per resource and
 * never overwrites a file unless `--force` (otherwise it lists them and writes nothing).
 * See docs/inspect-and-export.md.
 */
import { stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { openStateStore } from '../../engine/state.js';
import { ReconcileError } from '../../errors.js';
import { REMEMBERED_APP_ID } from '../../kinds/container-app/env.js';
import { exportLive } from '../../kinds/export.js';
import { withApiClient } from '../api-session.js';
import { addConfigOption, type ConfigFlags, configDirFrom } from '../config-dir.js';
import { DEFAULT_SCHEMA_PATH, existingFiles, planFiles, streamText, writeFiles } from '../export-output.js';
import { type CliIo, errorLine } from '../io.js';
import { type ApiFlags, addApiOptions, addConcurrencyOption, positiveInt } from '../settings.js';
import { addStateOptions, type StateFlags, stateBackendOf } from '../state-options.js';

interface ExportFlags extends ApiFlags, ConfigFlags, StateFlags {
  shieldZone: number[];
  app: string[];
  dnsZone: number[];
  out?: string;
  force?: boolean;
  schemaPath?: string;
  includeSecretValues?: boolean;
  concurrency: number;
}

function repeatedInt(label: string): (value: string, previous: number[]) => number[] {
  const parse = positiveInt(label);
  return (value, previous) => [...previous, parse(value)];
}

function repeatedString(label: string): (value: string, previous: string[]) => string[] {
  return (value, previous) => {
    if (value.trim() === '') throw new InvalidArgumentError(`${label} must not be empty`);
    return [...previous, value.trim()];
  };
}

/** Registers `export`. */
export function registerExport(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  const command = addApiOptions(
    program
      .command('export')
      .description('write live resources as desired-state YAML (to stdout, or one file each with --out)'),
  )
    .option(
      '--shield-zone <id>',
      "a Shield Zone's custom WAF rules, custom and enabled managed access lists (repeatable)",
      repeatedInt('--shield-zone'),
      [],
    )
    .option('--app <id>', 'a Magic Containers app (repeatable)', repeatedString('--app'), [])
    .option('--dns-zone <id>', 'a DNS zone (repeatable)', repeatedInt('--dns-zone'), [])
    .option('--out <dir>', 'write one file per resource under DIR instead of stdout')
    .option('--force', 'with --out: overwrite files that exist')
    .option(
      '--include-secret-values',
      'write the values of secret-looking container variables (PASSWORD, TOKEN, KEY, …) instead of valueFrom placeholders',
    )
    .option(
      '--schema-path <path>',
      `JSON Schema the modelines point at: a file (relative to the working directory) or a URL (default: ${DEFAULT_SCHEMA_PATH} in the config root)`,
    );
  // The state is read (never written) where plan and apply keep it: variables its last apply
  // sent as secrets are written as placeholders too.
  addStateOptions(addConfigOption(addConcurrencyOption(command)), { lockTimeout: false }).action(
    async (flags: ExportFlags) => {
      setExitCode(await runExport(flags, io));
    },
  );
}

async function runExport(flags: ExportFlags, io: CliIo): Promise<number> {
  const selection = { shieldZones: flags.shieldZone, apps: flags.app, dnsZones: flags.dnsZone };
  if (selection.shieldZones.length + selection.apps.length + selection.dnsZones.length === 0) {
    throw new ReconcileError('USAGE', 'nothing to export: give --shield-zone N, --app ID or --dns-zone N');
  }
  if (flags.force === true && flags.out === undefined) {
    throw new ReconcileError('USAGE', '--force only applies with --out');
  }
  const remembered = await rememberedApps(flags, io);
  const result = await withApiClient(flags, io, (api) =>
    exportLive(api, selection, {
      signal: io.signal,
      concurrency: flags.concurrency,
      includeSecretValues: flags.includeSecretValues === true,
      remembered,
    }),
  );
  for (const warning of result.warnings) io.stderr.write(`edgesync: warning: ${warning}\n`);
  if (result.documents.length === 0) {
    io.stderr.write('edgesync: nothing found to export\n');
    return 0;
  }
  if (flags.out === undefined) {
    io.stdout.write(streamText(result.documents, flags.schemaPath));
    return 0;
  }

  const files = planFiles(result.documents, { given: flags.out, cwd: io.cwd }, flags.schemaPath);
  const existing = await existingFiles(files);
  if (existing.length > 0 && flags.force !== true) {
    for (const shown of existing) io.stderr.write(`${shown}: exists\n`);
    io.stderr.write(
      errorLine(
        'USAGE',
        `refusing to overwrite ${existing.length} existing ${existing.length === 1 ? 'file' : 'files'} without --force; nothing was written`,
      ),
    );
    return 1;
  }
  try {
    await writeFiles(files, flags.force === true);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    const path = (err as NodeJS.ErrnoException).path ?? flags.out;
    throw new ReconcileError('USAGE', `cannot write ${path}: ${code}`, { cause: err });
  }
  for (const file of files) io.stdout.write(`${file.shown}\n`);
  io.stdout.write(
    `Exported ${files.length} ${files.length === 1 ? 'resource' : 'resources'} to ${flags.out}.\n`,
  );
  if (flags.schemaPath === undefined) {
    const schema = join(flags.out, DEFAULT_SCHEMA_PATH);
    if (!(await isFile(resolve(io.cwd, schema)))) {
      // The modelines are right once the schema is there; say how to put it there.
      io.stderr.write(
        `edgesync: note: the files' modelines point at ${schema}; create it with: mkdir -p ${dirname(schema)} && edgesync schema > ${schema}\n`,
      );
    }
  }
  return 0;
}

/**
 * What the state (read only, never written) remembers of each app's last apply, by app id:
 * without it, only secret-looking names become placeholders (docs/secrets.md, `export`). The
 * state is the one `plan` and `apply` use for the config directory: `--state-dir`/`--state-url`
 * (or their variables), else the default location of `--config` (else `./config`). None there
 * yet (an account being adopted) is no error.
 */
async function rememberedApps(
  flags: ExportFlags,
  io: CliIo,
): Promise<(appId: string) => Readonly<Record<string, unknown>> | undefined> {
  const { backend, warnings } = stateBackendOf(flags, configDirFrom(flags.config, io).path, io);
  for (const warning of warnings) io.stderr.write(`edgesync: warning: ${warning}\n`);
  const byApp = new Map<string, Readonly<Record<string, unknown>>>();
  try {
    const state = await openStateStore(backend, { readOnly: true });
    if (state.warning !== undefined) io.stderr.write(`edgesync: warning: ${state.warning}\n`);
    for (const record of state.resources().values()) {
      const appId = record.remember?.[REMEMBERED_APP_ID];
      if (typeof appId === 'string' && record.remember !== undefined) byApp.set(appId, record.remember);
    }
  } finally {
    await backend.close();
  }
  return (appId) => byApp.get(appId);
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
