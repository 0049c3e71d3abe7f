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

/** RFC 7807 problem details (Shield and MC). */
export const ProblemDetailsWire = z.object({
  type: z.string().nullish(),
  title: z.string().nullish(),
  status: WireInt.nullish(),
  detail: z.string().nullish(),
  instance: z.string().nullish(),
});

/** MC ErrorDetails: problem details plus per-field `errors` and an optional app `id`. */
export const ExtendedErrorWire = ProblemDetailsWire.extend({
  errors: z.array(z.object({ field: z.string().nullish(), message: z.string().nullish() })),
  id: z.string().nullish(),
});

/** `{statusCode}`: UnauthorizedResult and the failure body of E8/E9. */
export const StatusOnlyWire = z.object({ statusCode: WireInt });

/** Core (DNS) 400 body. */
export const CoreApiErrorWire = z.object({
  ErrorKey: z.string().nullish(),
  Field: z.string().nullish(),
  Message: z.string().nullish(),
});
