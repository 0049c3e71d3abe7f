/**
 * A cgroup v1 memory group for one test (root only): a spawned daemon started inside it
 * (`spawnRun(…, { cgroup })`) runs under a real memory limit, as a pod's would.
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
import { onTestFinished } from 'vitest';

const CGROUP_ROOT = '/sys/fs/cgroup/memory';

/** Why a memory cgroup cannot be made here, or undefined when it can. */
export function cgroupUnavailable(): string | undefined {
  if (!existsSync(join(CGROUP_ROOT, 'memory.limit_in_bytes')))
    return `no cgroup v1 memory controller at ${CGROUP_ROOT}`;
  try {
    accessSync(CGROUP_ROOT, constants.W_OK);
    return undefined;
  } catch {
    return `${CGROUP_ROOT} is not writable (run as root)`;
  }
}

/** A new memory group limited to `limitMiB`, removed after the test; returns its directory. */
export function memoryCgroup(name: string, limitMiB: number): { dir: string; oomKills(): number } {
  const dir = join(CGROUP_ROOT, `edgesync-test-${name}-${process.pid}-${Date.now()}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'memory.limit_in_bytes'), String(limitMiB * 1024 * 1024));
  writeFileSync(join(dir, 'memory.swappiness'), '0');
  onTestFinished(async () => {
    // The group can go once its process has (the spawned-daemon hook kills it after the test).
    for (let attempt = 0; attempt < 100 && existsSync(dir); attempt += 1) {
      try {
        rmdirSync(dir);
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  });
  return {
    dir,
    oomKills: () =>
      Number(/^oom_kill (\d+)$/m.exec(readFileSync(join(dir, 'memory.oom_control'), 'utf8'))?.[1] ?? 0),
  };
}
