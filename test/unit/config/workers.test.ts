/**
 * The parse-process path of the parse pool runs compiled JavaScript (a forked process cannot
 * load TypeScript on Node 20), so this test drives the build in dist/: `npm test` builds first.
 */
import { execFile, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import type * as Files from '../../../src/config/files.js';
import type * as Loader from '../../../src/config/loader.js';
import type * as ParseFile from '../../../src/config/parse-file.js';
import type * as Pool from '../../../src/config/parse-pool.js';
import type { ReconcileError } from '../../../src/errors.js';
import { requireBuild } from '../../helpers/spawn-daemon.js';

const execFileAsync = promisify(execFile);
const DIST_LOADER = new URL('../../../dist/src/config/loader.js', import.meta.url);
const DIST_POOL = new URL('../../../dist/src/config/parse-pool.js', import.meta.url);
const DIST_FILES = new URL('../../../dist/src/config/files.js', import.meta.url);
const DIST_PARSE_FILE = new URL('../../../dist/src/config/parse-file.js', import.meta.url);
const EXAMPLES = fileURLToPath(new URL('../../../config-examples/', import.meta.url));
const INVALID = fileURLToPath(new URL('../../fixtures/desired/invalid/enum-unknown-names/', import.meta.url));

async function distLoader(): Promise<typeof Loader> {
  return (await import(DIST_LOADER.href)) as typeof Loader;
}

describe('parsing in parse processes', () => {
  // Every test here imports dist/, the pool's own tests too: fail at once, with the fix, if it is missing.
  beforeAll(requireBuild);

  it('gives exactly the state that parsing in this thread gives', async () => {
    const { createDesiredStateLoader } = await distLoader();

    const inThread = await createDesiredStateLoader({ workers: 0 }).load(EXAMPLES);
    const inWorkers = await createDesiredStateLoader({ workers: 2 }).load(EXAMPLES);

    expect(inWorkers.stats).toEqual({
      files: 7,
      parsed: 7,
      reused: 0,
      workers: 2,
      inThread: expect.any(Number),
    });
    expect(inWorkers.state).toEqual(inThread.state);
  });

  it('reports the same issues', async () => {
    const { createDesiredStateLoader } = await distLoader();
    const issuesOf = async (workers: number): Promise<unknown> => {
      const err = await createDesiredStateLoader({ workers })
        .load(INVALID)
        .catch((e: unknown) => e);
      return (err as ReconcileError).details?.issues;
    };

    const inWorkers = await issuesOf(1);

    expect(inWorkers).toEqual(await issuesOf(0));
    expect(inWorkers).toHaveLength(4);
  });

  it('ends its parse processes when each load is done', async () => {
    const { createDesiredStateLoader, loadDesiredState } = await distLoader();
    const { parseWorkersAlive } = (await import(DIST_POOL.href)) as typeof Pool;

    const reusable = await createDesiredStateLoader({ workers: 2 }).load(EXAMPLES);
    const afterReusable = parseWorkersAlive();
    await loadDesiredState(EXAMPLES, { workers: 2 });
    const afterOneShot = parseWorkersAlive();

    expect(reusable.stats.workers).toBe(2);
    expect([afterReusable, afterOneShot]).toEqual([0, 0]);
  });

  it('kept free (the daemon), parses new files in the processes only, and here the files it parsed before', async () => {
    // This thread's parse garbage would stay in the daemon's heap through the reconcile that
    // follows; a file with a previous parse is mostly reused, which only this thread can do.
    const { parseFiles } = (await import(DIST_POOL.href)) as typeof Pool;
    const { parseConfigFile } = (await import(DIST_PARSE_FILE.href)) as typeof ParseFile;
    const { DEFAULT_LIMITS } = (await import(DIST_FILES.href)) as typeof Files;
    const text = (i: number): string =>
      `apiVersion: edgesync/v1\nkind: DnsZone\nmetadata:\n  name: zone-${i}\nspec:\n  id: ${i + 1}\n  dnssec: true\n`;
    const fresh = Array.from({ length: 5 }, (_, i) => ({ file: `f${i}.yaml`, text: text(i) }));
    const before = parseConfigFile(EXAMPLES, 'g.yaml', text(9), DEFAULT_LIMITS);
    const edited = {
      file: 'g.yaml',
      text: `${text(9)}---\n${text(10)}`,
      previous: { text: text(9), result: before, dependencyUnchanged: () => true },
    };

    const kept = { workers: 2, thresholdBytes: 0, threadParsesNew: false } as const;

    const allNew = await parseFiles(fresh, EXAMPLES, DEFAULT_LIMITS, kept);
    const mixed = await parseFiles([...fresh, edited], EXAMPLES, DEFAULT_LIMITS, kept);
    const shared = await parseFiles(fresh, EXAMPLES, DEFAULT_LIMITS, { workers: 1, thresholdBytes: 0 });

    expect([allNew.workers, allNew.inThread]).toEqual([2, 0]);
    // By default (one-shot commands) this thread takes new files from the queue as well.
    expect(shared.workers).toBe(1);
    expect(shared.inThread).toBeGreaterThan(0);
    expect(shared.results).toEqual(allNew.results);
    expect([mixed.workers, mixed.inThread]).toEqual([2, 1]);
    expect(mixed.results.slice(0, 5)).toEqual(
      fresh.map((job) => parseConfigFile(EXAMPLES, job.file, job.text, DEFAULT_LIMITS)),
    );
    // Reused, so the very object of the previous parse: this thread parsed it.
    expect(mixed.results[5]?.documents[0]).toBe(before.documents[0]);
    expect(mixed.results[5]?.documents.map((d) => d.resource?.subject)).toEqual([
      'DnsZone/zone-9',
      'DnsZone/zone-10',
    ]);
  });

  it('parses in this thread alone when every file has a previous parse', async () => {
    const { parseFiles, parseWorkersAlive } = (await import(DIST_POOL.href)) as typeof Pool;
    const { parseConfigFile } = (await import(DIST_PARSE_FILE.href)) as typeof ParseFile;
    const { DEFAULT_LIMITS } = (await import(DIST_FILES.href)) as typeof Files;
    const jobs = ['a', 'b'].map((name) => {
      const text = `apiVersion: edgesync/v1\nkind: DnsZone\nmetadata:\n  name: ${name}\nspec:\n  id: 7\n  dnssec: true\n`;
      const result = parseConfigFile(EXAMPLES, `${name}.yaml`, text, DEFAULT_LIMITS);
      return { file: `${name}.yaml`, text, previous: { text, result, dependencyUnchanged: () => true } };
    });

    const outcome = await parseFiles(jobs, EXAMPLES, DEFAULT_LIMITS, {
      workers: 2,
      thresholdBytes: 0,
      threadParsesNew: false,
    });

    expect([outcome.workers, outcome.inThread]).toEqual([0, 2]);
    expect(parseWorkersAlive()).toBe(0);
  });

  it("'auto' starts as many processes as autoWorkers says, more than its own count ever is (3), and none below the threshold", async () => {
    // `edgesync run --parse-processes N`: an operator's cap, whatever the host's core count.
    const { parseFiles, parseWorkersAlive } = (await import(DIST_POOL.href)) as typeof Pool;
    const { parseConfigFile } = (await import(DIST_PARSE_FILE.href)) as typeof ParseFile;
    const { DEFAULT_LIMITS } = (await import(DIST_FILES.href)) as typeof Files;
    const text = (i: number): string =>
      `apiVersion: edgesync/v1\nkind: DnsZone\nmetadata:\n  name: zone-${i}\nspec:\n  id: ${i + 1}\n  dnssec: true\n`;
    const jobs = Array.from({ length: 6 }, (_, i) => ({ file: `f${i}.yaml`, text: text(i) }));
    const daemon = { workers: 'auto', thresholdBytes: 0, threadParsesNew: false } as const;
    const bytes = jobs.reduce((sum, job) => sum + job.text.length, 0);

    const beyondDefault = await parseFiles(jobs, EXAMPLES, DEFAULT_LIMITS, { ...daemon, autoWorkers: 5 });
    const one = await parseFiles(jobs, EXAMPLES, DEFAULT_LIMITS, { ...daemon, autoWorkers: 1 });
    const none = await parseFiles(jobs, EXAMPLES, DEFAULT_LIMITS, { ...daemon, autoWorkers: 0 });
    const small = await parseFiles(jobs, EXAMPLES, DEFAULT_LIMITS, {
      ...daemon,
      autoWorkers: 5,
      thresholdBytes: bytes + 1,
    });

    expect([beyondDefault.workers, beyondDefault.inThread]).toEqual([5, 0]);
    expect([one.workers, one.inThread]).toEqual([1, 0]);
    expect([none.workers, none.inThread]).toEqual([0, 6]);
    expect([small.workers, small.inThread]).toEqual([0, 6]);
    const inThread = jobs.map((job) => parseConfigFile(EXAMPLES, job.file, job.text, DEFAULT_LIMITS));
    for (const outcome of [beyondDefault, one, none, small]) expect(outcome.results).toEqual(inThread);
    expect(parseWorkersAlive()).toBe(0);
  });

  it('fails the batch, not this process, when a parse process fails while this thread parses', async () => {
    const { parseFiles, parseWorkersAlive } = (await import(DIST_POOL.href)) as typeof Pool;
    const { DEFAULT_LIMITS } = (await import(DIST_FILES.href)) as typeof Files;
    const jobs = Array.from({ length: 6 }, (_, i) => ({ file: `f${i}.yaml`, text: 'a: 1\n' }));
    // A function cannot be sent to a parse process: each send fails on its first job, while
    // this thread, which ignores the extra field, parses the rest of the queue.
    const unsendable = { ...DEFAULT_LIMITS, onParse: () => undefined } as typeof DEFAULT_LIMITS;

    const failure = await parseFiles(jobs, EXAMPLES, unsendable, { workers: 2, thresholdBytes: 0 }).catch(
      (e: unknown) => e,
    );

    expect(String(failure)).toBe(
      'ReconcileError: config parse process failed: Error: () => undefined could not be cloned.',
    );
    expect(parseWorkersAlive()).toBe(0);
  });

  it("starts its parse processes without the caller's flags: a `node -e` caller is not run again", async () => {
    // fork() passes the caller's flags by default, `-e CODE` among them: every parse process
    // would run this script again and fork in turn, without end.
    const script = `import { createDesiredStateLoader } from ${JSON.stringify(DIST_LOADER.href)};
      const { stats } = await createDesiredStateLoader({ workers: 2 }).load(${JSON.stringify(EXAMPLES)});
      console.log(JSON.stringify(stats));`;

    const { stdout } = await execFileAsync(process.execPath, nodeEval(script), { timeout: 20_000 });

    expect(JSON.parse(stdout)).toEqual({
      files: 7,
      parsed: 7,
      reused: 0,
      workers: 2,
      inThread: expect.any(Number),
    });
  });

  it('fails the batch when a parse process dies mid-batch, and leaves none behind', async () => {
    const { parseFiles, parseWorkersAlive } = (await import(DIST_POOL.href)) as typeof Pool;
    const { DEFAULT_LIMITS } = (await import(DIST_FILES.href)) as typeof Files;
    // Big enough files that the batch is still running when its parse process is killed.
    const text = Array.from({ length: 2_000 }, (_, i) => `key${i}: value ${i}`).join('\n');
    const jobs = Array.from({ length: 8 }, (_, i) => ({ file: `f${i}.yaml`, text }));

    const batch = parseFiles(jobs, EXAMPLES, DEFAULT_LIMITS, { workers: 1, thresholdBytes: 0 }).catch(
      (e: unknown) => e,
    );
    const child = await parseProcessOf(process.pid);
    process.kill(child, 'SIGKILL');
    const failure = await batch;

    expect(String(failure)).toBe(
      'ReconcileError: config parse process exited (SIGKILL) before its files were parsed',
    );
    expect(parseWorkersAlive()).toBe(0);
  });
});

describe('a parse process whose parent is killed', () => {
  beforeAll(requireBuild);

  it('exits on its own instead of living on as an orphan', async () => {
    // The parent parses in its own thread too, so it is busy when it is killed.
    const script = `import { parseFiles } from ${JSON.stringify(DIST_POOL.href)};
      import { DEFAULT_LIMITS } from ${JSON.stringify(DIST_FILES.href)};
      const text = Array.from({ length: 2000 }, (_, i) => 'key' + i + ': value ' + i).join('\\n');
      const jobs = Array.from({ length: 40 }, (_, i) => ({ file: 'f' + i + '.yaml', text }));
      await parseFiles(jobs, '/tmp', DEFAULT_LIMITS, { workers: 1, thresholdBytes: 0 });`;
    const parent = spawn(process.execPath, nodeEval(script), { stdio: 'ignore' });
    const exited = new Promise((resolve) => parent.once('exit', resolve));

    const child = await parseProcessOf(parent.pid as number);
    parent.kill('SIGKILL');
    await exited;
    const gone = await waitUntilGone(child, 10_000);
    if (!gone) process.kill(child, 'SIGKILL');

    expect(gone).toBe(true);
  });
});

/**
 * Node's arguments to run the ES module `body` with `-e`. A copy of it started again by a
 * child that was handed this process's flags exits 3 at once: a regression then fails the
 * test with that exit instead of forking without end.
 */
function nodeEval(body: string): string[] {
  const guard = `if (process.env.EDGESYNC_TEST_EVAL === '1') process.exit(3);
    process.env.EDGESYNC_TEST_EVAL = '1';`;
  return ['--input-type=module', '-e', `${guard}\n${body}`];
}

/** State letter and parent pid of `pid` from /proc (Linux); undefined once it is gone. */
function procStat(pid: number | string): { state: string; ppid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After "pid (comm) ": the state, then the parent's pid. comm may hold spaces and ')'.
    const [state = '', ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state, ppid: Number(ppid) };
  } catch {
    return undefined;
  }
}

/** True once `pid` no longer runs (a zombie counts as gone), false after `timeoutMs`. */
async function waitUntilGone(pid: number, timeoutMs: number): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
    const stat = procStat(pid);
    if (stat === undefined || stat.state === 'Z') return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

/** The pid of `parent`'s parse process, once it has started (Linux: /proc). */
async function parseProcessOf(parent: number): Promise<number> {
  for (let tries = 0; tries < 200; tries += 1) {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry) || procStat(entry)?.ppid !== parent) continue;
      try {
        if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('parse-worker.js')) return Number(entry);
      } catch {
        // The process ended while we looked.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no parse process started');
}
