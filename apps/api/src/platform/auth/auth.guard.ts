import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ApiError, ErrorCode } from '../errors/api-error';
import { hasScope, RequiredScope } from './auth-context';
import { PUBLIC_ROUTE, REQUIRED_SCOPE } from './decorators';

/**
 * Global guard: every route needs a credential unless marked @Public(), and the scope it names.
 * Credentials were resolved by the request hook (so that rate limiting could key on them).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (request.authError) throw request.authError;
    const auth = request.auth;
    if (!auth) throw new ApiError(ErrorCode.AUTH_REQUIRED, 'Authentication required: send X-API-Key or Authorization: Bearer');
    const scope = this.reflector.getAllAndOverride<RequiredScope | 'any' | undefined>(REQUIRED_SCOPE, targets);
    if (!scope) throw new Error(`Route ${request.method} ${request.url} declares neither @Public() nor @Authenticated(scope)`);
    if (scope === 'any') return true;
    if (!hasScope(auth, scope)) throw ApiError.forbidden(`This credential lacks the scope ${scope}`);
    return true;
  }
}
