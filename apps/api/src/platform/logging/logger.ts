import { LoggerService } from '@nestjs/common';
import pino, { DestinationStream, Logger } from 'pino';
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { AppConfig } from '../config/config';
import { redactUrl } from './redact';

/**
 * Structured JSON logs (pino) for Fastify's request log and Nest's own messages alike. Credentials
 * never reach them: headers are redacted, and so is every credential-like query parameter.
 * `destination` is stdout, stderr (the CLI) or a stream (tests read the logs back).
 */
export function createLogger(config: AppConfig, destination: 'stdout' | 'stderr' | DestinationStream = 'stdout'): Logger {
  return pino(
    {
      level: config.logLevel,
      base: { service: 'ledgerlens', role: config.role },
      // No pino `redact`: the request serializer below is the redaction. It logs no header at all and
      // only a redacted URL (apps/api/test/secrets.e2e-spec.ts reads a trace-level log back for
      // every secret); redact's per-line pass cost half of a request line's formatting.
      serializers: { req: serializeRequest },
    },
    typeof destination !== 'string' ? destination : destination === 'stderr' ? pino.destination(2) : batchedDestination(1),
  );
}

/** Lines are held until this many bytes are buffered (about a dozen access lines)... */
export const LOG_BATCH_BYTES = 4096;
/** ...or until this many milliseconds have passed, so a quiet server's last lines still go out. */
export const LOG_FLUSH_MS = 100;
export const BATCHED_DESTINATION = Object.freeze({ sync: false, minLength: LOG_BATCH_BYTES, periodicFlush: LOG_FLUSH_MS });

/**
 * The server's log destination: asynchronous and batched. A synchronous write per line cost more
 * CPU than the request it logs, and an asynchronous write per line hands every line to libuv's
 * thread pool and back (a wake-up and a completion per line: docs/performance.md, session 6);
 * batched, one write carries about a dozen lines. RunningApp.close() flushes, and pino flushes
 * synchronously on exit.
 */
export function batchedDestination(fd: number): DestinationStream {
  return pino.destination({ dest: fd, ...BATCHED_DESTINATION });
}

/** Fastify's request fields, with the query string's credentials redacted. */
function serializeRequest(req: FastifyRequest): Record<string, unknown> {
  return {
    method: req.method,
    url: redactUrl(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/** Nest's boot chatter (modules loaded, routes mapped) is debug detail, not news. */
const FRAMEWORK_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication']);

export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string) {
    if (context && FRAMEWORK_CONTEXTS.has(context)) this.logger.debug({ context }, String(message));
    else this.logger.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string) {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string) {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string) {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string) {
    this.logger.trace({ context }, String(message));
  }
}

/**
 * Fastify's request log with one line per request ("request completed", with the request, the
 * status and the response time) instead of two: the "incoming request" line doubled the logging cost of a fast
 * request (docs/performance.md) and said nothing the completed line does not.
 */
export class AccessLogOnly extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) return super.requestCompleted(error, request, reply);
    reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
