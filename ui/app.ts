/**
 * The status page in the browser: polls `/status` (an unchanged document answers 304) and
 * draws the view data of view.ts. Read-only: nothing here sends anything but GET /status.
 * Every text from the document goes in as a text node, never as HTML: names, messages and
 * paths come from YAML files and API replies, and are shown, not interpreted.
 */
import type { ResourceShape, StatusShape } from './status-shape.js';
import {
  causeLabel,
  columnTitle,
  filterOptionsOf,
  filterResources,
  genericTable,
  NO_FILTER,
  overviewOf,
  type ResourceFilter,
  relativeTime,
  runItemsOf,
  stateLabel,
  stateTone,
  type Tone,
} from './view.js';

const POLL_MS = 2000;
/** Rows drawn at most: 10,000 resources would make the page slow; the filters narrow it. */
const MAX_ROWS = 500;
const VIEWS = ['overview', 'resources', 'runs', 'unclaimed', 'apps'] as const;
type View = (typeof VIEWS)[number];

type Child = Node | string | null | undefined | false | readonly Child[];
type Attrs = Record<string, string | boolean | undefined | ((event: Event) => void)>;

/** An element with attributes, listeners (`on…`) and children; strings become text nodes. */
function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, '');
    else if (typeof value === 'string') element.setAttribute(name, value);
  }
  append(element, children);
  return element;
}

function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (typeof child === 'string') parent.appendChild(document.createTextNode(child));
    else if (Array.isArray(child)) append(parent, child as readonly Child[]);
    else parent.appendChild(child as Node);
  }
}

/** Replaces the element's children. */
function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

function byId<T extends HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`the page lacks #${id}`);
  return element as T;
}

function badge(text: string, tone: Tone): HTMLElement {
  return h('span', { class: `badge tone-${tone}` }, text);
}

/** A relative time that the ticker keeps current, with the exact time as its tooltip. */
function timeOf(iso: string | null | undefined): Child {
  if (iso === null || iso === undefined) return '—';
  return h(
    'time',
    { datetime: iso, title: new Date(iso).toLocaleString(), 'data-relative': '' },
    relativeTime(iso, Date.now()),
  );
}

interface PageState {
  doc: StatusShape | undefined;
  etag: string | undefined;
  receivedAt: number | undefined;
  failing: boolean;
  filter: ResourceFilter;
  expanded: Set<string>;
  openRuns: Set<string>;
}

const state: PageState = {
  doc: undefined,
  etag: undefined,
  receivedAt: undefined,
  failing: false,
  filter: NO_FILTER,
  expanded: new Set(),
  openRuns: new Set(),
};

