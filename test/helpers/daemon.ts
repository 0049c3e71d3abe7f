/**
 * Daemon fixtures: a small desired-state directory that matches TEST_SEED, an in-process
 * `edgesync run` (runCli with an AbortController as io.signal, stdout parsed as JSON lines),
 * real HTTP helpers for its routes, polling with a deadline, and `useDaemonFixture` (a fresh
 * emulator and directory per test, every daemon stopped after it).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/program.js';
import type { DaemonOptions } from '../../src/daemon/daemon.js';
import { signBody } from '../../src/daemon/signatures.js';
import type { DaemonPhase, StatusDocument } from '../../src/daemon/status.js';
import { type Emulator, type EmulatorSeed, startEmulator } from '../../src/emulator/index.js';
import { createLogger } from '../../src/log.js';
import { fileBackend } from '../../src/state/file-backend.js';
import { TEST_KEY, TEST_SEED } from './emulator.js';
import { tempDir, writeTree } from './temp-dir.js';

/** A daemon log line (pino JSON). */
export interface LogLine {
  readonly level: string;
  readonly event?: string;
  readonly msg: string;
  readonly [key: string]: unknown;
}

/** WafCustomRule/block-sqli as TEST_SEED has it (in sync), in its own file. */
export const RULE_YAML = `apiVersion: edgesync/v1
kind: WafCustomRule
metadata:
  name: block-sqli
spec:
  id: 1234
  shieldZoneId: 42
  ruleName: Block SQLi
  ruleDescription: SQL injection
  ruleConfiguration:
    actionType: Block
    operatorType: DETECTSQLI
    severityType: CRITICAL
    variableTypes: { REQUEST_URI: "", ARGS: "" }
    transformationTypes: [URLDECODE, LOWERCASE]
    value: ""
    isNegated: false
`;

/** The two DNS zones of TEST_SEED, as they are (example-com signed, example-org not). */
export function dnsYaml(exampleOrgDnssec = false): string {
  return `apiVersion: edgesync/v1
kind: DnsZone
metadata:
  name: example-com
spec:
  id: 12345
  dnssec: true
---
apiVersion: edgesync/v1
kind: DnsZone
metadata:
  name: example-org
spec:
  id: 12346
  dnssec: ${exampleOrgDnssec}
`;
}

/** The test config: one rule and two DNS zones, all in sync with TEST_SEED. */
export function writeDaemonConfig(dir: string): string {
  return writeTree(dir, { 'shield/rules.yaml': RULE_YAML, 'dns/zones.yaml': dnsYaml() });
}

/** The rule file with another ruleName (a desired change of WafCustomRule/block-sqli). */
export function ruleYaml(ruleName: string): string {
  return RULE_YAML.replace('ruleName: Block SQLi', `ruleName: ${ruleName}`);
}

/**
 * A new temporary root with the test config in `root/config` (writeDaemonConfig); with `rule`,
 * the rule is renamed to it (a change the start-up run applies).
 */
export function daemonConfigIn(rule?: string): { root: string; config: string } {
  const root = tempDir();
  const config = writeDaemonConfig(join(root, 'config'));
  if (rule !== undefined) edit(config, 'shield/rules.yaml', ruleYaml(rule));
  return { root, config };
}

/** Replaces a file's content (a plain write, like an editor's save). */
export function edit(dir: string, file: string, content: string): void {
  writeFileSync(join(dir, file), content);
}

/** Polls `check` every 10 ms until it returns a value other than undefined/false, or throws at the deadline. */
export async function until<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** An in-process `edgesync run`. */
export interface InProcessDaemon {
  /** The daemon's HTTP base URL (from the `daemon.started` line). */
  readonly url: string;
  /** Every stdout line, parsed. */
  lines(): LogLine[];
  /** Lines with this `event`. */
  events(event: string): LogLine[];
  /** Everything written to stdout and stderr. */
  output(): string;
  /** Waits for the n-th (1-based) line with `event` matching `filter`, and returns it. */
  waitForEvent(
    event: string,
    filter?: (line: LogLine) => boolean,
    nth?: number,
    timeoutMs?: number,
  ): Promise<LogLine>;
  /** Aborts io.signal (SIGTERM) and resolves with the exit code. */
  stop(): Promise<number>;
  readonly exit: Promise<number>;
}

