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
  /** What each handler declares, read from its metadata once (decorators do not change at run time). */
  private readonly declared = new WeakMap<object, { isPublic: boolean; scope: RequiredScope | 'any' | undefined }>();

  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let route = this.declared.get(handler);
    if (!route) {
      const targets = [handler, context.getClass()];
      route = {
        isPublic: !!this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets),
        scope: this.reflector.getAllAndOverride<RequiredScope | 'any' | undefined>(REQUIRED_SCOPE, targets),
      };
      this.declared.set(handler, route);
    }
    if (route.isPublic) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (request.authError) throw request.authError;
    const auth = request.auth;
    if (!auth) throw new ApiError(ErrorCode.AUTH_REQUIRED, 'Authentication required: send X-API-Key or Authorization: Bearer');
    const scope = route.scope;
    if (!scope) throw new Error(`Route ${request.method} ${request.url} declares neither @Public() nor @Authenticated(scope)`);
    if (scope === 'any') return true;
    if (!hasScope(auth, scope)) throw ApiError.forbidden(`This credential lacks the scope ${scope}`);
    return true;
  }
}
