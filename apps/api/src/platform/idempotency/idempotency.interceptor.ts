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
import { ApiHeader, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { from, lastValueFrom } from 'rxjs';
import { APP_CONFIG, AppConfig } from '../config/config';
import { Database } from '../database/database.service';
import { ApiError, ErrorCode, validationEntry } from '../errors/api-error';
import { ErrorEnvelopeDto } from '../errors/error.dto';
import { IdempotencyRecord } from './idempotency.entity';
import { parsedBodyFingerprint, readMultipartFingerprint, watchMultipart } from './request-fingerprint';

const IDEMPOTENT = 'll:idempotent';
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * Marks a POST route as honouring `Idempotency-Key` (README, "The API in short"); `maxKeyLength` 128
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
      description: `Unique key (max ${max} chars, UUID v4 recommended). A replay of the same request within 24 h returns the stored response with 200 and \`Idempotent-Replayed: true\`; the key reused for a different request (method, path, query or body) is 422 \`IDEMPOTENCY_KEY_REUSED\`.`,
    }),
    ApiUnprocessableEntityResponse({
      type: ErrorEnvelopeDto,
      description:
        'VALIDATION_ERROR or IDEMPOTENCY_KEY_REUSED: a field failed validation, or the Idempotency-Key was first used for a different request (method, path, query or body)',
    }),
  );
}

/**
 * Stores the first successful response per key for 24 h. The unique row is claimed before the
 * handler runs, so of concurrent duplicates exactly one executes; the others get 409 while it is
 * in flight, and the stored response afterwards. Failed originals (4xx/5xx) release the key.
 * The key keeps a fingerprint of its request: a different request under the same key is 422
 * `IDEMPOTENCY_KEY_REUSED`, never another request's answer.
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
    const { maxFileBytes } = this.config.uploads;
    // A multipart body is read by the handler: its fingerprint is complete only once it has run.
    const multipart = request.isMultipart();
    const fingerprint = multipart ? null : parsedBodyFingerprint(request);
    const claimed = await this.claim(scope, request.method, path, fingerprint);
    if (claimed !== true) {
      const reused = () =>
        new ApiError(
          ErrorCode.IDEMPOTENCY_KEY_REUSED,
          `Idempotency-Key ${JSON.stringify(key)} was already used for a different request (method, path, query or body); ` +
            'use a new key for a new request',
        );
      if (claimed.state === 'in_flight') {
        if (fingerprint && claimed.requestFingerprint && claimed.requestFingerprint !== fingerprint) throw reused();
        throw new ApiError(ErrorCode.IDEMPOTENCY_IN_PROGRESS, 'A request with this Idempotency-Key is still being processed; retry later');
      }
      // (a row stored before fingerprints has none: it replays as it always did)
      if (claimed.requestFingerprint && claimed.requestFingerprint !== (fingerprint ?? (await this.readMultipart(request, maxFileBytes))))
        throw reused();
      reply.header('Idempotent-Replayed', 'true');
      reply.status(200);
      return claimed.responseBody;
    }
    const multipartFingerprint = multipart ? watchMultipart(request, maxFileBytes) : null;
    try {
      const body = await handle();
      const status = this.reflector.get<number>(HTTP_CODE_METADATA, context.getHandler()) ?? (request.method === 'POST' ? 201 : 200);
      await this.db.system().nativeUpdate(IdempotencyRecord, scope, {
        state: 'completed',
        responseStatus: status,
        responseBody: body ?? null,
        requestFingerprint: fingerprint ?? multipartFingerprint!(),
      });
      return body;
    } catch (err) {
      await this.db.system().nativeDelete(IdempotencyRecord, scope);
      throw err;
    }
  }

  private async readMultipart(request: FastifyRequest, maxFileBytes: number): Promise<string> {
    try {
      return await readMultipartFingerprint(request, maxFileBytes);
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw new ApiError(ErrorCode.VALIDATION_ERROR, `Malformed multipart body: ${(err as Error).message}`, [], 400);
    }
  }

  /** Returns true when this request now owns the key, else the existing record. */
  private async claim(
    scope: Pick<IdempotencyRecord, 'organizationId' | 'livemode' | 'credentialKey' | 'key'>,
    method: string,
    path: string,
    requestFingerprint: string | null,
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
          requestFingerprint,
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
