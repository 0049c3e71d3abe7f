/**
 * `edgesync apply`: plan, then apply. Exit 0 when everything applied (or nothing had to),
 * 1 when anything failed — every outcome is listed either way.
 */
import { renderApplyText, renderPlanText } from '../../engine/render.js';
import { ReconcileError } from '../../errors.js';
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

interface ApplyFlags extends ReconcileFlags {
  json?: boolean;
}

export const registerApply: CommandRegistrar = (program, io, setExitCode) => {
  const command = program.command('apply').description('make live state equal the desired state');
  addReconcileOptions(addConnectionOptions(addConfigOption(command), { lockTimeout: true }))
    .option('--json', 'print the plan and the outcomes as JSON')
    .action(async (flags: ApplyFlags) => {
      setExitCode(await runApply(flags, io));
    });
};

function runApply(flags: ApplyFlags, io: CliIo): Promise<number> {
  return reconcileCommand(flags, io, 'apply', ({ plan, apply }) => {
    if (apply === undefined) throw new ReconcileError('INTERNAL', 'apply produced no result');
    const common = commonReadFailure(plan);
    if (flags.json === true) {
      io.stdout.write(`${JSON.stringify({ plan, results: apply.results, counts: apply.counts }, null, 2)}\n`);
    } else if (common !== undefined) {
      io.stderr.write(`edgesync: ${common}\n`);
    } else {
      const color = useColor(io);
      io.stdout.write(renderPlanText(plan, { color }));
      io.stdout.write(renderApplyText(apply, { color }));
    }
    return apply.ok ? 0 : 1;
  });
}