function currentView(): View {
  const wanted = location.hash.replace(/^#/, '');
  return (VIEWS as readonly string[]).includes(wanted) ? (wanted as View) : 'overview';
}

function showView(): void {
  const view = currentView();
  for (const name of VIEWS) {
    byId(`view-${name}`).hidden = name !== view;
    const link = document.querySelector<HTMLAnchorElement>(`nav a[data-view="${name}"]`);
    if (link === null) continue;
    if (name === view) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

function drawHeader(doc: StatusShape): void {
  const { health } = overviewOf(doc, Date.now());
  document.title = `${health.label} · edgesync`;
  const target = byId('health');
  fill(
    target,
    badge(health.label, health.tone),
    health.reconciling ? h('span', { class: 'activity' }, 'reconciling…') : null,
  );
  byId('view-unclaimed-link').hidden = doc.unclaimed === undefined;
  byId('view-apps-link').hidden = doc.apps === undefined;
}

function drawOverview(doc: StatusShape): void {
  const overview = overviewOf(doc, Date.now());
  const { health } = overview;
  const goToState = (stateName: string) => () => {
    setFilter({ ...NO_FILTER, state: stateName });
    location.hash = '#resources';
  };
  fill(
    byId('overview'),
    h(
      'div',
      { class: `health-card tone-${health.tone}` },
      h('p', { class: 'health-label' }, health.label),
      h('p', {}, health.detail),
    ),
    h(
      'dl',
      { class: 'facts' },
      overview.items.map((item) =>
        h(
          'div',
          {},
          h('dt', {}, item.label),
          h(
            'dd',
            { class: item.tone === undefined ? undefined : `tone-text-${item.tone}` },
            item.at === undefined
              ? item.value
              : h('span', { title: new Date(item.at).toLocaleString() }, item.value),
          ),
        ),
      ),
    ),
    h('h3', {}, `Resources by state (${overview.total})`),
    h(
      'ul',
      { class: 'counts' },
      overview.counts.map((count) =>
        h(
          'li',
          {},
          h(
            'button',
            {
              type: 'button',
              class: `count tone-${count.tone}`,
              'data-key': `count:${count.state}`,
              'data-state': count.state,
              'aria-label': `${count.count} ${count.label}: show them`,
              onclick: goToState(count.state),
            },
            h('span', { class: 'count-number' }, String(count.count)),
            h('span', { class: 'count-label' }, count.label),
          ),
        ),
      ),
    ),
    overview.lastError === null
      ? null
      : h(
          'div',
          { class: 'error-box', role: 'note' },
          h('h3', {}, 'Last error'),
          h('p', {}, h('code', {}, overview.lastError.code), ' ', overview.lastError.message),
          h('p', { class: 'muted' }, timeOf(overview.lastError.at)),
        ),
    overview.issues.length === 0
      ? null
      : h(
          'div',
          { class: 'error-box' },
          h('h3', {}, 'Config problems'),
          h(
            'ul',
            {},
            overview.issues.map((issue) => h('li', {}, h('code', {}, issue.location), ' ', issue.message)),
          ),
        ),
    overview.held.length === 0
      ? null
      : h(
          'div',
          { class: 'warn-box' },
          h('h3', {}, 'Deletions held until the files settle'),
          h(
            'ul',
            {},
            overview.held.map((line) => h('li', {}, line)),
          ),
        ),
  );
}

function fillSelect(
  id: string,
  options: ReadonlyArray<{ value: string; label: string }>,
  value: string,
): void {
  const select = byId<HTMLSelectElement>(id);
  const wanted = [{ value: '', label: 'All' }, ...options];
  const same =
    select.options.length === wanted.length &&
    wanted.every((option, i) => select.options[i]?.value === option.value);
  if (!same) {
    select.replaceChildren(...wanted.map((option) => h('option', { value: option.value }, option.label)));
  }
  select.value = wanted.some((option) => option.value === value) ? value : '';
}

function setFilter(filter: ResourceFilter): void {
  state.filter = filter;
  byId<HTMLSelectElement>('filter-kind').value = filter.kind;
  byId<HTMLSelectElement>('filter-state').value = filter.state;
  byId<HTMLSelectElement>('filter-zone').value = filter.zone;
  byId<HTMLInputElement>('filter-text').value = filter.text;
  if (state.doc !== undefined) drawResources(state.doc);
}

function detailOf(resource: ResourceShape): HTMLElement {
  const diffs = resource.drift?.diffs ?? [];
  return h(
    'div',
    { class: 'detail' },
    h('p', {}, h('strong', {}, resource.subject), ' declared at ', h('code', {}, resource.source)),
    resource.drift === null
      ? h('p', { class: 'muted' }, 'Live equals desired: no field differs.')
      : [
          h('p', {}, 'Drift: ', h('strong', {}, causeLabel(resource.drift.cause))),
          h(
            'table',
            { class: 'diffs' },
            h('caption', {}, `Fields that differ on ${resource.subject}`),
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                h('th', { scope: 'col' }, 'Field'),
                h('th', { scope: 'col' }, 'Live'),
                h('th', { scope: 'col' }, 'Desired'),
              ),
            ),
            h(
              'tbody',
              {},
              (diffs.length > 0
                ? diffs
                : resource.drift.fields.map((path) => ({ path, live: '', desired: '' }))
              ).map((diff) =>
                h(
                  'tr',
                  {},
                  h('th', { scope: 'row' }, h('code', {}, diff.path)),
                  h('td', { 'data-label': 'Live' }, h('code', { class: 'live' }, diff.live)),
                  h('td', { 'data-label': 'Desired' }, h('code', { class: 'desired' }, diff.desired)),
                ),
              ),
            ),
          ),
        ],
    resource.lastError === null
      ? null
      : h(
          'p',
          { class: 'error-text' },
          h('code', {}, resource.lastError.code),
          ' ',
          resource.lastError.message,
        ),
  );
}

function drawResources(doc: StatusShape): void {
  const options = filterOptionsOf(doc.resources);
  fillSelect(
    'filter-kind',
    options.kinds.map((kind) => ({ value: kind, label: kind })),
    state.filter.kind,
  );
  fillSelect('filter-state', options.states, state.filter.state);
  fillSelect(
    'filter-zone',
    options.zones.map((zone) => ({ value: zone, label: zone })),
    state.filter.zone,
  );
  const shown = filterResources(doc.resources, state.filter);
  byId('resource-count').textContent =
    shown.length === doc.resources.length
      ? `${doc.resources.length} resources`
      : `${shown.length} of ${doc.resources.length} resources match`;
  const rows: HTMLElement[] = [];
  for (const resource of shown.slice(0, MAX_ROWS)) {
    const open = state.expanded.has(resource.subject);
    const detailId = `detail-${rows.length}`;
    rows.push(
      h(
        'tr',
        { 'data-subject': resource.subject, class: open ? 'open' : undefined },
        h('td', { 'data-label': 'Kind' }, resource.kind),
        h(
          'th',
          { scope: 'row', 'data-label': 'Name' },
          h(
            'button',
            {
              type: 'button',
              class: 'link',
              'aria-expanded': open ? 'true' : 'false',
              'aria-controls': detailId,
              'data-key': `resource:${resource.subject}`,
              onclick: () => {
                if (state.expanded.has(resource.subject)) state.expanded.delete(resource.subject);
                else state.expanded.add(resource.subject);
                redraw();
              },
            },
            resource.name,
          ),
        ),
        h('td', { 'data-label': 'Source' }, h('code', {}, resource.source)),
        h('td', { 'data-label': 'Zone' }, resource.zone ?? '—'),
        h(
          'td',
          { 'data-label': 'State' },
          badge(stateLabel(resource.state), stateTone(resource.state)),
          resource.drift === null ? null : h('span', { class: 'drift-note' }, ' drift'),
        ),
        h('td', { 'data-label': 'Last applied' }, timeOf(resource.lastAppliedAt)),
        h('td', { 'data-label': 'Last checked' }, timeOf(resource.lastCheckedAt)),
        h(
          'td',
          { 'data-label': 'Last error', class: 'error-cell' },
          resource.lastError === null
            ? '—'
            : h('code', { title: resource.lastError.message }, resource.lastError.code),
        ),
      ),
    );
    if (open) {
      rows.push(
        h('tr', { class: 'detail-row', id: detailId }, h('td', { colspan: '8' }, detailOf(resource))),
      );
    }
  }
  const columns = ['Kind', 'Name', 'Source', 'Zone', 'State', 'Last applied', 'Last checked', 'Last error'];
  fill(
    byId('resource-table'),
    shown.length === 0
      ? h('p', { class: 'muted' }, 'No resource matches the filters.')
      : h(
          'table',
          { class: 'resources' },
          h('caption', { class: 'visually-hidden' }, 'Managed resources'),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              columns.map((title) => h('th', { scope: 'col' }, title)),
            ),
          ),
          h('tbody', {}, rows),
        ),
    shown.length > MAX_ROWS
      ? h('p', { class: 'muted' }, `Showing the first ${MAX_ROWS}; narrow the filters to see the others.`)
      : null,
  );
}

