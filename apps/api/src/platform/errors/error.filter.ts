import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, ErrorCode, statusOf } from './api-error';
import { redactUrl, scrubSqlError } from '../logging/redact';

export interface ErrorEnvelope {
  detail: string;
  code: string;
  errors: unknown[];
}

/** Maps anything thrown to the contract's envelope. The only place an error becomes a response. */
export function toEnvelope(err: unknown): { status: number; body: ErrorEnvelope } {
  if (err instanceof ApiError) {
    return { status: err.status, body: { detail: err.detail, code: err.code, errors: err.errors } };
  }
  if (err instanceof HttpException) {
    const status = err.getStatus();
    const code = codeForStatus(status);
    const response = err.getResponse();
    const message =
      typeof response === 'object' && response && 'message' in response ? (response as { message: unknown }).message : err.message;
    const detail = status === 404 ? 'Not found' : Array.isArray(message) ? message.join('; ') : String(message);
    return { status, body: { detail, code, errors: [] } };
  }
  const fastifyCode = (err as { code?: string })?.code;
  const statusCode = (err as { statusCode?: number })?.statusCode;
  if (fastifyCode === 'FST_ERR_CTP_BODY_TOO_LARGE' || statusCode === 413) {
    return { status: 413, body: { detail: 'Request body is too large', code: ErrorCode.PAYLOAD_TOO_LARGE, errors: [] } };
  }
  if (fastifyCode === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || statusCode === 415) {
    return { status: 415, body: { detail: 'Unsupported Content-Type', code: ErrorCode.UNSUPPORTED_MEDIA_TYPE, errors: [] } };
  }
  if (
    (err as Error)?.name === 'SyntaxError' ||
    fastifyCode === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    fastifyCode === 'FST_ERR_CTP_INVALID_JSON_BODY'
  ) {
    const detail =
      fastifyCode === 'FST_ERR_CTP_EMPTY_JSON_BODY'
        ? 'Request body is empty but Content-Type is application/json'
        : `Invalid JSON in request body: ${(err as Error).message}`;
    return { status: 400, body: { detail, code: ErrorCode.VALIDATION_ERROR, errors: [] } };
  }
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return { status: statusCode, body: { detail: (err as Error).message, code: codeForStatus(statusCode), errors: [] } };
  }
  return { status: 500, body: { detail: 'Internal server error', code: ErrorCode.INTERNAL_ERROR, errors: [] } };
}

function codeForStatus(status: number): string {
  for (const code of [
    ErrorCode.NOT_FOUND,
    ErrorCode.AUTH_REQUIRED,
    ErrorCode.FORBIDDEN,
    ErrorCode.CONFLICT,
    ErrorCode.PAYLOAD_TOO_LARGE,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    ErrorCode.RATE_LIMIT_EXCEEDED,
    ErrorCode.VALIDATION_ERROR,
  ]) {
    if (statusOf(code) === status) return code;
  }
  // 400 is a malformed request: invalid JSON, a bad form body, with code VALIDATION_ERROR
  // (README, "The API in short": Errors).
  return status >= 500 ? ErrorCode.INTERNAL_ERROR : ErrorCode.VALIDATION_ERROR;
}

@Catch()
export class ErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('ErrorFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const reply = ctx.getResponse<FastifyReply>();
    const request = ctx.getRequest<FastifyRequest>();
    const { status, body } = toEnvelope(exception);
    if (status >= 500) {
      // Logged without credentials in the query string and without the values of a failed SQL statement.
      const safe = scrubSqlError(exception);
      this.logger.error(`${request?.method} ${redactUrl(request?.url)} failed: ${(safe as Error)?.stack ?? String(safe)}`);
    }
    if (reply.sent) return;
    if (exception instanceof ApiError && exception.retryAfter) void reply.header('Retry-After', exception.retryAfter);
    void reply.status(status).header('content-type', 'application/json; charset=utf-8').send(body);
  }
}
