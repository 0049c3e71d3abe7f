/**
 * What the container-secret tests share: the app whose `web` container takes its secrets from
 * every kind of source, and the checks that no secret (nor a plain SHA-256 of one) leaks.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../../src/domain/checksum.js';

/** Each of `secrets`, and the plain SHA-256 of each, that appears in `text` (none may). */
export function leaksOf(secrets: readonly string[], text: string): string[] {
  return secrets.flatMap((s) => [s, sha256Hex(s)]).filter((needle) => text.includes(needle));
}

/** Every byte of every file under `dir`. */
export function filesOf(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'latin1'))
    .join('\n');
}

/**
 * The emulator's app `app1` (`storefront`: `web` and `worker`) with `web`'s environment
 * variables as given (YAML list items, indented for their place).
 */
export function storefrontYaml(webVariables: string): string {
  return `apiVersion: edgesync/v1
kind: ContainerApp
metadata: { name: storefront }
spec:
  appId: app1
  containerTemplates:
    - name: web
      environmentVariables:
${webVariables}
    - name: worker
`;
}

/**
 * The seed's app with `web`'s secrets from each source: DATABASE_URL from the environment
 * (EDGESYNC_SECRET_DATABASE_URL), STRIPE_KEY from the secret file `stripeKeyFile`, LEGACY a
 * `sensitive` literal.
 */
export function secretsAppYaml(options: { stripeKeyFile: string; literal: string }): string {
  return storefrontYaml(`        - { name: LOG_LEVEL, value: info }
        - name: DATABASE_URL
          valueFrom: { env: EDGESYNC_SECRET_DATABASE_URL }
        - name: STRIPE_KEY
          valueFrom: { file: ${options.stripeKeyFile} }
        - name: LEGACY
          value: ${options.literal}
          sensitive: true`);
}
