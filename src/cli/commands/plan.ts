/**
 * `edgesync plan`: what apply would do, without writing anything (API or state).
 * Exit codes (Terraform's): 0 no changes, 1 error, 2 changes with --detailed-exitcode.
 * A refused change or a resource that could not be read is an error, even next to fine ones.
 */
import { Option } from 'commander';
import { renderPlanMarkdown, renderPlanText } from '../../engine/render.js';
import type { CommandRegistrar } from '../command.js';
import { addConfigOption } from '../config-dir.js';
import type { CliIo } from '../io.js';
import {
  addReconcileOptions,
  commonReadFailure,
  type ReconcileFlags,
  reconcileCommand,
} from '../reconcile-run.js';
import { addConnectionOptions, useColor } from '../settings.js';

export interface PlanFlags extends ReconcileFlags {
  json?: boolean;
  format?: 'text' | 'markdown' | 'json';
  detailedExitcode?: boolean;
}

export const registerPlan: CommandRegistrar = (program, io, setExitCode) => {
  const command = program.command('plan').description('show the changes apply would make (reads only)');
  addReconcileOptions(addConnectionOptions(addConfigOption(command), { lockTimeout: false }))
    .option('--json', 'print the plan as JSON')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'markdown', 'json']))
    .option('--detailed-exitcode', 'exit 2 when there are changes, 0 when none, 1 on error')
    .action(async (flags: PlanFlags) => {
      setExitCode(await runPlan(flags, io));
    });
};

function runPlan(flags: PlanFlags, io: CliIo): Promise<number> {
  return reconcileCommand(flags, io, 'plan', ({ plan }) => {
    const format = flags.json === true ? 'json' : (flags.format ?? 'text');
    const common = commonReadFailure(plan);
    if (common !== undefined && format === 'text') {
      io.stderr.write(`edgesync: ${common}\n`);
      return 1;
    }
    if (format === 'json') io.stdout.write(`${JSON.stringify(plan, null, 2)}\n`);
    else if (format === 'markdown') io.stdout.write(renderPlanMarkdown(plan));
    else io.stdout.write(renderPlanText(plan, { color: useColor(io) }));
    if (plan.summary.errors > 0) return 1;
    return flags.detailedExitcode === true && plan.summary.toUpdate + plan.summary.skipped > 0 ? 2 : 0;
  });
}
