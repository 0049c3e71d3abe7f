/**
 * E2 and E3 request bodies. Null and omitted mean "keep" for every field (seed E2 rules; the
 * real E3 request makes `isEnabled` nullable with the same meaning).
 */
import { z } from 'zod';
import { AccessListAction } from '../../domain/enums.js';
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
