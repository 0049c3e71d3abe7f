/**
 * The world of an in-process CLI test: a fresh emulator, a config directory written from
 * `files`, its own state directory, and the environment that points `cli()` at all three.
 * Each test gets its own state directory: the default location would be shared between tests
 * and outlive them.
 */
import type { Emulator, EmulatorSeed } from '../../src/emulator/index.js';
import { TEST_KEY, TEST_SEED, withEmulator } from './emulator.js';
import { tempDir, writeTree } from './temp-dir.js';

const DOC = 'apiVersion: edgesync/v1\n';

/** The emulator's rule 1234 with another operator (it is DETECTSQLI there): one drifted field. */
export const DRIFTED_RULE_DOC = `${DOC}kind: WafCustomRule
metadata: { name: block-sqli }
spec:
  id: 1234
  shieldZoneId: 42
  ruleName: Block SQLi
  ruleConfiguration:
    actionType: Block
    operatorType: RX
    variableTypes: { REQUEST_URI: "", ARGS: "" }
`;

/** The emulator's two DNS zones: example-com drifted (DNSSEC is on there), example-org in sync. */
export const DNS_ZONES_DOC = `${DOC}kind: DnsZone
metadata: { name: example-com }
spec: { id: 12345, dnssec: false }
---
${DOC}kind: DnsZone
metadata: { name: example-org }
spec: { id: 12346, dnssec: false }
`;

/** The emulator's access list 9001 with other entries: its content drifted. */
export const DRIFTED_LIST_DOC = `${DOC}kind: AccessList
metadata: { name: office }
spec:
  shieldZoneId: 42
  id: 9001
  entries: [203.0.113.0/24, 198.51.100.7, 192.0.2.10]
`;

/** One CLI test's emulator, directories and environment. */
export interface CliSession {
  emu: Emulator;
  config: string;
  stateDir: string;
  env: Record<string, string>;
}

/** Starts an emulator on port 0 seeded with `seed` and writes `files` as the config directory. */
export async function cliSession(
  files: Readonly<Record<string, string>>,
  seed: EmulatorSeed = TEST_SEED,
): Promise<CliSession> {
  const emu = await withEmulator(seed);
  const config = writeTree(tempDir(), files);
  const stateDir = tempDir();
  const env = {
    EDGESYNC_ACCESS_KEY: TEST_KEY,
    EDGESYNC_BASE_URL: emu.url,
    EDGESYNC_CONFIG: config,
    EDGESYNC_STATE_DIR: stateDir,
  };
  return { emu, config, stateDir, env };
}
