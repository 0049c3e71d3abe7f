/**
 * `edgesync inspect zones|apps|bots|waf-catalog|api-guardian|optimal-region`: the account's ids
 * (`zones`, `apps`: what the YAML's `shieldZoneId`, `id` and `appId` need) and the read-only
 * operations E6–E9, as tables, or with `--json` as the replies the API sent (their schemas keep
 * unknown fields).
 * A failure is one line on stderr (`runCli` prints the ApiError's message) and exit 1.
 */
import type { Command } from 'commander';
import { appsView, zonesDocument, zonesView } from '../account-views.js';
import { withApiClient } from '../api-session.js';
import {
  apiGuardianView,
  botsView,
  catalogRulesView,
  catalogView,
  filterCatalog,
  optimalRegionView,
} from '../inspect-views.js';
import type { CliIo } from '../io.js';
import { type ApiFlags, addApiOptions, positiveInt, useColor } from '../settings.js';

interface InspectFlags extends ApiFlags {
  json?: boolean;
}

interface ZoneFlags extends InspectFlags {
  shieldZone: number;
}

interface CatalogFlags extends InspectFlags {
  plan?: string;
  group?: string;
}

function print(io: CliIo, lines: readonly string[]): void {
  io.stdout.write(`${lines.join('\n')}\n`);
}

function printJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

function subcommand(parent: Command, name: string, description: string): Command {
  return addApiOptions(parent.command(name).description(description)).option(
    '--json',
    'print the reply as JSON instead of a table',
  );
}

function shieldZoneOption(command: Command): Command {
  return command.requiredOption('--shield-zone <id>', 'Shield Zone id', positiveInt('--shield-zone'));
}

/** Registers `inspect` and its sub-commands. */
export function registerInspect(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  const inspect = program
    .command('inspect')
    .description(
      "show read-only data of the API: the account's zones and apps with their ids, bots, the WAF rule catalogue, API Guardian metrics, the optimal region",
    );

  subcommand(
    inspect,
    'zones',
    "Shield Zones (with their pull zone's name and hostnames) and DNS zones, by id",
  ).action(async (flags: InspectFlags) => {
    const zones = await withApiClient(flags, io, async (api) => {
      const options = { signal: io.signal };
      const [shieldZones, pullZones, dnsZones] = await Promise.all([
        api.listShieldZones(options),
        api.listPullZones(options),
        api.listDnsZones(options),
      ]);
      return { shieldZones, pullZones, dnsZones };
    });
    if (flags.json === true) printJson(io, zonesDocument(zones));
    else print(io, zonesView(zones, { color: useColor(io) }));
    setExitCode(0);
  });

  subcommand(inspect, 'apps', 'container apps (Magic Containers) by id, with name and status').action(
    async (flags: InspectFlags) => {
      const apps = await withApiClient(flags, io, (api) => api.listApps({ signal: io.signal }));
      if (flags.json === true) printJson(io, apps);
      else print(io, appsView(apps, { color: useColor(io) }));
      setExitCode(0);
    },
  );

  shieldZoneOption(subcommand(inspect, 'bots', 'bots of a Shield Zone, grouped by category')).action(
    async (flags: ZoneFlags) => {
      const reply = await withApiClient(flags, io, (api) =>
        api.getBotCategorization(flags.shieldZone, { signal: io.signal }),
      );
      if (flags.json === true) printJson(io, reply);
      else print(io, botsView(reply, flags.shieldZone, { color: useColor(io) }));
      setExitCode(0);
    },
  );

  subcommand(inspect, 'waf-catalog', 'WAF rule catalogue by subscription plan')
    .option('--plan <name>', 'only this plan, listing its rules (case-insensitive)')
    .option('--group <code>', 'only this rule group, listing its rules (case-insensitive)')
    .action(async (flags: CatalogFlags) => {
      const reply = await withApiClient(flags, io, (api) =>
        api.getWafPlanSegmentation({ signal: io.signal }),
      );
      const filtered = flags.plan !== undefined || flags.group !== undefined;
      const shown = filtered ? filterCatalog(reply, { plan: flags.plan, group: flags.group }) : reply;
      const color = useColor(io);
      if (flags.json === true) printJson(io, shown);
      else print(io, filtered ? catalogRulesView(shown, { color }) : catalogView(shown, { color }));
      setExitCode(0);
    });

  shieldZoneOption(
    subcommand(inspect, 'api-guardian', 'API Guardian totals and the 28-day overview of a Shield Zone'),
  ).action(async (flags: ZoneFlags) => {
    const reply = await withApiClient(flags, io, (api) =>
      api.getApiGuardianMetrics(flags.shieldZone, { signal: io.signal }),
    );
    if (flags.json === true) printJson(io, reply);
    else print(io, apiGuardianView(reply, flags.shieldZone, { color: useColor(io) }));
    setExitCode(0);
  });

  subcommand(inspect, 'optimal-region', 'the base region the API picks for deployment').action(
    async (flags: InspectFlags) => {
      const reply = await withApiClient(flags, io, (api) => api.getOptimalRegion({ signal: io.signal }));
      if (flags.json === true) printJson(io, reply);
      else print(io, optimalRegionView(reply, { color: useColor(io) }));
      setExitCode(0);
    },
  );
}