/** Starts `edgesync run <args>` in-process and waits until it listens. */
async function runDaemon(args: readonly string[], env: Record<string, string>): Promise<InProcessDaemon> {
  let stdout = '';
  let stderr = '';
  const controller = new AbortController();
  const io: CliIo = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env,
    cwd: process.cwd(),
    signal: controller.signal,
  };
  let exited: number | undefined;
  const exit = runCli(['run', ...args], io).then((code) => {
    exited = code;
    return code;
  });
  const lines = (): LogLine[] =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
  const events = (event: string): LogLine[] => lines().filter((line) => line.event === event);
  const started = await until(() => {
    if (exited !== undefined) throw new Error(`edgesync run exited ${exited}:\n${stdout}${stderr}`);
    return events('daemon.started')[0];
  }, 'daemon.started');
  return {
    url: String(started.listen),
    lines,
    events,
    output: () => stdout + stderr,
    waitForEvent: (event, filter = () => true, nth = 1, timeoutMs = 10_000) =>
      until(() => events(event).filter(filter)[nth - 1], `${event} #${nth}`, timeoutMs),
    async stop() {
      controller.abort();
      return exit;
    },
    exit,
  };
}

/** A reply of the daemon's HTTP server. */
export interface HttpReply {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

/** One real HTTP request. */
export async function request(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<HttpReply> {
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    ...(init.headers === undefined ? {} : { headers: init.headers }),
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** POSTs `body` to `/hooks/generic` signed with `secret` (or with the given signature header). */
export function genericHook(
  url: string,
  body: string,
  secret: string | { signature?: string },
): Promise<HttpReply> {
  const signature = typeof secret === 'string' ? signBody(secret, body) : secret.signature;
  return request(`${url}/hooks/generic`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(signature === undefined ? {} : { 'x-signature': signature }),
    },
    body,
  });
}

/** POSTs a GitHub delivery of `event` to `/hooks/github`, signed with `secret`. */
export function githubHook(url: string, event: string, body: string, secret: string): Promise<HttpReply> {
  return request(`${url}/hooks/github`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      'x-hub-signature-256': signBody(secret, body),
    },
    body,
  });
}

/**
 * `startDaemon`'s options for a test that calls it directly: loopback, a schedule that never
 * fires, a short debounce, reconcile settings as `edgesync run`'s defaults, and every log line
 * pushed to `lines`. `overrides` replace any of them.
 */
export function inProcessDaemonOptions(
  options: { configPath: string; stateDir: string; api: DaemonOptions['api']; lines: LogLine[] },
  overrides: Partial<DaemonOptions> = {},
): DaemonOptions {
  return {
    configPath: options.configPath,
    state: fileBackend(options.stateDir),
    stateDir: options.stateDir,
    api: options.api,
    concurrency: 4,
    maxChangePercent: 30,
    force: false,
    driftMode: 'correct',
    schedule: '0 0 1 1 *',
    listen: { host: '127.0.0.1', port: 0 },
    gitBranch: 'main',
    gitPull: false,
    debounceMs: 50,
    settleMs: 300,
    shutdownTimeoutMs: 5000,
    logger: createLogger({
      level: 'info',
      destination: { write: (line: string) => options.lines.push(JSON.parse(line) as LogLine) },
    }),
    version: 'test',
    ...overrides,
  };
}

/**
 * Common flags of the daemon tests: loopback, a schedule that never fires in a test, a short
 * debounce, a --settle-ms of `settleMs` (300 when not given; `'default'`: no flag, the daemon's own).
 */
