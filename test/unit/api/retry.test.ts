import { describe, expect, it } from 'vitest';
import { writeRequests } from '../../../src/api/operations.js';
import { createsContainers, isIdempotent, parseRetryAfter } from '../../../src/api/retry.js';

const container = {
  name: 'web',
  imageName: 'nginx',
  imageNamespace: 'library',
  imageTag: '1',
  imageRegistryId: '1',
};

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-22T10:00:00Z');

  it.each([
    ['1', 1_000],
    ['0', 0],
    [' 120 ', 120_000],
    ['Sun, 22 Nov 2026 10:00:03 GMT', 3_000],
    ['Sun, 22 Nov 2026 09:59:00 GMT', 0],
    [['2', '9'], 2_000],
  ])('reads %j as %i ms', (header, expected) => {
    expect(parseRetryAfter(header, now)).toBe(expected);
  });

  it.each([[undefined], ['soon'], ['-1'], ['1.5']])('ignores %j so the backoff applies', (header) => {
    expect(parseRetryAfter(header, now)).toBeUndefined();
  });
});

describe('idempotency', () => {
  it.each([
    ['no containerTemplates', { name: 'x', volumes: [{ name: 'v', size: 1 }] }, false],
    ['containers that all carry ids', { containerTemplates: [{ ...container, id: 'ct-1' }] }, false],
    ['a container without id', { containerTemplates: [{ ...container, id: 'ct-1' }, container] }, true],
    ['a container with an empty id', { containerTemplates: [{ ...container, id: '' }] }, true],
    ['a container with a null id', { containerTemplates: [{ ...container, id: null }] }, true],
    ['an empty containerTemplates', { containerTemplates: [] }, false],
  ])('an E4 body with %s creates: %s', (_name, body, creates) => {
    expect(createsContainers(body)).toBe(creates);
    expect(isIdempotent(writeRequests.patchApp('app', body as never))).toBe(!creates);
  });

  it('counts id-less volumes and endpoints as updates: they have no ids in requests', () => {
    const body = {
      containerTemplates: [{ ...container, id: 'ct-1', endpoints: [{ displayName: 'public' }] }],
      volumes: [{ name: 'data', size: 1 }],
    };

    expect(isIdempotent(writeRequests.patchApp('app', body))).toBe(true);
  });

  it.each([
    writeRequests.updateCustomWafRule(1, {
      ruleName: null,
      ruleDescription: null,
      ruleConfiguration: {} as never,
    }),
    writeRequests.updateCustomAccessList(1, 2, { content: 'x' }),
    writeRequests.updateAccessListConfiguration(1, 2, { isEnabled: true }),
    writeRequests.disableDnssec(1),
    writeRequests.enableDnssec(1),
  ])('treats $operation as idempotent', (request) => {
    expect(isIdempotent(request)).toBe(true);
  });
});
