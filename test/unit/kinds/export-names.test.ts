/** How `export` names documents: slugs of live names, the `<kind>-<id>` fallback, `-2` on repeats. */
import { describe, expect, it } from 'vitest';
import type { ExportedSpec } from '../../../src/kinds/export.js';
import { assignNames, kebabKind, MAX_EXPORT_NAME, slugName } from '../../../src/kinds/export.js';

function item(kind: ExportedSpec['kind'], liveName: string, id: string | number): ExportedSpec {
  return { kind, liveName, id, spec: {}, warnings: [] };
}

describe('slugName', () => {
  it.each([
    ['Block SQLi on login', 'block-sqli-on-login'],
    ['  --Office IPs (HQ)--  ', 'office-ips-hq'],
    ['Règle été', 'regle-ete'],
    ['example.com', 'example-com'],
    ['***', ''],
    ['', ''],
    ['日本語', ''],
    ['A'.repeat(70), 'a'.repeat(MAX_EXPORT_NAME)],
    [`${'a'.repeat(62)} b`, 'a'.repeat(62)],
  ])('%j → %j', (live, slug) => {
    expect(slugName(live)).toBe(slug);
  });
});

describe('assignNames', () => {
  it('suffixes repeats per kind, falls back to <kind>-<id>, and keeps kinds apart', () => {
    const names = assignNames([
      item('WafCustomRule', 'Block SQLi', 1),
      item('WafCustomRule', 'block sqli', 2),
      item('WafCustomRule', 'Block SQLi-2', 3),
      item('WafCustomRule', '***', 4),
      item('AccessList', 'Block SQLi', 9),
      item('ContainerApp', '', 'Go1e5FdmzoQdr3O'),
    ]);

    expect(names).toEqual([
      'block-sqli',
      'block-sqli-2',
      'block-sqli-2-2',
      'waf-custom-rule-4',
      'block-sqli',
      'container-app-go1e5fdmzoqdr3o',
    ]);
  });

  it('kebab-cases kind names', () => {
    expect(kebabKind('ManagedAccessList')).toBe('managed-access-list');
    expect(kebabKind('DnsZone')).toBe('dns-zone');
  });
});
