/**
 * The plan comment's Markdown (docs/ci.md, The plan comment): counts on the first line,
 * sections per Shield Zone and app, deletions first and in bold, unchanged resources collapsed,
 * and every live string inert — HTML, mentions, backticks, pipes and line breaks included.
 */
import { describe, expect, it } from 'vitest';
import { mdCode, renderPlanMarkdown } from '../../../src/engine/render-markdown.js';
import type { Plan, PlannedChange } from '../../../src/engine/types.js';

function change(subject: string, extra: Partial<PlannedChange>): PlannedChange {
  const [kind, name] = subject.split('/') as [PlannedChange['kind'], string];
  return {
    subject,
    kind,
    name,
    source: { file: 'x.yaml', line: 1, col: 1 },
    action: 'update',
    cause: 'unknown',
    diffs: [],
    requests: [],
    digest: 'd',
    ...extra,
  };
}

const HOSTILE = '</details><img src=x onerror=alert(1)> @octo-org/admins `x` | y\n## z';

function plan(): Plan {
  return {
    version: 1,
    revision: 'abc1234',
    createdAt: '2026-11-28T00:00:00.000Z',
    changes: [
      change('DnsZone/example-com', { diffs: [{ path: 'dnssec', live: true, desired: false }] }),
      change('WafCustomRule/a', {
        shieldZoneId: 42,
        diffs: [{ path: 'ruleDescription', live: HOSTILE, desired: 'ok' }],
      }),
      change('WafCustomRule/kept', { shieldZoneId: 42, action: 'noop' }),
      change('WafCustomRule/#7', {
        shieldZoneId: 42,
        action: 'delete',
        prune: 'inventory',
        object: { kind: 'WafCustomRule', shieldZoneId: 42, via: 'id', id: 7, key: HOSTILE },
        diffs: [{ path: 'ruleName', live: HOSTILE, desired: undefined }],
      }),
      change('ContainerApp/shop', {
        action: 'error',
        error: { code: 'API_REJECTED', message: `the API said: ${HOSTILE}` },
      }),
    ],
    summary: { resources: 5, toUpdate: 3, toDelete: 1, unchanged: 1, skipped: 0, errors: 1, destructive: 1 },
  };
}

describe('the Markdown plan', () => {
  const md = renderPlanMarkdown(plan());
  const lines = md.split('\n');

  it('starts with the counts, then the revision', () => {
    expect(lines.slice(0, 3)).toEqual([
      '**Plan: 3 to change (1 to delete), 1 failed or refused, 1 unchanged, 1 with deletions.**',
      '',
      'edgesync plan of revision `abc1234`.',
    ]);
  });

  it('has a section per zone and app, the one that deletes first, its deletion first and in bold', () => {
    expect(lines.filter((l) => l.startsWith('#### '))).toEqual([
      '#### Shield Zone 42',
      '#### DNS zones',
      '#### Container app `shop`',
    ]);
    const zone = md.slice(md.indexOf('#### Shield Zone 42'), md.indexOf('#### DNS zones'));
    const rows = zone.split('\n').filter((l) => /^\| (🗑️|✏️)/.test(l));
    expect(rows[0]).toMatch(/^\| 🗑️ \| \*\*`WafCustomRule\/#7`\*\* \*\*``delete #7 /);
    expect(rows[1]).toMatch(/^\| ✏️ \| `WafCustomRule\/a` \| `ruleDescription` \|/);
    expect(zone).toContain('<details><summary>1 unchanged</summary>\n\n- `WafCustomRule/kept`\n\n</details>');
  });

  it('writes every live string inside a code span, on one line, pipes escaped in tables', () => {
    const hostileLines = lines.filter((l) => l.includes('onerror'));
    expect(hostileLines.length).toBe(3);
    for (const line of hostileLines) {
      // Outside code spans the line holds no HTML, no mention, no heading.
      const outside = line.replace(/(`+)[^`].*?\1/g, '');
      expect(outside).not.toMatch(/[<>@#]/);
    }
    expect(md).not.toContain('\n## z');
    expect(mdCode('a `b` | c', { table: true })).toBe('``a `b` \\| c``');
    expect(mdCode('`x`')).toBe('`` `x` ``');
    expect(mdCode('')).toBe('`  `');
  });

  it('says so when nothing changes', () => {
    const quiet: Plan = { ...plan(), changes: [change('DnsZone/a', { action: 'noop' })] };
    expect(renderPlanMarkdown(quiet)).toContain('No changes. Live state matches the desired state.');
  });
});
