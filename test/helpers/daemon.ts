/**
 * Daemon fixtures: a small desired-state directory that matches TEST_SEED, an in-process
 * `edgesync run` (runCli with an AbortController as io.signal, stdout parsed as JSON lines),
 * real HTTP helpers for its routes, and polling with a deadline.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CliIo } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/program.js';
import { signBody } from '../../src/daemon/signatures.js';
import { writeTree } from './temp-dir.js';

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
export async function runDaemon(
  args: readonly string[],
  env: Record<string, string>,
): Promise<InProcessDaemon> {
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

/** Common flags of the daemon tests: loopback, a schedule that never fires in a test, a short debounce. */
export function daemonArgs(options: {
  config: string;
  stateDir: string;
  baseUrl: string;
  extra?: readonly string[];
}): string[] {
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
    ...(options.extra ?? []),
  ];
}
