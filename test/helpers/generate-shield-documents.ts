/**
 * The generator's documents of the kinds that live in a Shield Zone: WAF custom rules, access
 * lists (inline or entriesFile) and managed access lists, each with its matching live object.
 */
import type { GeneratedDocument, ListSeed, ManagedSeed, RuleSeed } from './generated-repository.js';
import { pick } from './prng.js';

/** The rules the generator varies over; `value` is the operator's argument (none for the detectors). */
const RULE_SHAPES = [
  {
    title: 'Block SQLi on',
    operator: 'DETECTSQLI',
    value: '',
    variables: ['REQUEST_URI', 'ARGS', 'REQUEST_BODY'],
    transformations: ['URLDECODE', 'LOWERCASE'],
  },
  {
    title: 'Block XSS on',
    operator: 'DETECTXSS',
    value: '',
    variables: ['ARGS', 'REQUEST_COOKIES'],
    transformations: ['URLDECODE', 'HTMLENTITYDECODE', 'JSDECODE'],
  },
  {
    title: 'Challenge scanners on',
    operator: 'RX',
    value: '(?i)(sqlmap|nikto|nmap|masscan)/[0-9.]+',
    variables: ['REQUEST_HEADERS'],
    transformations: ['LOWERCASE'],
  },
  {
    title: 'Log odd methods on',
    operator: 'WITHIN',
    value: 'TRACE TRACK DEBUG',
    variables: ['REQUEST_METHOD'],
    transformations: [],
  },
  {
    title: 'Block path traversal on',
    operator: 'CONTAINS',
    value: '../',
    variables: ['REQUEST_URI_RAW', 'REQUEST_FILENAME'],
    transformations: ['URLDECODEUNI', 'NORMALIZEPATH'],
  },
] as const;

const PATHS = [
  '/login',
  '/api/v1/orders',
  '/checkout',
  '/admin',
  '/search',
  '/wp-admin',
  '/graphql',
  '/cart',
];
const ACTIONS = ['Block', 'Log', 'Challenge', 'Block', 'Block'];
const SEVERITIES = ['NOTICE', 'WARNING', 'CRITICAL'];

export function wafRule(
  random: () => number,
  zone: number,
  ruleId: number,
  index: number,
): GeneratedDocument {
  const shape = pick(random, RULE_SHAPES);
  const path = pick(random, PATHS);
  const name = `z${zone}-r${index}-${shape.operator.toLowerCase()}`;
  const variables = shape.variables.map((v) => `      ${v}: ""`).join('\n');
  const chainedNegated = random() < 0.5 ? random() < 0.3 : undefined;
  const chained =
    chainedNegated !== undefined
      ? `
    chainedRuleConditions:
      - variableTypes: { REQUEST_URI: "" }
        operatorType: BEGINSWITH
        value: ${path}
      - variableTypes: { REQUEST_METHOD: "" }
        operatorType: STREQ
        value: POST
        isNegated: ${chainedNegated}`
      : '';
  const { value } = shape;
  const ruleName = `${shape.title} ${path} (${index})`;
  const ruleDescription = `Managed by edgesync; ${shape.title.toLowerCase()} ${path}`;
  const actionType = pick(random, ACTIONS);
  const severityType = pick(random, SEVERITIES);
  const text = `---
apiVersion: edgesync/v1
kind: WafCustomRule
metadata:
  name: ${name}
spec:
  id: ${ruleId}
  shieldZoneId: ${zone}
  ruleName: ${ruleName}
  ruleDescription: ${ruleDescription}
  ruleConfiguration:
    actionType: ${actionType}
    operatorType: ${shape.operator}
    severityType: ${severityType}
    variableTypes:
${variables}
    transformationTypes: [${shape.transformations.join(', ')}]
    value: ${shape.operator === 'RX' ? `'${value}'` : JSON.stringify(value)}
    isNegated: false${chained}
`;
  const rule: RuleSeed = {
    id: ruleId,
    ruleName,
    ruleDescription,
    ruleConfiguration: {
      actionType,
      operatorType: shape.operator,
      severityType,
      variableTypes: Object.fromEntries(shape.variables.map((v) => [v, ''])),
      transformationTypes: [...shape.transformations],
      value,
      isNegated: false,
      ...(chainedNegated === undefined
        ? {}
        : {
            chainedRuleConditions: [
              { variableTypes: { REQUEST_URI: '' }, operatorType: 'BEGINSWITH', value: path },
              {
                variableTypes: { REQUEST_METHOD: '' },
                operatorType: 'STREQ',
                value: 'POST',
                isNegated: chainedNegated,
              },
            ],
          }),
    },
  };
  return { name, text, live: { kind: 'WafCustomRule', rule } };
}

function ipv4(random: () => number): string {
  const octet = (): number => Math.floor(random() * 254) + 1;
  return random() < 0.3
    ? `${octet()}.${octet()}.${octet()}.0/24`
    : `${octet()}.${octet()}.${octet()}.${octet()}`;
}

/** `count` distinct IPv4 addresses or /24 ranges. */
export function entries(random: () => number, count: number): string[] {
  const seen = new Set<string>();
  while (seen.size < count) seen.add(ipv4(random));
  return [...seen];
}

export function accessList(
  random: () => number,
  zone: number,
  listId: number,
  index: number,
  entriesFile: { readonly path: string; readonly entries: readonly string[] } | undefined,
): GeneratedDocument {
  const name = `z${zone}-list-${index}`;
  const listEntries = entriesFile?.entries ?? entries(random, 3 + Math.floor(random() * 8));
  const content =
    entriesFile !== undefined
      ? `  entriesFile: ${entriesFile.path}`
      : `  entries:\n${listEntries.map((e) => `    - ${e}`).join('\n')}`;
  const listName = `Partner network ${index}`;
  const action = pick(random, ['Block', 'Allow', 'Challenge']);
  const text = `---
apiVersion: edgesync/v1
kind: AccessList
metadata:
  name: ${name}
spec:
  shieldZoneId: ${zone}
  id: ${listId}
  name: ${listName}
${content}
  enabled: true
  action: ${action}
`;
  const list: ListSeed = {
    id: listId,
    name: listName,
    type: 'CIDR',
    entries: [...listEntries],
    isEnabled: true,
    action,
  };
  return { name, text, live: { kind: 'AccessList', list } };
}

export function managedList(zone: number, listId: number, index: number): GeneratedDocument {
  const name = `z${zone}-managed-${index}`;
  const text = `---
apiVersion: edgesync/v1
kind: ManagedAccessList
metadata:
  name: ${name}
spec:
  shieldZoneId: ${zone}
  listId: ${listId}
  enabled: true
  action: Block
`;
  const list: ManagedSeed = {
    id: listId,
    name: `Managed list ${index}`,
    category: 'VPNs',
    entryCount: 1000 + index,
    isEnabled: true,
    action: 'Block',
  };
  return { name, text, live: { kind: 'ManagedAccessList', list } };
}
