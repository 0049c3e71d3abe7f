/**
 * The daemon's warning about V8's young generation: on Node 22 and later without
 * `--max-semi-space-size`, a big desired state can take the daemon past its 200 MB budget
 * (docs/performance.md, Node 24). Said once, at the first load that big; never for a small one, never with
 * the flag. The runtime is passed in: this machine's Node 20 would never warn.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Daemon, startDaemon } from '../../src/daemon/daemon.js';
import type { Emulator } from '../../src/emulator/index.js';
import { COMPACT_FROM_RESOURCES, type RuntimeFlags } from '../../src/engine/heap.js';
import {
  dnsYaml,
  edit,
  inProcessDaemonOptions,
  type LogLine,
  until,
  writeDaemonConfig,
} from '../helpers/daemon.js';
import { TEST_KEY, withEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/temp-dir.js';

const NODE_24: RuntimeFlags = { v8Version: '13.6.233.17-node.44', execArgv: [], nodeOptions: undefined };

let emu: Emulator | undefined;
let daemon: Daemon | undefined;

/** Stops the daemon and the emulator running, if any. */
async function stopAll(): Promise<void> {
  await daemon?.stop();
  daemon = undefined;
  await emu?.close();
  emu = undefined;
}

afterEach(stopAll);

/** `count` DNS zones the account does not have: the plan reports them; the load is what counts here. */
function zones(count: number): string {
  return Array.from(
    { length: count },
    (_, i) =>
      `apiVersion: edgesync/v1\nkind: DnsZone\nmetadata:\n  name: zone-${i}\nspec:\n  id: ${900_000 + i}\n  dnssec: false\n`,
  ).join('---\n');
}

/** Starts a daemon on the test config plus `extraZones` zones; returns its log lines. */
async function start(
  runtime: RuntimeFlags,
  extraZones: number,
): Promise<{ lines: LogLine[]; config: string }> {
  emu = await withEmulator();
  const root = tempDir();
  const config = writeDaemonConfig(join(root, 'config'));
  edit(config, 'dns/many.yaml', zones(extraZones));
  const lines: LogLine[] = [];
  daemon = await startDaemon(
    inProcessDaemonOptions(
      {
        configPath: config,
        stateDir: join(root, 'state'),
        api: { baseUrl: emu.url, accessKey: TEST_KEY },
        lines,
      },
      { force: true, driftMode: 'report', runtime },
    ),
  );
  await until(() => lines.some((line) => line.event === 'reconcile.finished'), 'the start-up reconcile');
  return { lines, config };
}

const warnings = (lines: readonly LogLine[]) => lines.filter((line) => line.event === 'daemon.memory');

describe('the young-generation warning', () => {
  it('is logged once, at the first big load, on V8 12+ without the flag', async () => {
    const { lines, config } = await start(NODE_24, COMPACT_FROM_RESOURCES);
    // A second load of the same size: still one warning.
    edit(config, 'dns/zones.yaml', dnsYaml(true));
    await until(
      () => lines.filter((line) => line.event === 'reconcile.finished').length === 2,
      'the second run',
    );

    expect(warnings(lines)).toHaveLength(1);
    expect(warnings(lines)[0]).toMatchObject({
      level: 'warn',
      resources: COMPACT_FROM_RESOURCES + 3,
      msg: "V8's young generation is not capped: with this many resources the daemon may pass 200 MB of RSS; start it with NODE_OPTIONS=--max-semi-space-size=4, as the image does",
    });
  }, 30_000);

  it('is not logged with the flag, on Node 20, or for a small desired state', async () => {
    const capped = await start(
      { ...NODE_24, nodeOptions: '--max-semi-space-size=4' },
      COMPACT_FROM_RESOURCES,
    );
    await stopAll();
    const node20 = await start({ ...NODE_24, v8Version: '11.3.244.8-node.30' }, COMPACT_FROM_RESOURCES);
    await stopAll();
    const small = await start(NODE_24, COMPACT_FROM_RESOURCES - 4);

    expect(warnings(capped.lines)).toEqual([]);
    expect(warnings(node20.lines)).toEqual([]);
    expect(warnings(small.lines)).toEqual([]);
    // The small one has one resource fewer than the threshold: it did load them all.
    expect(small.lines.find((line) => line.event === 'reconcile.started')).toMatchObject({
      resources: COMPACT_FROM_RESOURCES - 1,
    });
  }, 60_000);
});
