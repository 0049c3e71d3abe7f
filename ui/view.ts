/**
 * The status page's view data: pure functions from the `/status` document to what each part
 * of the page shows (docs/daemon.md, Status page). No DOM here, so the unit tests run them in
 * Node and the page (app.ts) only draws their output.
 */
import type {
  ResourceShape,
  RunChangeShape,
  RunShape,
  StatusErrorShape,
  StatusShape,
} from './status-shape.js';

/** How a value looks: the page maps each tone to a colour and an icon-free label. */
export type Tone = 'ok' | 'warn' | 'bad' | 'info' | 'muted';

export interface Health {
  readonly label: 'Ready' | 'Degraded' | 'Stalled' | 'Standby' | 'Starting';
  readonly tone: Tone;
  /** One sentence: why this health. */
  readonly detail: string;
  /** True while a run is in progress (`status: Reconciling`). */
  readonly reconciling: boolean;
}

/** The resource states in the order the page lists them, with their tones. */
const STATES: ReadonlyArray<{ readonly state: string; readonly label: string; readonly tone: Tone }> = [
  { state: 'in-sync', label: 'In sync', tone: 'ok' },
  { state: 'pending', label: 'Pending', tone: 'info' },
  { state: 'report-only', label: 'Report only', tone: 'warn' },
  { state: 'suspended', label: 'Suspended', tone: 'muted' },
  { state: 'failed', label: 'Failed', tone: 'bad' },
];

export function stateLabel(state: string): string {
  return STATES.find((s) => s.state === state)?.label ?? state;
}

export function stateTone(state: string): Tone {
  return STATES.find((s) => s.state === state)?.tone ?? 'muted';
}

/** Standby, then Stalled, Degraded, Starting (not loaded yet) and Ready, as docs/daemon.md orders them. */
export function healthOf(doc: StatusShape): Health {
  const reconciling = doc.status === 'Reconciling';
  if (doc.role === 'standby') {
    return {
      label: 'Standby',
      tone: 'info',
      detail: `Another edgesync leads the state store${leaderText(doc.leader)}; this one writes nothing until it leads.`,
      reconciling,
    };
  }
  if (doc.status === 'Stalled' || doc.issues.length > 0) {
    const n = doc.issues.length;
    return {
      label: 'Stalled',
      tone: 'bad',
      detail: `The desired state does not validate (${n} ${n === 1 ? 'problem' : 'problems'}); nothing is written until the files change.`,
      reconciling,
    };
  }
  if (doc.degraded) {
    const failed = doc.counts.failed ?? 0;
    return {
      label: 'Degraded',
      tone: 'warn',
      detail:
        failed > 0
          ? `${failed} ${failed === 1 ? 'resource is' : 'resources are'} failed.`
          : `The last run failed${doc.lastError === null ? '' : `: ${doc.lastError.code}`}.`,
      reconciling,
    };
  }
  if (!doc.ready) {
    return { label: 'Starting', tone: 'info', detail: 'The desired state has not loaded yet.', reconciling };
  }
  const differing = (doc.counts['report-only'] ?? 0) + (doc.counts.suspended ?? 0);
  const detail =
    differing === 0
      ? 'Nothing is failed.'
      : `Nothing is failed; ${differing} ${differing === 1 ? 'resource differs' : 'resources differ'} from the YAML and edgesync does not write ${differing === 1 ? 'it' : 'them'} (report-only or suspended).`;
  return { label: 'Ready', tone: 'ok', detail, reconciling };
}

/** A revision short enough for a table: a commit's first 12 hex digits, `config:` digests whole. */
export function shortRevision(revision: string | null | undefined): string {
  if (revision === null || revision === undefined) return '—';
  return /^[0-9a-f]{40}$/.test(revision) ? revision.slice(0, 12) : revision;
}

/** `5 s ago`, `in 3 min`, `2 h ago`, `4 d ago`; `—` for none. */
export function relativeTime(iso: string | null | undefined, now: number): string {
  if (iso === null || iso === undefined) return '—';
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return '—';
  const seconds = Math.round((at - now) / 1000);
  const magnitude = Math.abs(seconds);
  const text =
    magnitude < 60
      ? `${magnitude} s`
      : magnitude < 3600
        ? `${Math.round(magnitude / 60)} min`
        : magnitude < 86_400
          ? `${Math.round(magnitude / 3600)} h`
          : `${Math.round(magnitude / 86_400)} d`;
  if (magnitude < 1) return 'now';
  return seconds < 0 ? `${text} ago` : `in ${text}`;
}

