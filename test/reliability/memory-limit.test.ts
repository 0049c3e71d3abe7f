/**
 * A daemon of 30,000 resources inside a 256 MiB memory limit, as a pod would set it: the real
 * `edgesync run` with the image's NODE_OPTIONS, started inside a cgroup v1 memory group,
 * through its start-up run and two full runs triggered by push hooks. It must still be alive,
 * every run successful, and the kernel's OOM killer never called in that group. Not timed:
 * the figures (peak RSS, run times) are `npm run bench`'s scale section (docs/performance.md).
 *
 * The image gives V8's old generation 70 % of the limit (--max-old-space-size-percentage): V8
 * then collects before the kernel would end the process (docs/performance.md, Memory).
 *
 * cgroup v1 only, as root: elsewhere the test is skipped and says why.
 */
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { signBody } from '../../src/daemon/signatures.js';
import { startEmulator } from '../../src/emulator/index.js';
import { daemonArgs, secretFile, until } from '../helpers/daemon.js';
import { TEST_KEY } from '../helpers/emulator.js';
import { emulatorSeed, generateRepository } from '../helpers/generate.js';
import { imageNodeOptions } from '../helpers/image.js';
import { spawnRun, useSpawnedDaemons } from '../helpers/spawn-daemon.js';
import { tempDir } from '../helpers/temp-dir.js';

const RESOURCES = 30_000;
const LIMIT_MIB = 256;
const RUNS = 3;
const CGROUP_ROOT = '/sys/fs/cgroup/memory';
const SECRET = 'memory-limit-webhook-secret';

/** Why a memory cgroup cannot be made here, or undefined when it can. */
function cgroupUnavailable(): string | undefined {
  if (!existsSync(join(CGROUP_ROOT, 'memory.limit_in_bytes'))) {
    return `no cgroup v1 memory controller at ${CGROUP_ROOT}`;
  }
  try {
    accessSync(CGROUP_ROOT, constants.W_OK);
    return undefined;
  } catch {
    return `${CGROUP_ROOT} is not writable (run as root)`;
  }
}

const unavailable = cgroupUnavailable();
if (unavailable !== undefined) {
  process.stderr.write(`memory-limit test skipped: ${unavailable}\n`);
}

useSpawnedDaemons();

describe('the daemon inside a memory limit', () => {
  it.skipIf(unavailable !== undefined)(
    `runs ${RESOURCES.toLocaleString('en-US')} resources in ${LIMIT_MIB} MiB through ${RUNS} runs and is still alive`,
    async () => {
      const root = tempDir();
      const repo = generateRepository(join(root, 'repo'), { resources: RESOURCES, reportOnlyShare: 0 });
      const emu = await startEmulator({ accessKey: TEST_KEY, seed: emulatorSeed(repo).seed, journal: false });
      onTestFinished(() => emu.close());

      const cgroup = join(CGROUP_ROOT, `edgesync-test-${process.pid}-${Date.now()}`);
      mkdirSync(cgroup);
      writeFileSync(join(cgroup, 'memory.limit_in_bytes'), String(LIMIT_MIB * 1024 * 1024));
      writeFileSync(join(cgroup, 'memory.swappiness'), '0');
      onTestFinished(async () => {
        // The group can go once its process has (the spawned-daemon hook kills it after the test).
        for (let attempt = 0; attempt < 100 && existsSync(cgroup); attempt += 1) {
          try {
            rmdirSync(cgroup);
          } catch {
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        }
      });

      const daemon = spawnRun(
        daemonArgs({
          config: repo.dir,
          stateDir: join(root, 'state'),
          baseUrl: emu.url,
          extra: ['--webhook-secret-file', secretFile(SECRET), '--log-level', 'info'],
        }),
        { EDGESYNC_ACCESS_KEY: TEST_KEY, NODE_OPTIONS: imageNodeOptions(LIMIT_MIB * 1024 * 1024) },
        { cgroup },
      );
      const alive = (): boolean => daemon.child.exitCode === null && daemon.child.signalCode === null;
      const finished = (count: number) =>
        until(
          () => {
            if (!alive()) throw new Error(`the daemon ended: ${daemon.output().slice(-2000)}`);
            return daemon.events('reconcile.finished').length >= count;
          },
          `run ${count} of the daemon`,
          600_000,
        );

      await finished(1);
      const url = String(daemon.events('daemon.started')[0]?.listen);
      for (let run = 2; run <= RUNS; run += 1) {
        const body = JSON.stringify({ ref: 'refs/heads/main', after: 'a'.repeat(40) });
        const reply = await fetch(`${url}/hooks/github`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-github-event': 'push',
            'x-hub-signature-256': signBody(SECRET, body),
          },
          body,
        });
        expect(reply.status).toBe(202);
        await finished(run);
      }

      expect(daemon.events('reconcile.finished').map((line) => line.result)).toEqual(
        Array.from({ length: RUNS }, () => 'success'),
      );
      expect(alive()).toBe(true);
      expect(readFileSync(join(cgroup, 'memory.oom_control'), 'utf8')).toMatch(/^oom_kill 0$/m);
    },
    1_800_000,
  );
});
