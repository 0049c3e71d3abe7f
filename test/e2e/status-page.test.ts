/**
 * The status page in a real headless Chromium (playwright-core driving the Chromium build of
 * the @sparticuz/chromium package, so `npm ci` is all it needs), loaded from the built binary
 * (`edgesync run --emulator` on a copy of config-examples, the README's demo) on its
 * `--metrics-listen` address: the overview's counts, the filters, a drifted resource's diff,
 * a file edit arriving as a new run without a reload, a removed document's rule listed under
 * Not pruned (and gone when restored), the Apps view's rollout health (the created app active, a
 * bad tag failing with its reason), the phone width and dark theme; and over
 * the whole file no console error, no request off 127.0.0.1, and no secret in the DOM or in
 * any response. One browser and one daemon for the file; the tests run in order.
 *
 * With EDGESYNC_SCREENSHOTS=docs/images the main views are saved there (the README's and
 * docs/daemon.md's pictures).
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import chromium from '@sparticuz/chromium';
import { type Browser, type BrowserContext, type Page, chromium as playwright } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusDocument } from '../../src/daemon/status.js';
import { request, until } from '../helpers/daemon.js';
import { REPO, requireBuild, type Spawned, spawnRun } from '../helpers/spawn-daemon.js';

const ACCESS_KEY = 'ui-test-access-key-7f3a9c1e5b';
const WEBHOOK_SECRET = 'ui-test-webhook-secret-4d8e2a';
const LITERAL_SECRET = 'ui-test-literal-secret-b61c07';
const ENV_SECRET = 'ui-test-env-secret-93f5d2';
const SECRETS = [ACCESS_KEY, WEBHOOK_SECRET, LITERAL_SECRET, ENV_SECRET];

const SCREENSHOTS = process.env.EDGESYNC_SCREENSHOTS;

let root: string;
let config: string;
let run: Spawned;
let ops: string;
let hooks: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const consoleErrors: string[] = [];
const pageErrors: string[] = [];
const offHost: string[] = [];
const requested: string[] = [];
const bodies: string[] = [];

async function statusNow(): Promise<StatusDocument> {
  return (await request(`${ops}/status`)).json as StatusDocument;
}

/** The subjects of the resource rows the page shows now. */
function shownSubjects(): Promise<string[]> {
  return page.$$eval('#resource-table tbody tr[data-subject]', (rows) =>
    rows.map((row) => row.getAttribute('data-subject') ?? ''),
  );
}

async function shot(name: string): Promise<void> {
  if (SCREENSHOTS === undefined) return;
  mkdirSync(resolve(REPO, SCREENSHOTS), { recursive: true });
  await page.screenshot({ path: resolve(REPO, SCREENSHOTS, `${name}.png`), fullPage: true });
}