/** `850 ms`, `4.2 s`, `3 min 5 s`. */
function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

interface OverviewItem {
  readonly label: string;
  readonly value: string;
  /** ISO time behind a relative value, for a tooltip and `<time datetime>`. */
  readonly at?: string;
  readonly tone?: Tone;
}

export interface Overview {
  readonly health: Health;
  readonly items: readonly OverviewItem[];
  readonly counts: ReadonlyArray<{
    readonly state: string;
    readonly label: string;
    readonly tone: Tone;
    readonly count: number;
  }>;
  readonly total: number;
  readonly lastError: StatusErrorShape | null;
  readonly issues: ReadonlyArray<{ readonly location: string; readonly message: string }>;
  /** What a held plan would delete, when one waits for its settle run. */
  readonly held: readonly string[];
}

export function overviewOf(doc: StatusShape, now: number): Overview {
  const items: OverviewItem[] = [
    { label: 'Revision applied', value: shortRevision(doc.lastAppliedRevision) },
    { label: 'Revision attempted', value: shortRevision(doc.lastAttemptedRevision) },
  ];
  const lastRun = doc.runs[0];
  if (lastRun !== undefined) {
    items.push({
      label: 'Last run',
      value: `${lastRun.result}, ${lastRun.trigger}, ${relativeTime(lastRun.startedAt, now)}`,
      at: lastRun.startedAt,
      tone: resultTone(lastRun.result),
    });
  }
  if (doc.lastSuccessAt === null) items.push({ label: 'Last success', value: 'none yet', tone: 'muted' });
  else
    items.push({ label: 'Last success', value: relativeTime(doc.lastSuccessAt, now), at: doc.lastSuccessAt });
  const hold = doc.settleHold ?? null;
  if (hold === null) items.push({ label: 'Settle hold', value: 'none', tone: 'muted' });
  else {
    items.push({
      label: 'Settle hold',
      value: `deletions wait, settle run ${relativeTime(hold.settleAt, now)}`,
      at: hold.settleAt,
      tone: 'warn',
    });
  }
  if (doc.retry === null) items.push({ label: 'Retry', value: 'none', tone: 'muted' });
  else {
    items.push({
      label: 'Retry',
      value: `attempt ${doc.retry.attempt} ${relativeTime(doc.retry.at, now)} after ${doc.retry.code}`,
      at: doc.retry.at,
      tone: 'warn',
    });
  }
  const counts = STATES.map((s) => ({ ...s, count: doc.counts[s.state] ?? 0 }));
  const held =
    hold === null
      ? []
      : [
          ...hold.deletions.map((d) =>
            d.fields.length === 0 ? `${d.subject} (${d.action})` : `${d.subject}: ${d.fields.join(', ')}`,
          ),
          ...(hold.deletionsOmitted > 0 ? [`… ${hold.deletionsOmitted} more`] : []),
        ];
  return {
    health: healthOf(doc),
    items,
    counts,
    total: doc.resources.length,
    lastError: doc.lastError,
    issues: doc.issues.map((issue) => ({ location: issue.location ?? '', message: issue.message ?? '' })),
    held,
  };
}

/** The resource filters; empty string means any. */
export interface ResourceFilter {
  readonly kind: string;
  readonly state: string;
  readonly zone: string;
  readonly text: string;
}

export const NO_FILTER: ResourceFilter = { kind: '', state: '', zone: '', text: '' };

export interface FilterOptions {
  readonly kinds: readonly string[];
  readonly states: ReadonlyArray<{ readonly value: string; readonly label: string }>;
  readonly zones: readonly string[];
}

function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}

/** The values each filter offers: the kinds, states and zones present. */
export function filterOptionsOf(resources: readonly ResourceShape[]): FilterOptions {
  const present = new Set(resources.map((r) => r.state));
  return {
    kinds: sortedUnique(resources.map((r) => r.kind)),
    states: STATES.filter((s) => present.has(s.state)).map((s) => ({ value: s.state, label: s.label })),
    zones: sortedUnique(resources.flatMap((r) => (r.zone === null || r.zone === undefined ? [] : [r.zone]))),
  };
}

