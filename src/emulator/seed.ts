/**
 * The seed file: parsing YAML, validating it against the schema (`seed-schema.ts`), loading
 * it into a state (`seed-populate.ts`), and reporting every problem at once as
 * `file:line:col: message (at path)`.
 */
import { readFile } from 'node:fs/promises';
import type { Document } from 'yaml';
import { LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import { defaultOptimalRegion, defaultRegions, defaultWafCatalog } from './defaults.js';
import type { RawIssue } from './seed-populate.js';
import { populate } from './seed-populate.js';
import type { EmulatorSeed, ParsedSeed } from './seed-schema.js';
import { EmulatorSeedSpec } from './seed-schema.js';
import { EmulatorState } from './store.js';
import { fieldPath } from './validation/issues.js';

export type { EmulatorSeed } from './seed-schema.js';

/** One problem in a seed, with its position when the seed came from text. */
export interface SeedIssue {
  path: string;
  message: string;
  line?: number;
  col?: number;
}

/** A seed that does not validate; `message` lists every issue, one per line. */
export class SeedError extends Error {
  readonly issues: readonly SeedIssue[];

  constructor(source: string, issues: readonly SeedIssue[]) {
    const lines = issues.map((i) =>
      i.line === undefined
        ? `${source}: ${i.message} (at ${i.path})`
        : `${source}:${i.line}:${i.col}: ${i.message} (at ${i.path})`,
    );
    super(`invalid emulator seed:\n${lines.join('\n')}`);
    this.name = 'SeedError';
    this.issues = issues;
  }
}

function zodIssues(error: z.ZodError): RawIssue[] {
  const out: RawIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        out.push({ path: [...issue.path, key], message: `unknown field '${key}'` });
    } else {
      out.push({ path: [...issue.path], message: issue.message });
    }
  }
  return out;
}

function locate(doc: Document | undefined, lineCounter: LineCounter | undefined, issue: RawIssue): SeedIssue {
  const out: SeedIssue = { path: fieldPath(issue.path), message: issue.message };
  if (doc === undefined || lineCounter === undefined) return out;
  // A missing key has no node: walk up until something exists, and point there.
  for (let depth = issue.path.length; depth >= 0; depth -= 1) {
    const node = doc.getIn(issue.path.slice(0, depth), true) as
      | { range?: [number, number, number] }
      | undefined;
    if (node?.range !== undefined) {
      const pos = lineCounter.linePos(node.range[0]);
      out.line = pos.line;
      out.col = pos.col;
      break;
    }
  }
  return out;
}

function validate(
  input: unknown,
  source: string,
  doc?: Document,
  lineCounter?: LineCounter,
): { seed: ParsedSeed; state: EmulatorState } | never {
  const parsed = EmulatorSeedSpec.safeParse(input ?? {});
  if (!parsed.success) {
    throw new SeedError(
      source,
      zodIssues(parsed.error).map((i) => locate(doc, lineCounter, i)),
    );
  }
  const state = newState();
  const issues = populate(parsed.data, state);
  if (issues.length > 0)
    throw new SeedError(
      source,
      issues.map((i) => locate(doc, lineCounter, i)),
    );
  return { seed: parsed.data, state };
}

function newState(): EmulatorState {
  return new EmulatorState({
    optimalRegion: defaultOptimalRegion(),
    regions: defaultRegions(),
    wafCatalog: defaultWafCatalog(),
  });
}

/**
 * Parses and validates seed YAML. Throws SeedError listing every problem as
 * `sourceName:line:col: message (at path)`. An empty document is an empty seed.
 */
export function parseSeed(text: string, sourceName: string): EmulatorSeed {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new SeedError(
      sourceName,
      doc.errors.map((e) => {
        const issue: SeedIssue = { path: '$', message: e.message.split('\n')[0] ?? e.message };
        const pos = e.linePos?.[0];
        if (pos !== undefined) {
          issue.line = pos.line;
          issue.col = pos.col;
        }
        return issue;
      }),
    );
  }
  return validate(doc.toJS(), sourceName, doc, lineCounter).seed;
}

/**
 * Where `edgesync run --emulator` looks for the account it emulates, relative to the config
 * directory (the loader ignores dot folders).
 */
export const EMULATOR_SEED_PATH = '.emulator/seed.yaml';

/** Reads and parses a seed file; errors name the file (and line) at fault. */
export async function loadSeedFile(path: string): Promise<EmulatorSeed> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new SeedError(path, [
      { path: '$', message: `cannot read the seed file: ${(err as Error).message}` },
    ]);
  }
  return parseSeed(text, path);
}

/** A state built from a seed given in code (validated the same way; errors carry paths only). */
export function stateFromSeed(seed: EmulatorSeed | undefined): EmulatorState {
  return validate(seed ?? {}, 'seed').state;
}
