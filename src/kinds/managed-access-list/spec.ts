/**
 * `ManagedAccessList` desired state → E3 only. Curated lists cannot be edited, only switched
 * on or off and given an action; they are found by `listId` or by `name` in the zone listing.
 */
import { z } from 'zod';
import { AccessListAction } from '../../domain/enums.js';
import { enumField, IntId, whenValid } from '../common/fields.js';
import { listConfigurationKey } from '../common/live-keys.js';
import type { KindSpecModule } from '../common/spec-module.js';

/** Strict schema of the `spec` of a ManagedAccessList document (unknown keys are errors). */
export const ManagedAccessListSpec = z
  .strictObject({
    shieldZoneId: IntId,
    listId: IntId.optional(),
    name: z.string().min(1, 'must not be empty').optional(),
    enabled: z.boolean(),
    action: enumField('action', AccessListAction).optional(),
    configurationId: IntId.optional(),
  })
  .refine((s) => (s.listId === undefined) !== (s.name === undefined), {
    message: 'give exactly one of listId or name',
    path: ['listId'],
    when: whenValid('listId', 'name'),
  });
/** The parsed (output) form of ManagedAccessListSpec: enums as the integers or spellings the API takes. */
export type ManagedAccessListSpec = z.infer<typeof ManagedAccessListSpec>;

/** The ManagedAccessList kind as the config loader sees it: schema, canonical form, target. */
export const managedAccessListSpec: KindSpecModule<ManagedAccessListSpec, ManagedAccessListSpec> = {
  kind: 'ManagedAccessList',
  schema: ManagedAccessListSpec,
  resolve: (parsed) => parsed,
  // Names are matched case-insensitively, as the listing is: the key says the name in lower case.
  target: (spec) =>
    `managed list (${spec.listId !== undefined ? `id ${spec.listId}` : `named ${JSON.stringify(spec.name?.toLowerCase())}`} in Shield Zone ${spec.shieldZoneId})`,
  targetPath: (spec) => (spec.listId !== undefined ? ['listId'] : ['name']),
  shieldZoneId: (spec) => spec.shieldZoneId,
  aliases: (spec) =>
    spec.configurationId === undefined
      ? []
      : [{ key: listConfigurationKey(spec.shieldZoneId, spec.configurationId), path: ['configurationId'] }],
};
