export { Ledgerlens } from './client.js';
export { LedgerlensCore } from './core.js';
export type {
  BrowserOptions,
  LedgerlensOptions,
  LoginOptions,
  ClientCredentialsOptions,
  Page,
  PageArgs,
  PagePathParams,
  PageQuery,
  UntypedRequestOptions,
} from './client.js';
export {
  AuthenticationError,
  ConflictError,
  ERROR_CODES,
  IdempotencyKeyReusedError,
  LedgerlensBaseError,
  LedgerlensConnectionError,
  LedgerlensError,
  LedgerlensWaitError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServerError,
  ValidationError,
} from './errors.js';
export type {
  ApiErrorCode,
  FieldError,
  HttpStatusCode,
  LedgerlensApiError,
  LedgerlensErrorCode,
  LedgerlensErrorInit,
  LedgerlensErrorKind,
} from './errors.js';
export type { Unwrapped } from './unwrap.js';
export type { FetchLike, RetryInfo, Sleep } from './http.js';
export * from './resources/index.js';
export { parseEventStream } from './sse.js';
export { EVENT_TYPES, isEventType } from './events.js';
export type { EventDataMap, EventDealDecision, EventDealStatus, EventDocumentType, EventOf, EventType, LedgerlensEvent } from './events.js';
export type { SseMessage } from './sse.js';
export type { UploadFile, UploadSource } from './upload.js';
export { OPERATIONS } from './operations.js';
export type { OperationId, OperationInfo } from './operations.js';
export { SDK_VERSION } from './version.js';
export type * from './types.js';
