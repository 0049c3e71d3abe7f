/**
 * Access-list entries against the list's declared `type` (issue 23): what each type accepts,
 * that an undeclared type checks nothing, and that a file that is not a list gets a bounded
 * report that never repeats its content.
 */
import { describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../../src/config/loader.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';
import { loadIssueLines } from './load-issues.js';

const LIST = (type: string | undefined, entries: string): string =>
  `apiVersion: edgesync/v1\nkind: AccessList\nmetadata: { name: l }\nspec:\n  shieldZoneId: 42\n  id: 9001\n${type === undefined ? '' : `  type: ${type}\n`}  ${entries}\n`;

describe('AccessList entries by type', () => {
  it.each([
    ['IP', '[203.0.113.7, "2001:db8::1", "::ffff:192.0.2.1"]'],
    ['CIDR', '[203.0.113.0/24, "2001:db8::/32", 0.0.0.0/0, 198.51.100.7/32]'],
    ['ASN', '[AS13335, as15169, "64512", AS4294967295]'],
    ['Country', '[DE, US, gb, XK]'],
    ['Organization', '["Example Hosting, Inc.", "Ünïcode GmbH"]'],
    [
      'JA4',
      '[t13d1516h2_8daaf6152771_b186095e22b6, q13i0310h3_55b375c5d22e_cd85d2d88918, t12d190800_d83cc789557e_7af1ed941c26]',
    ],
  ])('a %s list accepts %s', async (type, entries) => {
    const dir = writeTree(tempDir(), { 'l.yaml': LIST(type, `entries: ${entries}`) });

    const state = await loadDesiredState(dir);

    expect(state.resources).toHaveLength(1);
  });

  it('checks nothing when the type is not declared', async () => {
    const dir = writeTree(tempDir(), {
      'l.yaml': LIST(undefined, 'entries: ["[core]", AS13335, 10.0.0.0/8]'),
    });

    const state = await loadDesiredState(dir);

    expect((state.resources[0]?.spec as { content?: string } | undefined)?.content).toBe(
      '[core]\nAS13335\n10.0.0.0/8',
    );
  });

  it('reports ten wrong entries of a file and counts the rest, never quoting them', async () => {
    const secrets = Array.from({ length: 25 }, (_, i) => `password${i}=hunter${i}`).join('\n');
    const dir = writeTree(tempDir(), {
      'l.yaml': LIST('CIDR', 'entriesFile: secrets.txt'),
      'secrets.txt': secrets,
    });

    const lines = await loadIssueLines(dir);

    expect(lines).toHaveLength(11);
    expect(lines).toContain(
      'l.yaml:8:16: entry on line 1 of secrets.txt is not a CIDR block (address/prefix, e.g. 203.0.113.0/24; one address is /32 or /128) (at spec.entriesFile)',
    );
    expect(lines).toContain(
      "l.yaml:8:16: 15 more entries do not fit the list's type (25 in all) (at spec.entriesFile)",
    );
    expect(lines.join('\n')).not.toContain('hunter');
  });
});
