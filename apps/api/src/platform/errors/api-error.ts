/**
 * Stable error codes (spec: Errors). Domain code throws ApiError with a code; the one exception
 * filter maps it to the envelope {detail, code, errors}. The HTTP status comes from the code.
 */
export enum ErrorCode {
  VALIDATION_ERROR = 'VALIDATION_ERROR',
  AUTH_REQUIRED = 'AUTH_REQUIRED',
  INVALID_API_KEY = 'INVALID_API_KEY',
  INVALID_CREDENTIALS = 'INVALID_CREDENTIALS',
  SHARE_PASSWORD_REQUIRED = 'SHARE_PASSWORD_REQUIRED',
  SHARE_PASSWORD_INVALID = 'SHARE_PASSWORD_INVALID',
  FORBIDDEN = 'FORBIDDEN',
  HTTPS_REQUIRED = 'HTTPS_REQUIRED',
  NOT_FOUND = 'NOT_FOUND',
  DEAL_NOT_FOUND = 'DEAL_NOT_FOUND',
  DOCUMENT_NOT_FOUND = 'DOCUMENT_NOT_FOUND',
  CONFLICT = 'CONFLICT',
  DUPLICATE_RESOURCE = 'DUPLICATE_RESOURCE',
  IDEMPOTENCY_IN_PROGRESS = 'IDEMPOTENCY_IN_PROGRESS',
  IDEMPOTENCY_KEY_REUSED = 'IDEMPOTENCY_KEY_REUSED',
  PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE = 'UNSUPPORTED_MEDIA_TYPE',
  RATE_LIMIT_EXCEEDED = 'RATE_LIMIT_EXCEEDED',
  QUOTA_EXCEEDED = 'QUOTA_EXCEEDED',
  PROCESSING_FAILED = 'PROCESSING_FAILED',
  WEIGHT_SUM_INVALID = 'WEIGHT_SUM_INVALID',
  INVALID_DECISION = 'INVALID_DECISION',
  CRM_NOT_CONFIGURED = 'CRM_NOT_CONFIGURED',
  CRM_CONNECTION_FAILED = 'CRM_CONNECTION_FAILED',
  CRM_SIGNATURE_INVALID = 'CRM_SIGNATURE_INVALID',
  INTERNAL_ERROR = 'INTERNAL_ERROR',
  SERVICE_UNAVAILABLE = 'SERVICE_UNAVAILABLE',
}

export function statusOf(code: ErrorCode): number {
  switch (code) {
    case ErrorCode.AUTH_REQUIRED:
    case ErrorCode.INVALID_API_KEY:
    case ErrorCode.INVALID_CREDENTIALS:
    case ErrorCode.SHARE_PASSWORD_REQUIRED:
    case ErrorCode.SHARE_PASSWORD_INVALID:
    case ErrorCode.CRM_SIGNATURE_INVALID:
      return 401;
    case ErrorCode.FORBIDDEN:
    case ErrorCode.HTTPS_REQUIRED:
      return 403;
    case ErrorCode.NOT_FOUND:
    case ErrorCode.DEAL_NOT_FOUND:
    case ErrorCode.DOCUMENT_NOT_FOUND:
    case ErrorCode.CRM_NOT_CONFIGURED:
      return 404;
    case ErrorCode.CONFLICT:
    case ErrorCode.DUPLICATE_RESOURCE:
    case ErrorCode.IDEMPOTENCY_IN_PROGRESS:
      return 409;
    case ErrorCode.PAYLOAD_TOO_LARGE:
      return 413;
    case ErrorCode.UNSUPPORTED_MEDIA_TYPE:
      return 415;
    case ErrorCode.VALIDATION_ERROR:
    case ErrorCode.PROCESSING_FAILED:
    case ErrorCode.WEIGHT_SUM_INVALID:
    case ErrorCode.INVALID_DECISION:
    case ErrorCode.CRM_CONNECTION_FAILED:
    case ErrorCode.IDEMPOTENCY_KEY_REUSED:
      return 422;
    case ErrorCode.RATE_LIMIT_EXCEEDED:
    case ErrorCode.QUOTA_EXCEEDED:
      return 429;
    case ErrorCode.SERVICE_UNAVAILABLE:
      return 503;
    case ErrorCode.INTERNAL_ERROR:
      return 500;
  }
}

/**
 * One validation problem, carrying both forms' field names (README, "How the spec's variants became
 * one API", rule 2).
 */
export interface ValidationEntry {
  loc: (string | number)[];
  msg: string;
  type: string;
  field: string;
  message: string;
}

export function validationEntry(
  source: 'body' | 'query' | 'path' | 'header',
  path: (string | number)[],
  msg: string,
  type: string,
): ValidationEntry {
  return { loc: [source, ...path], msg, type, field: path.join('.'), message: msg };
}

export class ApiError extends Error {
  /** Seconds to send as Retry-After (429). */
  retryAfter?: number;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly errors: ValidationEntry[] = [],
    /** Overrides the code's default status: VALIDATION_ERROR is 400 for malformed JSON. */
    readonly status: number = statusOf(code),
  ) {
    super(detail);
  }

  static notFound(what = 'Resource', code: ErrorCode = ErrorCode.NOT_FOUND): ApiError {
    return new ApiError(code, `${what} not found`);
  }

  static validation(errors: ValidationEntry[], detail = 'Validation failed'): ApiError {
    return new ApiError(ErrorCode.VALIDATION_ERROR, detail, errors);
  }

  static conflict(detail: string): ApiError {
    return new ApiError(ErrorCode.CONFLICT, detail);
  }

  static forbidden(detail: string): ApiError {
    return new ApiError(ErrorCode.FORBIDDEN, detail);
  }
}
