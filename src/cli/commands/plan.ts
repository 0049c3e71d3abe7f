/**
 * `edgesync plan`: what apply would do, without writing anything (API or state).
 * Exit codes (Terraform's): 0 no changes, 1 error, 2 with --detailed-exitcode when apply would
 * write. Drift that apply does not write (suspended, report-only) and what only --prune would
 * delete are not changes: `--drift-exitcode` makes them exit 3, for a CI gate that wants to see
 * them (see docs/reconcile.md, Exit codes). A refused change or a resource that could not be
 * read is an error, even next to fine ones.
 */
import { resolve } from 'node:path';
import { Option } from 'commander';
import { renderPlanText, withApi } from '../../engine/render.js';
import { renderPlanMarkdown } from '../../engine/render-markdown.js';
import { serializeSavedPlan } from '../../engine/saved-plan.js';
import type { Plan } from '../../engine/types.js';
import { writeFileAtomic } from '../../state/file-backend.js';
import type { CommandRegistrar } from '../command.js';
import { addConfigOption } from '../config-dir.js';
import type { CliIo } from '../io.js';
import {
  addOnlyOption,
  addReconcileOptions,
  commonReadFailure,
  pruneEnabled,
  type ReconcileFlags,
  reconcileCommand,
} from '../reconcile-run.js';
import { addConnectionOptions, useColor } from '../settings.js';

interface PlanFlags extends ReconcileFlags {
  json?: boolean;
  format?: 'text' | 'markdown' | 'json';
  detailedExitcode?: boolean;
  driftExitcode?: boolean;
  out?: string;
}

export const registerPlan: CommandRegistrar = (program, io, setExitCode) => {
  const command = program.command('plan').description('show the changes apply would make (reads only)');
  addOnlyOption(addReconcileOptions(addConnectionOptions(addConfigOption(command), { lockTimeout: false })))
    .option('--json', 'print the plan as JSON')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'markdown', 'json']))
    .option('--detailed-exitcode', 'exit 2 when apply would write something, 0 when not, 1 on error')
    .option(
      '--drift-exitcode',
      'like --detailed-exitcode, and exit 3 when apply would write nothing but there is drift it does not write (suspended or report-only resources) or objects --prune would delete',
    )
    .option(
      '--out <file>',
      'also save the plan for `edgesync apply FILE` (revision, live digests, exact requests; secrets as references)',
    )
    .action(async (flags: PlanFlags) => {
      setExitCode(await runPlan(flags, io));
    });
};

function runPlan(flags: PlanFlags, io: CliIo): Promise<number> {
  const out = flags.out;
  const options = {
    prune: pruneEnabled(flags, io),
    force: flags.force === true,
    driftMode: flags.drift ?? 'correct',
    maxChangePercent: flags.maxChangePercent,
    ...(flags.only === undefined ? {} : { only: flags.only }),
  } as const;
  return reconcileCommand(
    flags,
    io,
    'plan',
    async ({ plan, live }, origin, apiUrl) => {
      if (out !== undefined) {
        await writeFileAtomic(resolve(io.cwd, out), serializeSavedPlan(plan, origin, options, live ?? {}));
      }
      return report(withApi(plan, apiUrl), flags, io);
    },
    { liveDigests: out !== undefined },
  );
}

/** Prints the plan (which names its API) in the chosen format and picks the exit code. */
function report(plan: Plan, flags: PlanFlags, io: CliIo): number {
  const format = flags.json === true ? 'json' : (flags.format ?? 'text');
  const common = commonReadFailure(plan, plan.api ?? '');
  if (common !== undefined) {
    // Said once on stderr; JSON still carries every resource's error for tools.
    io.stderr.write(common);
    if (format === 'json') io.stdout.write(`${JSON.stringify(plan, null, 2)}\n`);
    return 1;
  }
  if (format === 'json') io.stdout.write(`${JSON.stringify(plan, null, 2)}\n`);
  else if (format === 'markdown') io.stdout.write(renderPlanMarkdown(plan));
  else io.stdout.write(renderPlanText(plan, { color: useColor(io) }));
  return planExitCode(plan.summary, flags);
}

/** The exit code of a plan that could be made: see the module comment. */
function planExitCode(
  summary: Plan['summary'],
  flags: Pick<PlanFlags, 'detailedExitcode' | 'driftExitcode'>,
): number {
  if (summary.errors > 0) return 1;
  const detailed = flags.detailedExitcode === true || flags.driftExitcode === true;
  if (detailed && summary.toUpdate > 0) return 2;
  if (flags.driftExitcode === true && summary.skipped + (summary.withPrune ?? 0) > 0) return 3;
  return 0;
}
