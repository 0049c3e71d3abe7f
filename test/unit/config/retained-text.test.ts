/**
 * What the daemon keeps of a file between runs: the loaded resources and the loader's cache
 * must not hold the file's text. Strings the YAML parser returns are slices of that text, and
 * one kept slice keeps all of it alive (docs/performance.md, Latest figures, memory). The heap is searched
 * for a marker that only the file's text contains.
 */
import { randomUUID } from 'node:crypto';
import { getHeapSnapshot } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { createDesiredStateLoader } from '../../../src/config/loader.js';
import { tempDir, writeTree } from '../../helpers/temp-dir.js';

function rule(index: number): string {
  return `apiVersion: edgesync/v1
kind: WafCustomRule
metadata:
  name: block-sqli-on-the-login-page-${index}
spec:
  id: ${1000 + index}
  shieldZoneId: 42
  ruleName: Block SQL injection on the login page number ${index}
  ruleDescription: SQL injection attempts on /login, seen by the team in the last quarter
  ruleConfiguration:
    actionType: block
    operatorType: DetectSQLi
    variableTypes: { REQUEST_URI: "", ARGS: }
    value: ""
    chainedRuleConditions:
      - { variableTypes: { REQUEST_METHOD: "" }, operatorType: STREQ, value: POST-from-the-login-form }
`;
}

/** The strings of a heap snapshot of this process (a snapshot collects garbage first). */
async function heapStrings(): Promise<string[]> {
  let json = '';
  for await (const chunk of getHeapSnapshot()) json += chunk;
  return (JSON.parse(json) as { strings: string[] }).strings;
}

describe('what a load keeps of the files it read', () => {
  it("keeps no file's text alive: neither the resources nor the loader's cache hold a slice of it", async () => {
    // Built here and written out, so no string of this test holds the text itself.
    const marker = `retained-text-marker-${randomUUID()}`;
    const dir = writeTree(tempDir(), {
      'rules.yaml': `# ${marker}\n${[1, 2, 3].map(rule).join('---\n')}`,
    });
    const loader = createDesiredStateLoader();
    const { state } = await loader.load(dir);
    expect(state.resources.map((r) => r.name)).toEqual([
      'block-sqli-on-the-login-page-1',
      'block-sqli-on-the-login-page-2',
      'block-sqli-on-the-login-page-3',
    ]);

    // V8 keeps the subject of the last RegExp match process-wide (RegExp.lastMatch): one
    // string, replaced by the next match anywhere, so not something the loader keeps.
    /lastMatch/.test('lastMatch');
    const holding = (await heapStrings()).filter((s) => s.includes(marker) && s.includes('ruleName'));

    expect(holding).toEqual([]);
    // Both still alive up to here: what they hold was in the snapshot.
    expect(state.resources[0]?.spec).toMatchObject({
      ruleName: 'Block SQL injection on the login page number 1',
    });
    expect(await loader.load(dir)).toMatchObject({ stats: { parsed: 0, reused: 1 } });
  }, 60_000);
});