export function daemonArgs(options: {
  config: string;
  stateDir: string;
  baseUrl: string;
  settleMs?: number | 'default';
  extra?: readonly string[];
}): string[] {
  const settleMs = options.settleMs ?? 300;
  return [
    '--config',
    options.config,
    '--state-dir',
    options.stateDir,
    '--base-url',
    options.baseUrl,
    '--listen',
    '127.0.0.1:0',
    '--schedule',
    '0 0 1 1 *',
    '--debounce-ms',
    '100',
    // Shorter than the default: a test's deletion need not wait a second of quiet to be applied.
    ...(settleMs === 'default' ? [] : ['--settle-ms', String(settleMs)]),
    ...(options.extra ?? []),
  ];
}

/** GET /status of a daemon (in-process, or any with a `url`), parsed. */
export async function statusOf(d: Pick<InProcessDaemon, 'url'>): Promise<StatusDocument> {
  return (await request(`${d.url}/status`)).json as StatusDocument;
}

/** Polls /status until it shows `phase`, and returns that document. */
export function untilStatus(d: Pick<InProcessDaemon, 'url'>, phase: DaemonPhase): Promise<StatusDocument> {
  return until(async () => {
    const doc = await statusOf(d);
    return doc.status === phase && doc;
  }, phase);
}

/** A webhook secret file (one secret a line) in a new temporary directory; returns its path. */
export function secretFile(...secrets: string[]): string {
  return join(writeTree(tempDir(), { secrets: `${secrets.join('\n')}\n` }), 'secrets');
}

/** How a fixture daemon differs from the default one. */
interface StartOptions {
  /** Flags after the common ones of `daemonArgs` (a repeated flag wins). */
  readonly extra?: readonly string[];
  /** The state directory; `<root>/state` by default. */
  readonly stateDir?: string;
  /** The daemon's whole environment; `EDGESYNC_ACCESS_KEY` with the fixture's key by default. */
  readonly env?: Record<string, string>;
}

/** What `useDaemonFixture` gives a test. */
export interface DaemonFixture {
  /** The current test's emulator. */
  readonly emu: Emulator;
  /** The current test's temporary directory. */
  readonly root: string;
  /** Starts `edgesync run` on `config` against the emulator and returns once it listens. */
  launch(config: string, options?: StartOptions): Promise<InProcessDaemon>;
  /** `launch`, then waits for the start-up run's `reconcile.finished`. */
  start(config: string, options?: StartOptions): Promise<InProcessDaemon>;
}

/**
 * Registers beforeEach/afterEach in the calling scope (a file's top level or a describe): each
 * test gets an emulator (seeded with `seed`, accepting `accessKey`) and a temporary `root`;
 * afterwards every daemon the test launched is stopped, then the emulator closed.
 */
export function useDaemonFixture(seed: EmulatorSeed = TEST_SEED, accessKey = TEST_KEY): DaemonFixture {
  let emu: Emulator | undefined;
  let root: string | undefined;
  const daemons: InProcessDaemon[] = [];

  beforeEach(async () => {
    emu = await startEmulator({ accessKey, seed });
    root = tempDir();
  });

  afterEach(async () => {
    try {
      for (const d of daemons.splice(0)) await d.stop();
    } finally {
      await emu?.close();
      emu = undefined;
      root = undefined;
    }
  });

  const fixture: DaemonFixture = {
    get emu() {
      if (emu === undefined) throw new Error('useDaemonFixture: emu exists only during a test');
      return emu;
    },
    get root() {
      if (root === undefined) throw new Error('useDaemonFixture: root exists only during a test');
      return root;
    },
    async launch(config, options = {}) {
      const args = daemonArgs({
        config,
        stateDir: options.stateDir ?? join(fixture.root, 'state'),
        baseUrl: fixture.emu.url,
        extra: options.extra ?? [],
      });
      const d = await runDaemon(args, options.env ?? { EDGESYNC_ACCESS_KEY: accessKey });
      daemons.push(d);
      return d;
    },
    async start(config, options = {}) {
      const d = await fixture.launch(config, options);
      await d.waitForEvent('reconcile.finished');
      return d;
    },
  };
  return fixture;
}
