import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiForbiddenResponse, ApiSecurity, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { RequiredScope } from './auth-context';
import { ErrorEnvelopeDto } from '../errors/error.dto';

export const PUBLIC_ROUTE = 'll:public';
export const REQUIRED_SCOPE = 'll:scope';

/** No credential needed (login, OAuth token, health, public share view). */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

/**
 * The route needs a credential holding this scope; documents the security scheme and 401/403.
 * `any`: any valid credential (e.g. reading one's own usage).
 */
export function Authenticated(scope: RequiredScope | 'any') {
  return applyDecorators(
    SetMetadata(REQUIRED_SCOPE, scope),
    ApiSecurity('api_key'),
    ApiSecurity('bearer'),
    ApiSecurity('oauth2', scope === 'any' ? [] : [scope]),
    ApiSecurity('session_cookie'),
    ApiUnauthorizedResponse({ type: ErrorEnvelopeDto, description: 'AUTH_REQUIRED or INVALID_API_KEY' }),
    ...(scope === 'any' ? [] : [ApiForbiddenResponse({ type: ErrorEnvelopeDto, description: `FORBIDDEN: needs scope ${scope}` })]),
  );
}

/** The caller's AuthContext (set by the authentication hook, checked by AuthGuard). */
export const Auth = createParamDecorator((_: unknown, ctx: ExecutionContext) => {
  const request = ctx.switchToHttp().getRequest<FastifyRequest>();
  return request.auth;
});
