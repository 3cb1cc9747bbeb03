import {
  CallHandler,
  ExecutionContext,
  Inject,
  Injectable,
  NestInterceptor,
  SetMetadata,
  UseInterceptors,
  applyDecorators,
} from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import { ApiHeader } from '@nestjs/swagger';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { from, lastValueFrom } from 'rxjs';
import { APP_CONFIG, AppConfig } from '../config/config';
import { Database } from '../database/database.service';
import { ApiError, ErrorCode, validationEntry } from '../errors/api-error';
import { IdempotencyRecord } from './idempotency.entity';

const IDEMPOTENT = 'll:idempotent';
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * Marks a POST route as honouring `Idempotency-Key` (CONTRACT.md: idempotency); `maxKeyLength` 128
 * on ingest (spec). The interceptor is attached here, to these routes only, not globally: a global
 * interceptor wraps every request, reads included, in an rxjs pipeline (docs/performance.md).
 */
export function Idempotent(options: { maxKeyLength?: number } = {}) {
  const max = options.maxKeyLength ?? MAX_IDEMPOTENCY_KEY_LENGTH;
  return applyDecorators(
    SetMetadata(IDEMPOTENT, max),
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description: `Unique key (max ${max} chars, UUID v4 recommended). A replay within 24 h returns the stored response with 200 and \`Idempotent-Replayed: true\`.`,
    }),
  );
}

/**
 * Stores the first successful response per key for 24 h. The unique row is claimed before the
 * handler runs, so of concurrent duplicates exactly one executes; the others get 409 while it is
 * in flight, and the stored response afterwards. Failed originals (4xx/5xx) release the key.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly db: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler) {
    const maxKeyLength = this.reflector.get<number | undefined>(IDEMPOTENT, context.getHandler());
    if (!maxKeyLength) return next.handle();
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const raw = request.headers['idempotency-key'];
    const key = Array.isArray(raw) ? raw[0] : raw;
    if (key === undefined || !request.auth) return next.handle();
    return from(this.run(context, request, reply, key, maxKeyLength, () => lastValueFrom(next.handle(), { defaultValue: undefined })));
  }

  private async run(
    context: ExecutionContext,
    request: FastifyRequest,
    reply: FastifyReply,
    key: string,
    maxKeyLength: number,
    handle: () => Promise<unknown>,
  ): Promise<unknown> {
    if (key.length === 0 || key.length > maxKeyLength) {
      throw ApiError.validation([
        validationEntry(
          'header',
          ['Idempotency-Key'],
          `Idempotency-Key must be 1-${maxKeyLength} characters`,
          'value_error.any_str.max_length',
        ),
      ]);
    }
    const auth = request.auth!;
    const scope = {
      organizationId: auth.organizationId,
      livemode: auth.livemode,
      credentialKey: `${auth.credential.type}:${auth.credential.id}`,
      key,
    };
    const path = request.url.split('?')[0];
    const claimed = await this.claim(scope, request.method, path);
    if (claimed !== true) {
      if (claimed.state === 'in_flight') {
        throw new ApiError(ErrorCode.IDEMPOTENCY_IN_PROGRESS, 'A request with this Idempotency-Key is still being processed; retry later');
      }
      reply.header('Idempotent-Replayed', 'true');
      reply.status(200);
      return claimed.responseBody;
    }
    try {
      const body = await handle();
      const status = this.reflector.get<number>(HTTP_CODE_METADATA, context.getHandler()) ?? (request.method === 'POST' ? 201 : 200);
      await this.db
        .system()
        .nativeUpdate(IdempotencyRecord, scope, { state: 'completed', responseStatus: status, responseBody: body ?? null });
      return body;
    } catch (err) {
      await this.db.system().nativeDelete(IdempotencyRecord, scope);
      throw err;
    }
  }

  /** Returns true when this request now owns the key, else the existing record. */
  private async claim(
    scope: Pick<IdempotencyRecord, 'organizationId' | 'livemode' | 'credentialKey' | 'key'>,
    method: string,
    path: string,
  ): Promise<true | IdempotencyRecord> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const em = this.db.system();
      try {
        const expiresAt = new Date(Date.now() + this.config.idempotencyTtlSeconds * 1000);
        await em.insert(IdempotencyRecord, {
          ...scope,
          method,
          path,
          state: 'in_flight',
          createdAt: new Date(),
          expiresAt,
          responseStatus: null,
          responseBody: null,
        });
        return true;
      } catch (err) {
        if (!(err instanceof UniqueConstraintViolationException)) throw err;
      }
      const existing = await em.findOne(IdempotencyRecord, scope);
      if (!existing) continue;
      if (existing.expiresAt.getTime() > Date.now()) return existing;
      await em.nativeDelete(IdempotencyRecord, { id: existing.id });
    }
    throw new ApiError(ErrorCode.IDEMPOTENCY_IN_PROGRESS, 'Could not claim the Idempotency-Key; retry');
  }
}