function drawRuns(doc: StatusShape): void {
  const items = runItemsOf(doc.runs);
  fill(
    byId('run-list'),
    ...(items.length === 0
      ? [h('li', { class: 'muted' }, 'No run recorded yet.')]
      : items.map((run) => {
          const details = h(
            'details',
            {
              open: state.openRuns.has(run.key),
              ontoggle: () => {
                if (details.open) state.openRuns.add(run.key);
                else state.openRuns.delete(run.key);
              },
            },
            h(
              'summary',
              { 'data-key': `run:${run.key}` },
              badge(run.result, run.tone),
              h('span', { class: 'run-trigger' }, run.trigger),
              h('span', { class: 'run-when' }, timeOf(run.startedAt)),
              h('span', { class: 'run-meta' }, `${run.duration} · ${run.counts}`),
            ),
            h(
              'div',
              { class: 'run-body' },
              h('p', {}, 'Revision ', h('code', {}, run.revision)),
              run.error === null ? null : h('p', { class: 'error-text' }, run.error),
              run.changes.length === 0
                ? h('p', { class: 'muted' }, 'No change was written, skipped or failed in this run.')
                : h(
                    'table',
                    { class: 'changes' },
                    h('caption', { class: 'visually-hidden' }, 'Changes of this run'),
                    h(
                      'thead',
                      {},
                      h(
                        'tr',
                        {},
                        ['Resource', 'Action', 'Outcome', 'Error'].map((title) =>
                          h('th', { scope: 'col' }, title),
                        ),
                      ),
                    ),
                    h(
                      'tbody',
                      {},
                      run.changes.map((change) =>
                        h(
                          'tr',
                          {},
                          h('th', { scope: 'row', 'data-label': 'Resource' }, change.subject),
                          h('td', { 'data-label': 'Action' }, change.action),
                          h('td', { 'data-label': 'Outcome' }, change.outcome),
                          h(
                            'td',
                            { 'data-label': 'Error' },
                            change.error === undefined
                              ? '—'
                              : [h('code', {}, change.error.code), ' ', change.error.message],
                          ),
                        ),
                      ),
                    ),
                  ),
              run.changesOmitted > 0 ? h('p', { class: 'muted' }, `… and ${run.changesOmitted} more`) : null,
            ),
          );
          return h('li', {}, details);
        })),
  );
}