beforeAll(async () => {
  requireBuild();
  // Kept for the whole file (tempDir() would be removed after the first test).
  root = mkdtempSync(join(tmpdir(), 'edgesync-ui-'));
  config = join(root, 'config');
  cpSync(join(REPO, 'config-examples'), config, { recursive: true });
  // The storefront in report mode with two container secrets: its drift stays to be shown,
  // and its diff holds values that must read `(sensitive)`.
  const app = join(config, 'apps/storefront.yaml');
  writeFileSync(
    app,
    readFileSync(app, 'utf8')
      .replace('  name: storefront\nspec:', '  name: storefront\n  drift: report\nspec:')
      .replace(
        '        - { name: LOG_LEVEL, value: info }\n',
        `        - { name: LOG_LEVEL, value: info }\n        - { name: SESSION_KEY, value: ${LITERAL_SECRET}, sensitive: true }\n        - { name: DATABASE_URL, valueFrom: { env: EDGESYNC_SECRET_DATABASE_URL } }\n`,
      ),
  );
  const secretFile = join(root, 'webhook-secret');
  writeFileSync(secretFile, `${WEBHOOK_SECRET}\n`);
  run = spawnRun(
    [
      '--emulator',
      '--config',
      config,
      '--state-dir',
      join(root, 'state'),
      '--listen',
      '127.0.0.1:0',
      '--metrics-listen',
      '127.0.0.1:0',
      '--webhook-secret-file',
      secretFile,
      '--schedule',
      '0 0 1 1 *',
      '--debounce-ms',
      '100',
      '--rollout-poll-ms',
      '250',
    ],
    { EDGESYNC_ACCESS_KEY: ACCESS_KEY, EDGESYNC_SECRET_DATABASE_URL: ENV_SECRET },
  );
  const started = await until(() => run.events('daemon.started')[0], 'the daemon to start', 20_000);
  ops = String(started.metricsListen);
  hooks = String(started.listen);
  await until(() => run.events('reconcile.finished')[0], 'the start-up run', 30_000);

  browser = await playwright.launch({
    executablePath: await chromium.executablePath(),
    args: ['--no-sandbox'],
    headless: true,
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
  // Anything not for 127.0.0.1 is recorded and refused, so it cannot leave the machine.
  await context.route('**/*', (route) => {
    const url = route.request().url();
    requested.push(url);
    if (new URL(url).hostname !== '127.0.0.1') {
      offHost.push(url);
      return route.abort();
    }
    return route.continue();
  });
  page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('response', (response) => {
    void response.text().then(
      (text) => bodies.push(text),
      () => undefined,
    );
  });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  if (run !== undefined && run.child.exitCode === null) {
    run.child.kill('SIGTERM');
    await run.exit;
  }
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe('the status page in a real browser', () => {
  it('is not served on the webhook-only listener', async () => {
    expect((await request(`${hooks}/`)).status).toBe(404);
    expect((await request(`${ops}/`)).status).toBe(200);
  });

  it('the overview shows the health and the counts of /status', async () => {
    await page.goto(`${ops}/`);
    await page.waitForSelector('.count[data-state]');
    const doc = await statusNow();

    const counts = await page.$$eval('.count[data-state]', (buttons) =>
      buttons.map((b) => [b.getAttribute('data-state'), b.querySelector('.count-number')?.textContent]),
    );
    const health = await page.textContent('.health-label');
    const facts = await page.$$eval('.facts div', (items) =>
      items.map((item) => [item.querySelector('dt')?.textContent, item.querySelector('dd')?.textContent]),
    );

    expect(doc.counts).toEqual({ pending: 0, 'in-sync': 15, suspended: 1, 'report-only': 2, failed: 0 });
    expect(counts).toEqual([
      ['in-sync', '15'],
      ['pending', '0'],
      ['report-only', '2'],
      ['suspended', '1'],
      ['failed', '0'],
    ]);
    expect(health).toBe('Ready');
    expect(facts.slice(0, 2)).toEqual([
      ['Revision applied', doc.lastAppliedRevision],
      ['Revision attempted', doc.lastAttemptedRevision],
    ]);
    await shot('status-overview');
  });

  it('filters the resources by kind, zone, state and text', async () => {
    // A count opens the resources in its state.
    await page.click('.count[data-state="report-only"]');
    await page.waitForSelector('#view-resources:not([hidden])');
    const byState = await shownSubjects();

    await page.click('#filter-clear');
    await page.selectOption('#filter-kind', 'WafCustomRule');
    const byKind = await shownSubjects();
    await page.selectOption('#filter-zone', '4242');
    const byKindAndZone = await shownSubjects();
    await page.click('#filter-clear');
    await page.fill('#filter-text', 'zone-5310/access');
    const byText = await shownSubjects();
    const countText = await page.textContent('#resource-count');
    await page.click('#filter-clear');
    const all = await shownSubjects();
    const unlabelled = await page.$$eval('select, input', (controls) =>
      controls.filter((control) => control.closest('label') === null).map((control) => control.id),
    );

    expect(byState).toEqual(['ContainerApp/storefront', 'WafCustomRule/log-scanner-user-agents']);
    expect(byKind).toEqual([
      'WafCustomRule/allow-health-checks',
      'WafCustomRule/block-api-scrapers',
      'WafCustomRule/block-oversized-bodies',
      'WafCustomRule/block-path-traversal-api',
      'WafCustomRule/block-sqli-login',
      'WafCustomRule/block-xss-search',
      'WafCustomRule/challenge-admin-outside-office',
      'WafCustomRule/log-scanner-user-agents',
    ]);
    expect(byKindAndZone).toEqual([
      'WafCustomRule/block-sqli-login',
      'WafCustomRule/block-xss-search',
      'WafCustomRule/challenge-admin-outside-office',
      'WafCustomRule/log-scanner-user-agents',
    ]);
    expect(byText).toEqual(['AccessList/blocked-crawlers', 'AccessList/partner-networks']);
    expect(countText).toBe('2 of 18 resources match');
    expect(all).toEqual((await statusNow()).resources.map((r) => r.subject));
    expect(unlabelled).toEqual([]);
  });

  it('a drifted resource opens its field diffs by keyboard, secrets as (sensitive)', async () => {
    await page.focus('tr[data-subject="WafCustomRule/log-scanner-user-agents"] button');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.detail-row table.diffs');
    const rule = await page.$$eval('.detail-row table.diffs tbody tr', (rows) =>
      rows.map((row) => [...row.children].map((cell) => cell.textContent)),
    );
    const expanded = await page.getAttribute(
      'tr[data-subject="WafCustomRule/log-scanner-user-agents"] button',
      'aria-expanded',
    );
    const cause = await page.textContent('.detail-row .detail p:nth-child(2)');
    await shot('status-resources');

    await page.click('tr[data-subject="ContainerApp/storefront"] button');
    const appDiffs = await page.$$eval(
      'tr[data-subject="ContainerApp/storefront"] + tr.detail-row table.diffs tbody tr',
      (rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent)),
    );

    expect(expanded).toBe('true');
    expect(rule).toEqual([
      ['ruleConfiguration.value', '"(sqlmap|nikto)"', '"(sqlmap|nikto|nmap|masscan|zgrab)"'],
    ]);
    expect(cause).toBe('Drift: unknown (no earlier apply recorded)');
    expect(appDiffs.length).toBeGreaterThan(0);
    expect(appDiffs.map((row) => row.join(' ')).join('\n')).toContain('(sensitive)');
  });

  it('a file edit appears as a new run within seconds, without a reload', async () => {
    await page.goto(`${ops}/#runs`);
    await page.waitForSelector('#run-list details');
    // Page code as strings: the tests are type-checked without the DOM's types.
    await page.evaluate('window.notReloaded = true');
    const before = await page.$$eval('#run-list > li', (items) => items.length);
    const zones = join(config, 'dns/zones.yaml');
    writeFileSync(
      zones,
      readFileSync(zones, 'utf8').replace('  id: 412874\n  dnssec: false', '  id: 412874\n  dnssec: true'),
    );

    // Polled from here: the page's CSP refuses the string evaluation waitForFunction would use.
    await until(
      async () => (await page.$$eval('#run-list > li', (items) => items.length)) === before + 1,
      'the new run on the page',
      15_000,
    );
    await page.click('#run-list > li:first-child summary');
    const newest = await page.textContent('#run-list > li:first-child summary');
    const changes = await page.$$eval('#run-list > li:first-child table.changes tbody tr', (rows) =>
      rows.map((row) => [...row.children].map((cell) => cell.textContent)),
    );
    const notReloaded = await page.evaluate('window.notReloaded');
    await shot('status-runs');

    expect(before).toBe(1);
    expect(notReloaded).toBe(true);
    expect(newest).toMatch(/^success\s*file-change/);
    expect(changes).toEqual([['DnsZone/example-net', 'update', 'applied', '—']]);
  });

  it('an invalid file turns the page Stalled with the problem’s file:line, and fixing it turns it back', async () => {
    await page.goto(`${ops}/#overview`);
    await page.waitForSelector('.health-label');
    const broken = join(config, 'shield/broken.yaml');
    writeFileSync(
      broken,
      'apiVersion: edgesync/v1\nkind: WafCustomRule\nmetadata:\n  name: broken\nspec:\n  nope: 1\n',
    );

    await until(
      async () => (await page.textContent('.health-label')) === 'Stalled',
      'Stalled on the page',
      15_000,
    );
    const problems = await page.$$eval('.error-box li code', (codes) =>
      codes.map((code) => code.textContent),
    );
    const title = await page.title();
    await shot('status-stalled');
    rmSync(broken);
    await until(async () => (await page.textContent('.health-label')) === 'Ready', 'Ready again', 15_000);

    expect(title).toBe('Stalled · edgesync');
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((location) => location?.startsWith('shield/broken.yaml:'))).toBe(true);
  });

  it('a removed document’s rule appears under Not pruned without a reload, and leaves when restored', async () => {
    /** The Not pruned table as column title → cell text, one record a row. */
    const shownRows = (): Promise<Array<Record<string, string>>> =>
      page.$$eval('#unclaimed table.generic', (tables) =>
        tables.flatMap((table) => {
          const titles = [...table.querySelectorAll('thead th')].map((th) => th.textContent ?? '');
          return [...table.querySelectorAll('tbody tr')].map((row) =>
            Object.fromEntries([...row.children].map((cell, i) => [titles[i], cell.textContent ?? ''])),
          );
        }),
      );
    const shownIds = async (): Promise<string[]> => (await shownRows()).map((row) => row.Id ?? '');
    await page.goto(`${ops}/#unclaimed`);
    await page.waitForSelector('#view-unclaimed:not([hidden]) #unclaimed table.generic');
    await page.evaluate('window.notReloaded = true');
    // The demo's emulator already holds one rule no document claims (zone 5310's scraper block).
    const before = await shownIds();
    const rules = join(config, 'shield/zone-4242/waf-rules.yaml');
    const original = readFileSync(rules, 'utf8');
    const documents = original.split('\n---\n');
    const kept = documents.filter((document) => !document.includes('\n  name: block-xss-search\n'));
    expect(kept.length).toBe(documents.length - 1);
    writeFileSync(rules, kept.join('\n---\n'));

    // Without --prune the removal deletes nothing; the settle hold (5 s) is allowed for anyway.
    await until(async () => (await shownIds()).includes('731205'), 'the unclaimed rule on the page', 20_000);
    const rows = await shownRows();
    const listed = (await statusNow()).unclaimed.find((object) => object.id === 731205);
    writeFileSync(rules, original);
    await until(
      async () => !(await shownIds()).includes('731205'),
      'the rule gone from the Not pruned view',
      20_000,
    );
    const after = await shownIds();
    const notReloaded = await page.evaluate('window.notReloaded');

    // One of zone 4242's three managed rules: with --prune the deletion guard would refuse it.
    const reason =
      'not pruned: --prune is off (with --prune it would be refused too: the plan deletes 1 of the 3 ' +
      'custom WAF rules edgesync manages in Shield Zone 4242 (33%), more than 30%; re-run with --force if this is intended)';
    expect(before).toEqual(['802140']);
    expect(listed).toEqual({
      kind: 'WafCustomRule',
      shieldZoneId: 4242,
      id: 731205,
      key: expect.any(String),
      subject: 'WafCustomRule/block-xss-search',
      reason,
      since: expect.any(String),
    });
    expect(rows.find((row) => row.Id === '731205')).toEqual({
      Kind: 'WafCustomRule',
      'Shield zone id': '4242',
      Id: '731205',
      Key: listed?.key,
      Subject: 'WafCustomRule/block-xss-search',
      Reason: reason,
      Since: listed?.since,
    });
    expect(after).toEqual(before);
    expect(notReloaded).toBe(true);
    expect((await statusNow()).unclaimed.map((object) => object.id)).toEqual([802140]);
  }, 60_000);

  it('the Apps view shows each app’s rollout: the created app active, then a bad tag failing with its reason', async () => {
    /** The Apps table as column title → cell text, one app a row. */
    const appRows = (): Promise<Array<Record<string, string>>> =>
      page.$$eval('#apps table.generic', (tables) =>
        tables.flatMap((table) => {
          const titles = [...table.querySelectorAll('thead th')].map((th) => th.textContent ?? '');
          return [...table.querySelectorAll('tbody tr')].map((row) =>
            Object.fromEntries([...row.children].map((cell, i) => [titles[i], cell.textContent ?? ''])),
          );
        }),
      );
    const resizer = async () => (await appRows()).find((row) => row.Subject === 'ContainerApp/image-resizer');
    await page.goto(`${ops}/#apps`);
    await page.waitForSelector('#view-apps:not([hidden]) #apps table.generic');
    // The demo creates the image resizer at start-up; its rollout takes 3 s.
    const active = await until(
      async () => {
        const row = await resizer();
        return row?.Status === 'succeeded' ? row : undefined;
      },
      'the created app active on the page',
      20_000,
    );
    const storefront = (await appRows()).find((row) => row.Subject === 'ContainerApp/storefront');
    await shot('status-apps');

    const file = join(config, 'apps/image-resizer.yaml');
    const original = readFileSync(file, 'utf8');
    writeFileSync(file, original.replace('imageTag: "0.9.7"', 'imageTag: "0.9.8-broken"'));
    const failing = await until(
      async () => {
        const row = await resizer();
        return row?.Status === 'failed' ? row : undefined;
      },
      'the failed rollout on the page',
      30_000,
    );
    const listed = (await statusNow()).apps.find((app) => app.subject === 'ContainerApp/image-resizer');
    writeFileSync(file, original);
    await until(async () => (await resizer())?.Status === 'succeeded', 'the fixed tag active again', 30_000);

    expect(active).toMatchObject({ Name: 'image resizer', Health: 'active', Reason: '—' });
    expect(active['App id']).toMatch(/^app\w+$/);
    // Report-only: never written, so never rolled out.
    expect(storefront).toMatchObject({ Status: 'unknown', Health: 'unknown' });
    expect(listed).toMatchObject({ status: 'failed', health: 'failing', rolledBackTo: null });
    expect(failing).toMatchObject({ Health: 'failing', Reason: listed?.reason });
    expect(failing.Reason).toMatch(
      /^the rollout failed: the API says failing; container resizer: notStarted, 5 restarts, CrashLoopBackOff: /,
    );
  }, 90_000);

  it('fits 375 px in the dark theme, with no horizontal scrolling in any view', async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    await page.emulateMedia({ colorScheme: 'dark' });
    const widths: Record<string, number> = {};
    for (const view of ['overview', 'resources', 'runs']) {
      await page.goto(`${ops}/#${view}`);
      await page.waitForSelector(`#view-${view}:not([hidden])`);
      await page.waitForSelector('.count[data-state]', { state: 'attached' });
      widths[view] = (await page.evaluate('document.documentElement.scrollWidth')) as number;
    }
    const background = await page.evaluate('getComputedStyle(document.body).backgroundColor');
    await page.goto(`${ops}/#resources`);
    await page.waitForSelector('tr[data-subject]');
    if (SCREENSHOTS !== undefined) {
      await page.screenshot({ path: resolve(REPO, SCREENSHOTS, 'status-phone-dark.png') });
    }

    expect(widths).toEqual({ overview: 375, resources: 375, runs: 375 });
    expect(background).toBe('rgb(15, 19, 24)');
  });

  it('over the whole file: no console error, no request off 127.0.0.1, no secret in the DOM or any response', async () => {
    const dom = await page.content();
    const direct = await Promise.all(
      ['/', '/ui/app.js', '/ui/view.js', '/ui/app.css', '/status'].map(
        async (path) => (await request(`${ops}${path}`)).text,
      ),
    );
    const everything = [dom, ...bodies, ...direct].join('\n');

    expect(consoleErrors).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(offHost).toEqual([]);
    expect(requested.length).toBeGreaterThan(5);
    expect(requested.every((url) => url.startsWith(`${ops}/`))).toBe(true);
    expect(bodies.some((body) => body.includes('"resources":['))).toBe(true);
    for (const secret of SECRETS) expect(everything.includes(secret), secret).toBe(false);
    expect(run.output().includes(ACCESS_KEY)).toBe(false);
  });
});
