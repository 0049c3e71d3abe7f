/**
 * E2 and E3 request bodies. Null and omitted mean "keep" for every field (seed E2 rules; the
 * real E3 request makes `isEnabled` nullable with the same meaning).
 */
import { z } from 'zod';
import { AccessListAction, AccessListType } from '../../domain/enums.js';
import { intEnum } from './enum.js';

/** E2 body: `{name, content, checksum}`. */
export const UpdateCustomAccessListRequest = z.strictObject({
  name: z.string().nullable().optional(),
  content: z.string().nullable().optional(),
  checksum: z.string().nullable().optional(),
});
export type UpdateCustomAccessListRequest = z.infer<typeof UpdateCustomAccessListRequest>;

/**
 * E3 body: the seed's `{isEnabled}` plus the real API's `action` (in the spec since
 * 2025-10-29), the one documented exception to "no additional properties".
 */
export const UpdateAccessListConfigurationRequest = z.strictObject({
  isEnabled: z.boolean().nullable().optional(),
  action: intEnum('action', AccessListAction).optional(),
});
export type UpdateAccessListConfigurationRequest = z.infer<typeof UpdateAccessListConfigurationRequest>;

/**
 * `POST .../access-lists` body (`CreateCustomAccessListRequest`): `name`, `type` and `content`
 * required (content may be null: an empty list), `description` and `checksum` optional; a
 * null checksum is computed.
 */
export const CreateCustomAccessListRequest = z.strictObject({
  name: z
    .string()
    .min(1, { message: "The field Name must be a string or array type with a minimum length of '1'." }),
  description: z.string().nullable().optional(),
  type: intEnum('type', AccessListType),
  content: z.string().nullable(),
  checksum: z.string().nullable().optional(),
});
export type CreateCustomAccessListRequest = z.infer<typeof CreateCustomAccessListRequest>;