function drawGeneric(
  id: string,
  records: ReadonlyArray<Readonly<Record<string, unknown>>> | undefined,
  preferred: readonly string[],
  empty: string,
  caption: string,
): void {
  const target = byId(id);
  if (records === undefined) {
    fill(target, h('p', { class: 'muted' }, 'This daemon does not report these.'));
    return;
  }
  if (records.length === 0) {
    fill(target, h('p', { class: 'muted' }, empty));
    return;
  }
  const table = genericTable(records, preferred);
  fill(
    target,
    h(
      'table',
      { class: 'generic' },
      h('caption', { class: 'visually-hidden' }, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          table.columns.map((column) => h('th', { scope: 'col' }, columnTitle(column))),
        ),
      ),
      h(
        'tbody',
        {},
        table.rows.map((row) =>
          h(
            'tr',
            {},
            row.map((cell, i) => h('td', { 'data-label': columnTitle(table.columns[i] ?? '') }, cell)),
          ),
        ),
      ),
    ),
  );
}

/** Draws everything from the current document, keeping the focused control focused. */
function redraw(): void {
  const doc = state.doc;
  if (doc === undefined) return;
  const focusedKey = (document.activeElement as HTMLElement | null)?.dataset.key;
  drawHeader(doc);
  drawOverview(doc);
  drawResources(doc);
  drawRuns(doc);
  drawGeneric(
    'unclaimed',
    doc.unclaimed,
    ['kind', 'shieldZoneId', 'id', 'key', 'name', 'subject', 'action', 'reason'],
    'Every live object is claimed by a document.',
    'Live objects no document claims',
  );
  drawGeneric(
    'apps',
    doc.apps,
    ['subject', 'name', 'appId', 'status', 'health', 'revision', 'reason', 'rolledBackTo', 'at'],
    'No container app is managed.',
    'Container app health',
  );
  if (focusedKey !== undefined) {
    for (const element of document.querySelectorAll<HTMLElement>('[data-key]')) {
      if (element.dataset.key === focusedKey) {
        element.focus();
        break;
      }
    }
  }
}

function tick(): void {
  const now = Date.now();
  for (const element of document.querySelectorAll<HTMLTimeElement>('time[data-relative]')) {
    element.textContent = relativeTime(element.dateTime, now);
  }
  const updated = byId('updated');
  if (state.failing) {
    updated.textContent = 'Cannot reach the daemon; retrying…';
    updated.className = 'updated tone-text-bad';
  } else if (state.receivedAt !== undefined) {
    updated.textContent = `Live · checked ${relativeTime(new Date(state.receivedAt).toISOString(), now)}`;
    updated.className = 'updated';
  }
}

async function poll(): Promise<void> {
  try {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (state.etag !== undefined) headers['if-none-match'] = state.etag;
    const reply = await fetch('/status', { headers, cache: 'no-store' });
    if (reply.status === 200) {
      state.doc = (await reply.json()) as StatusShape;
      state.etag = reply.headers.get('etag') ?? undefined;
      redraw();
    } else if (reply.status !== 304) {
      throw new Error(`status ${reply.status}`);
    }
    state.failing = false;
    state.receivedAt = Date.now();
  } catch {
    state.failing = true;
  }
  tick();
  setTimeout(() => void poll(), POLL_MS);
}

function start(): void {
  const onFilter = (): void => {
    state.filter = {
      kind: byId<HTMLSelectElement>('filter-kind').value,
      state: byId<HTMLSelectElement>('filter-state').value,
      zone: byId<HTMLSelectElement>('filter-zone').value,
      text: byId<HTMLInputElement>('filter-text').value,
    };
    if (state.doc !== undefined) drawResources(state.doc);
  };
  for (const id of ['filter-kind', 'filter-state', 'filter-zone'])
    byId(id).addEventListener('change', onFilter);
  byId('filter-text').addEventListener('input', onFilter);
  byId('filter-clear').addEventListener('click', () => setFilter(NO_FILTER));
  window.addEventListener('hashchange', showView);
  showView();
  setInterval(tick, 1000);
  void poll();
}

start();
