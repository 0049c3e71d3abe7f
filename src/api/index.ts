/**
 * The public surface of the API client: build one with `createApiClient`, catch `ApiError`,
 * build requests with `readRequests`/`writeRequests`, and type replies with the wire schemas.
 */
export { CUSTOM_RULES_PAGE_SIZE, createApiClient, MAX_PAGES } from './client.js';
export {
  ApiError,
  type ApiErrorInit,
  type ApiErrorShape,
  codeForStatus,
  describeErrorBody,
  describeErrorJson,
  type ErrorBodyInfo,
  type FieldError,
  failedGenericResponse,
  formatApiErrorMessage,
} from './errors.js';
export {
  type ApiArea,
  type ApiRequest,
  type HttpMethod,
  OPERATIONS,
  type OperationId,
  readRequests,
  type WriteOperationId,
  writeRequests,
} from './operations.js';
export { createsContainers, isIdempotent } from './retry.js';
export type {
  AccessListConfigurationReply,
  ApiClient,
  ApiClientOptions,
  CallOptions,
  RequestEvent,
  RetryOptions,
  WriteReplies,
} from './types.js';
export * from './wire/common.js';
export * from './wire/dns.js';
export * from './wire/mc.js';
export * from './wire/shield.js';
