export { Ledgerlens } from './client.js';
export type {
  LedgerlensOptions,
  LoginOptions,
  ClientCredentialsOptions,
  Page,
  PageArgs,
  PagePathParams,
  PageQuery,
  UntypedRequestOptions,
} from './client.js';
export { LedgerlensBaseError, LedgerlensConnectionError, LedgerlensError, LedgerlensWaitError } from './errors.js';
export type { LedgerlensErrorInit } from './errors.js';
export type { FetchLike, RetryInfo, Sleep } from './http.js';
export * from './resources/index.js';
export { parseEventStream } from './sse.js';
export type { SseMessage } from './sse.js';
export type { UploadFile, UploadSource } from './upload.js';
export { OPERATIONS } from './operations.js';
export type { OperationId, OperationInfo } from './operations.js';
export { SDK_VERSION } from './version.js';
export type * from './types.js';
