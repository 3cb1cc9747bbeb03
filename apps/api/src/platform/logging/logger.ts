import { LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';
import { AppConfig } from '../config/config';

/** Structured JSON logs (pino) for Fastify's request log and Nest's own messages alike. */
export function createLogger(config: AppConfig, destination: 'stdout' | 'stderr' = 'stdout'): Logger {
  return pino(
    {
    level: config.logLevel,
    base: { service: 'ledgerlens', role: config.role },
    redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie'], censor: '[redacted]' },
    },
    pino.destination(destination === 'stderr' ? 2 : 1),
  );
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
