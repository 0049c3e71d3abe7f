/**
 * Environment variables of a container: their desired values (literals, or secrets read from
 * `valueFrom` sources with the live state), how they differ from live, and their request items.
 *
 * A variable is sensitive when it comes from `valueFrom` or is marked `sensitive: true`; its
 * live twin is then sensitive too, and so is any variable whose name looks secret
 * (`looksSecret`). A sensitive value prints as `(sensitive)` on both sides of a diff — a
 * rotation still shows as a change of that variable — and travels in the request body as a
 * SensitiveValue, which only the API client's serialisation writes out (domain/sensitive.ts).
 *
 * A live value is printed only when edgesync can show it is not secret: the variable was a
 * plain, non-sensitive literal in what edgesync last applied (`appliedKinds`, kept in the
 * state), or it equals the desired literal. Sensitivity is not read from the new YAML alone:
 * a pull request that drops a `valueFrom` or `sensitive: true`, or renames the variable,
 * must not print the production value in its own plan (see docs/secrets.md, What is printed).
 */
import type { EnvironmentVariableRequest } from '../../api/wire/mc.js';
import { looksSecret, type SecretRead, secretSourceKey } from '../../domain/secret-sources.js';
import { revealed, SENSITIVE, SensitiveValue } from '../../domain/sensitive.js';
import type { ReadContext } from '../common/kind.js';
import type { FieldDiff } from '../types.js';
import { type ContainerAppSpec, type ContainerSpec, isSensitiveVariable } from './spec.js';

/** The values of an app's `valueFrom` sources, read with its live state, or why they could not be. */
export interface AppSecrets {
  /** Source key (`secretSourceKey`) → value. */
  readonly values: ReadonlyMap<string, string>;
  /** One message per variable whose source gave no value; never a value. */
  readonly problems: readonly string[];
}

/** No `valueFrom` anywhere: nothing read. */
export const NO_APP_SECRETS: AppSecrets = { values: new Map(), problems: [] };

/**
 * Reads every `valueFrom` of the app. A source named by several variables or apps is read
 * once per reconcile (`ctx.once`). Never throws.
 */
export async function readAppSecrets(spec: ContainerAppSpec, ctx: ReadContext): Promise<AppSecrets> {
  const values = new Map<string, string>();
  const problems: string[] = [];
  for (const container of spec.containerTemplates ?? []) {
    for (const variable of container.environmentVariables ?? []) {
      const source = variable.valueFrom;
      if (source === undefined) continue;
      const key = secretSourceKey(source);
      const read: SecretRead = await ctx.once(`secret:${key}`, () => ctx.secrets.read(source));
      if ('value' in read) values.set(key, read.value);
      else {
        problems.push(`environment variable ${variable.name} of container ${container.name}: ${read.error}`);
      }
    }
  }
  return problems.length === 0 && values.size === 0 ? NO_APP_SECRETS : { values, problems };
}

/** One declared variable as the plan sees it. */
export interface DesiredVariable {
  readonly name: string;
  /** The value to send; undefined when the YAML gives only the name (the live value is kept). */
  readonly value: string | undefined;
  /** Never printed: from valueFrom, marked sensitive, or a secret-looking name. */
  readonly hidden: boolean;
  /** `env:NAME` / `file:PATH` of a `valueFrom`, `config` for a literal: a saved plan's reference. */
  readonly source: string;
}

/** The declared variables of a container with their values (secrets resolved). */
export function desiredVariables(
  container: ContainerSpec,
  secrets: AppSecrets,
): DesiredVariable[] | undefined {
  return container.environmentVariables?.map((v) => ({
    name: v.name,
    value: v.valueFrom === undefined ? v.value : secrets.values.get(secretSourceKey(v.valueFrom)),
    hidden: isSensitiveVariable(v) || looksSecret(v.name),
    source: v.valueFrom === undefined ? 'config' : secretSourceKey(v.valueFrom),
  }));
}

type LiveVariable = Readonly<EnvironmentVariableRequest>;

/**
 * How each declared variable of a container was last applied, by name: `literal` for a plain,
 * non-sensitive value of the YAML, `sensitive` for everything else. Never a value.
 */
export type VariableKinds = Readonly<Record<string, 'literal' | 'sensitive'>>;

/** What the state keeps of a container's declared variables once applied (never a value). */
export function appliedKinds(container: ContainerSpec): VariableKinds | undefined {
  const variables = container.environmentVariables;
  if (variables === undefined) return undefined;
  return Object.fromEntries(
    variables.map((v) => [
      v.name,
      v.valueFrom === undefined && v.value !== undefined && !isSensitiveVariable(v) && !looksSecret(v.name)
        ? 'literal'
        : 'sensitive',
    ]),
  );
}

