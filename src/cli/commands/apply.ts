/**
 * `edgesync apply [FILE]`: plan, then apply. Exit 0 when everything applied (or nothing had
 * to), 1 when anything failed — every outcome is listed either way. With FILE, a plan saved
 * by `plan --out` is applied as it was reviewed, or refused with nothing sent when the config
 * revision or a live object changed since (docs/ci.md, Saved plans).
 */
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { RolloutsOutcome } from '../../engine/reconcile.js';
import { renderApplyText, renderPlanText, renderRolloutsText, withApi } from '../../engine/render.js';
import { DEFAULT_ROLLOUT_POLL_MS } from '../../engine/rollout.js';
import { MAX_SAVED_PLAN_BYTES, parseSavedPlan, type SavedPlan } from '../../engine/saved-plan.js';
import { ReconcileError } from '../../errors.js';
import type { CommandRegistrar } from '../command.js';
import { addConfigOption } from '../config-dir.js';
import type { CliIo } from '../io.js';
import {
  addOnlyOption,
  addReconcileOptions,
  commonReadFailure,
  type ReconcileFlags,
  reconcileCommand,
} from '../reconcile-run.js';
import { addConnectionOptions, positiveInt, useColor } from '../settings.js';

interface ApplyFlags extends ReconcileFlags {
  json?: boolean;
  detailedExitcode?: boolean;
  /** commander's `--no-wait`: false when given. */
  wait: boolean;
  rolloutPollMs: number;
}

export const registerApply: CommandRegistrar = (program, io, setExitCode) => {
  const command = program
    .command('apply')
    .description('make live state equal the desired state, or apply a plan saved by `plan --out`')
    .argument('[plan-file]', 'a plan saved by `edgesync plan --out`: applied only if nothing changed since');
  addOnlyOption(addReconcileOptions(addConnectionOptions(addConfigOption(command), { lockTimeout: true })))
    .option('--json', 'print the plan and the outcomes as JSON')
    .option('--detailed-exitcode', 'exit 2 when changes were applied, 0 when there were none, 1 on error')
    .option(
      '--no-wait',
      'do not wait for the rollouts of container apps written (default: wait until active or spec.rollout.timeoutSeconds; a failed one exits 1)',
    )
    .option(
      '--rollout-poll-ms <ms>',
      'how often a rollout is checked while apply waits',
      positiveInt('--rollout-poll-ms'),
      DEFAULT_ROLLOUT_POLL_MS,
    )
    .action(async (file: string | undefined, flags: ApplyFlags) => {
      setExitCode(await runApply(file, flags, io));
    });
};

/** Reads a saved plan; flags that would change the plan are refused beside it (the file holds its own). */
async function savedPlanFrom(file: string, flags: ApplyFlags, io: CliIo): Promise<SavedPlan> {
  const given = [
    flags.force === true ? '--force' : '',
    flags.prune === true ? '--prune' : '',
    flags.drift === undefined ? '' : '--drift',
    flags.only === undefined ? '' : '--only',
  ].filter((flag) => flag !== '');
  if (given.length > 0) {
    throw new ReconcileError(
      'USAGE',
      `${given.join(', ')} cannot be given with a saved plan: it is applied with the options it was made with`,
    );
  }
  const path = resolve(io.cwd, file);
  let text: string;
  try {
    if ((await stat(path)).size > MAX_SAVED_PLAN_BYTES) {
      throw new ReconcileError('PLAN_FILE_INVALID', `${file}: larger than ${MAX_SAVED_PLAN_BYTES} bytes`);
    }
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (err instanceof ReconcileError) throw err;
    throw new ReconcileError(
      'PLAN_FILE_INVALID',
      `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  return parseSavedPlan(text, file);
}

async function runApply(file: string | undefined, flags: ApplyFlags, io: CliIo): Promise<number> {
  const saved = file === undefined ? undefined : await savedPlanFrom(file, flags, io);
  return reconcileCommand(
    flags,
    io,
    'apply',
    ({ plan: planned, apply, rollouts }, _origin, apiUrl) => {
      if (apply === undefined) throw new ReconcileError('INTERNAL', 'apply produced no result');
      const plan = withApi(planned, apiUrl);
      const common = commonReadFailure(plan, apiUrl);
      if (common !== undefined) io.stderr.write(common);
      if (flags.json === true) {
        const rolloutJson = rollouts === undefined ? {} : { rollouts: rolloutsJson(rollouts) };
        io.stdout.write(
          `${JSON.stringify({ plan, results: apply.results, counts: apply.counts, ...rolloutJson }, null, 2)}\n`,
        );
      } else if (common === undefined) {
        const color = useColor(io);
        io.stdout.write(renderPlanText(plan, { color }));
        io.stdout.write(renderApplyText(apply, { color }));
        if (rollouts !== undefined) io.stdout.write(renderRolloutsText(rollouts, { color }));
      }
      // A rollout that failed fails the apply, rolled back or not: that revision is not live.
      if (!apply.ok || (rollouts?.results ?? []).some((r) => r.outcome === 'failed')) return 1;
      return flags.detailedExitcode === true && apply.counts.applied > 0 ? 2 : 0;
    },
    {
      ...(saved === undefined ? {} : { saved }),
      rollouts: flags.wait ? 'wait' : 'off',
      rolloutPollMs: flags.rolloutPollMs,
    },
  );
}

/** `apply --json`'s rollouts: how each ended, and the rollback run's plan changes and results. */
function rolloutsJson(rollouts: RolloutsOutcome): unknown {
  const rollback = rollouts.rollback;
  return {
    results: rollouts.results,
    ...(rollouts.refused === undefined ? {} : { refused: rollouts.refused }),
    ...(rollback === undefined
      ? {}
      : {
          rollback: {
            changes: rollback.plan.changes.filter((c) => c.rollback !== undefined),
            results: rollback.apply?.results ?? [],
            rollouts: rollback.rollouts?.results ?? [],
          },
        }),
  };
}
