/**
 * Names of live objects that more than one kind can reach, so that two documents naming the
 * same object in different ways are found (the loader's rules at validate time, the engine's
 * conflicts at plan time). One format here, for both.
 */

/**
 * An access list's configuration (the E3 path id): custom and managed lists alike have one,
 * unique in its Shield Zone, so two documents that reach one configuration switch one list.
 */
export function listConfigurationKey(shieldZoneId: number, configurationId: number): string {
  return `shield-zone:${shieldZoneId}/list-configuration:${configurationId}`;
}