/** Where an app's remembered record (`KindPlan.remember`) keeps the kinds, by container. */
export const REMEMBERED_ENVIRONMENT = 'environment';
/** And the app's id beside them: `export --app ID` looks the record up by it. */
export const REMEMBERED_APP_ID = 'appId';

/** The recorded kinds of one container of an app's remembered record; undefined when unknown. */
export function rememberedKinds(
  remembered: Readonly<Record<string, unknown>> | undefined,
  container: string,
): VariableKinds | undefined {
  const environment = remembered?.[REMEMBERED_ENVIRONMENT];
  if (typeof environment !== 'object' || environment === null) return undefined;
  const kinds = (environment as Record<string, unknown>)[container];
  return typeof kinds === 'object' && kinds !== null ? (kinds as VariableKinds) : undefined;
}

function shown(value: string | undefined, hidden: boolean): string | undefined {
  return value === undefined || !hidden ? value : SENSITIVE;
}

/**
 * How a live value prints: as it is only when it was a plain literal of the last apply (and
 * neither the desired variable nor its name says secret), or when the desired literal is
 * the same text; `(sensitive)` otherwise.
 */
function shownLive(
  name: string,
  value: string,
  desired: DesiredVariable | undefined,
  applied: VariableKinds | undefined,
): string {
  if (desired?.hidden === true || looksSecret(name)) return SENSITIVE;
  if (applied?.[name] === 'literal') return value;
  return desired?.value === value ? value : SENSITIVE;
}

/**
 * Appends a diff per declared variable that is new or whose declared value differs, and one
 * per live variable the YAML no longer lists (the request replaces the whole list).
 */
export function diffVariables(
  desired: readonly DesiredVariable[],
  live: readonly LiveVariable[],
  applied: VariableKinds | undefined,
  path: string,
  out: FieldDiff[],
): void {
  const liveByName = new Map(live.map((v) => [v.name, revealed(v.value)]));
  const declared = new Set<string>();
  for (const d of desired) {
    declared.add(d.name);
    const itemPath = `${path}[${d.name}]`;
    const liveValue = liveByName.get(d.name);
    if (liveValue === undefined) {
      out.push({ path: itemPath, live: undefined, desired: shown(d.value ?? '', d.hidden) });
    } else if (d.value !== undefined && d.value !== liveValue) {
      out.push({
        path: itemPath,
        live: shownLive(d.name, liveValue, d, applied),
        desired: shown(d.value, d.hidden),
      });
    }
  }
  for (const l of live) {
    if (!declared.has(l.name)) {
      out.push({
        path: `${path}[${l.name}]`,
        live: shownLive(l.name, revealed(l.value), undefined, applied),
        desired: undefined,
      });
    }
  }
}

/**
 * The request items: the declared variables in YAML order (a name-only one keeps its live
 * value), or the live list as it is when the YAML declares none. Only a declared literal that
 * is neither sensitive nor secret-looking travels as a plain string: every other value —
 * secrets, and live values edgesync merely passes back — is a SensitiveValue, so printing the
 * request (`plan --json`) shows none of them.
 */
export function variableRequests(
  desired: readonly DesiredVariable[] | undefined,
  live: readonly LiveVariable[] | undefined,
): EnvironmentVariableRequest[] | undefined {
  if (desired === undefined) {
    return live?.map((v) => ({ name: v.name, value: new SensitiveValue(revealed(v.value), 'live') }));
  }
  const liveByName = new Map((live ?? []).map((v) => [v.name, revealed(v.value)]));
  return desired.map((d) => {
    const value = d.value ?? liveByName.get(d.name) ?? '';
    const source = d.value === undefined ? 'live' : d.source;
    return {
      name: d.name,
      value: d.hidden || d.value === undefined ? new SensitiveValue(value, source) : value,
    };
  });
}

/**
 * What the keyed digest of an app covers besides its loader digest: every resolved sensitive
 * value, by container and name. A rotated secret changes it (`desired-changed`); an edit of
 * the live value alone does not (`out-of-band`).
 */
export function sensitiveMaterial(spec: ContainerAppSpec, secrets: AppSecrets): string {
  const parts: [string, string, string][] = [];
  for (const container of spec.containerTemplates ?? []) {
    for (const variable of container.environmentVariables ?? []) {
      if (variable.valueFrom === undefined) continue;
      parts.push([
        container.name,
        variable.name,
        secrets.values.get(secretSourceKey(variable.valueFrom)) ?? '',
      ]);
    }
  }
  return JSON.stringify(parts);
}
