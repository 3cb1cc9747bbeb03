import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, ErrorCode, validationEntry } from '../errors/api-error';
import { toEnvelope } from '../errors/error.filter';

/**
 * Fastify answers some malformed requests itself, before any route or Nest filter sees them:
 * a URL that does not decode, a path segment over the router's length limit, a request whose
 * headers overflow or that the HTTP parser rejects. These answer in the contract's envelope too.
 */
export function frameworkErrors(error: Error & { code?: string }, _request: FastifyRequest, reply: FastifyReply): void {
  const apiError =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? ApiError.validation(
          [validationEntry('path', [], 'a path segment is longer than 100 characters', 'value_error.any_str.max_length')],
          'Path parameter too long',
        )
      : new ApiError(ErrorCode.VALIDATION_ERROR, 'Malformed URL: it does not decode as UTF-8 percent-encoding', [], 400);
  const { status, body } = toEnvelope(apiError);
  void reply
    .status(status)
    .header('content-type', 'application/json; charset=utf-8')
    .header('x-content-type-options', 'nosniff')
    .send(body);
}

/** Node's HTTP parser errors (header overflow 431, timeouts 408, garbage 400), written on the raw socket. */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const detail =
    status === 431 ? 'Request headers (or the URL) are too large' : status === 408 ? 'Request timed out' : 'Malformed HTTP request';
  const body = JSON.stringify({ detail, code: ErrorCode.VALIDATION_ERROR, errors: [] });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
