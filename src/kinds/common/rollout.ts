/**
 * The words of the rollout part of the kind contract (`KindRollout`, kind.ts): what a kind
 * whose writes roll out (a container app's containers) says about an object's health, and
 * what its document asks of the watch (docs/reconcile.md, Rollout health). Pure types.
 */

/** What the API says of the object as a whole (the MC `ApplicationStatus`, lower case). */
export type HealthStatus = 'active' | 'progressing' | 'failing' | 'inactive' | 'suspended' | 'unknown';

/** One container as the object's overview shows it: never an environment value. */
export interface ContainerHealth {
  readonly name: string;
  /** `notStarted`, `started`, `ready` (MC `ContainerStatus`), or absent. */
  readonly status?: string;
  readonly restarts: number;
  readonly reason?: string;
  readonly message?: string;
}

/** One read of an object's health. */
export interface Health {
  readonly status: HealthStatus;
  /** The containers the overview lists (pods of every region; empty once running). */
  readonly containers: readonly ContainerHealth[];
}

/** What a document asks of the watch after a write. */
export interface RolloutSettings {
  /** Nothing is watched (an app created with `deploy: false` does not roll out). */
  readonly watch: boolean;
  readonly timeoutMs: number;
  /** `rollback`: apply the last revision that reached `active` again (opt-in). */
  readonly onFailure: 'none' | 'rollback';
}

/** A kept spec back as a spec, and what of it could not be brought back (a sensitive literal). */
export interface RestoredSpec<Spec> {
  readonly spec: Spec;
  /** Said by the rollback's plan and notification: `variable SESSION_KEY of web keeps its current value`. */
  readonly notes: readonly string[];
}
