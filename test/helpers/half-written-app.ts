/**
 * The test seed's app (`app1`, containers `web` and `worker`) as a desired-state file with
 * `allowDeletions: true`, split where a writer pausing after `web` would leave it: read alone,
 * the head deletes the `worker` container. The daemon's half-written-file tests write the two
 * parts apart and check that no deletion comes from the head.
 */
export const APP_HEAD = appHead(4);

/**
 * The head with `autoScaling.max` = `max` (the seed's is 3: with APP_TAIL, the app as it is;
 * alone, the app without `worker`). APP_HEAD's 4 makes the whole file a change too.
 */
export function appHead(max: number): string {
  return `apiVersion: edgesync/v1
kind: ContainerApp
metadata:
  name: storefront
spec:
  appId: app1
  allowDeletions: true
  autoScaling: { min: 1, max: ${max} }
  containerTemplates:
    - name: web
`;
}

/** The rest of the file: the `worker` container that keeps the app as it is. */
export const APP_TAIL = `    - name: worker
`;
