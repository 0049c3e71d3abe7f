/**
 * Builds DesiredResource values from inline specs for tests that do not need the loader:
 * the spec goes through the kind's real schema and resolve step.
 */
import { resourceDigest } from '../../src/config/canonical.js';
import type { DesiredResource, ResourceMetadata } from '../../src/config/types.js';
import { KIND_SPECS } from '../../src/kinds/specs.js';
import type { KindName } from '../../src/kinds/types.js';

export function desired<Spec = unknown>(
  kind: KindName,
  name: string,
  spec: unknown,
  metadata: Partial<ResourceMetadata> = {},
): DesiredResource<Spec> {
  const module = KIND_SPECS[kind];
  const parsed = module.schema.parse(spec);
  const problems: string[] = [];
  const canonical = module.resolve(parsed, {
    readRelativeFile: () => {
      throw new Error('tests built with desired() cannot read files');
    },
    issue: (at, message) => problems.push(`${at.join('.')}: ${message}`),
    warn: () => undefined,
  });
  if (problems.length > 0) throw new Error(problems.join('\n'));
  const meta: ResourceMetadata = { name, suspend: false, drift: 'correct', ...metadata };
  return {
    kind,
    name,
    subject: `${kind}/${name}`,
    metadata: meta,
    spec: canonical as Spec,
    source: { file: `${name}.yaml`, line: 1, col: 1 },
    // The loader's digest, so a resource built here and the same one loaded agree.
    digest: resourceDigest(kind, meta, canonical),
  };
}
