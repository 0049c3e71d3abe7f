/**
 * Wire schemas shared by the three API areas. Wire schemas are permissive on purpose: they
 * name only the fields edgesync reads, tolerate extra fields (z.object strips them) and
 * accept null wherever the OpenAPI files say `nullable`.
 */
import { z } from 'zod';

/** int32/int64 numbers as JSON numbers. */
export const WireInt = z.number().int();

/** Shield's GenericRequestResponse: the `error` member of every Shield envelope. */
export const GenericRequestResponseWire = z.object({
  statusCode: WireInt.nullish(),
  success: z.boolean().nullish(),
  message: z.string().nullish(),
  errorKey: z.string().nullish(),
});
export type GenericRequestResponseWire = z.infer<typeof GenericRequestResponseWire>;

/** `{data, error}`: the reply shape of most Shield operations. */
export function envelope<T extends z.ZodType>(data: T) {
  return z.object({ data: data.nullish(), error: GenericRequestResponseWire.nullish() });
}