/** The resources that pass every filter; the text matches subject, source and error, any case. */
export function filterResources(
  resources: readonly ResourceShape[],
  filter: ResourceFilter,
): ResourceShape[] {
  const words = filter.text.toLowerCase().split(/\s+/).filter(Boolean);
  return resources.filter((r) => {
    if (filter.kind !== '' && r.kind !== filter.kind) return false;
    if (filter.state !== '' && r.state !== filter.state) return false;
    if (filter.zone !== '' && (r.zone ?? '') !== filter.zone) return false;
    if (words.length === 0) return true;
    const haystack = [r.subject, r.source, r.zone ?? '', r.lastError?.code ?? '', r.lastError?.message ?? '']
      .join(' ')
      .toLowerCase();
    return words.every((word) => haystack.includes(word));
  });
}

/** Plain words for a drift cause. */
export function causeLabel(cause: string): string {
  switch (cause) {
    case 'desired-changed':
      return 'the YAML changed';
    case 'out-of-band':
      return 'changed outside edgesync';
    default:
      return 'unknown (no earlier apply recorded)';
  }
}

export interface RunItem {
  /** Stable across polls: the page keeps an opened run open. */
  readonly key: string;
  readonly trigger: string;
  readonly startedAt: string;
  readonly duration: string;
  readonly result: string;
  readonly tone: Tone;
  readonly revision: string;
  /** `2 applied, 1 failed`; zero counts left out. */
  readonly counts: string;
  readonly changes: readonly RunChangeShape[];
  readonly changesOmitted: number;
  readonly error: string | null;
}

function resultTone(result: string): Tone {
  if (result === 'success') return 'ok';
  if (result === 'deferred') return 'warn';
  return 'bad';
}

/** The runs newest first (as /status lists them), with their counts as words. */
export function runItemsOf(runs: readonly RunShape[]): RunItem[] {
  return runs.map((run) => ({
    key: `${run.startedAt} ${run.trigger}`,
    trigger: run.trigger,
    startedAt: run.startedAt,
    duration: duration(run.durationMs),
    result: run.result,
    tone: resultTone(run.result),
    revision: shortRevision(run.revision),
    counts:
      Object.entries(run.counts)
        .filter(([, n]) => n > 0)
        .map(([name, n]) => `${n} ${name}`)
        .join(', ') || 'no changes',
    changes: run.changes ?? [],
    changesOmitted: run.changesOmitted ?? 0,
    error: run.error ?? null,
  }));
}

/** A cell of a generic table (unclaimed objects, apps): the value as text. */
/** ` (pid 7 on host a, since …)`, or nothing while the leader is unknown. */
function leaderText(leader: StatusShape['leader']): string {
  if (leader === undefined || leader === null) return '';
  const who = [
    leader.pid === undefined ? undefined : `pid ${leader.pid}`,
    leader.host === undefined ? undefined : `on host ${leader.host}`,
    leader.since === undefined ? undefined : `since ${leader.since}`,
  ].filter((part) => part !== undefined);
  return who.length === 0 ? '' : ` (${who.join(' ')})`;
}

function cellText(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

export interface GenericTable {
  readonly columns: readonly string[];
  readonly rows: ReadonlyArray<readonly string[]>;
}

/**
 * A table of records whose fields the page does not know in advance (unclaimed objects,
 * app health): the preferred columns first when present, then any other scalar field.
 */
export function genericTable(
  records: ReadonlyArray<Readonly<Record<string, unknown>>>,
  preferred: readonly string[],
): GenericTable {
  const seen = new Set<string>();
  for (const record of records) for (const key of Object.keys(record)) seen.add(key);
  const columns = [
    ...preferred.filter((key) => seen.has(key)),
    ...[...seen].filter((key) => !preferred.includes(key)),
  ];
  return { columns, rows: records.map((record) => columns.map((key) => cellText(record[key]))) };
}

/** Column titles from field names: `shieldZoneId` → `Shield zone id`. */
export function columnTitle(key: string): string {
  const words = key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
