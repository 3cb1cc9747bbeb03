import { Body, Controller, Delete, Get, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import {
  ApiConsumes,
  ApiForbiddenResponse,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiTags,
  ApiUnauthorizedResponse,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Auth, Authenticated, Public } from '../../platform/auth/decorators';
import { roleScopes, type AuthContext } from '../../platform/auth/auth-context';
import { csrfTokenFor, readCookie, SESSION_COOKIE, sessionCookie } from '../../platform/auth/browser-session';
import { APP_CONFIG, AppConfig } from '../../platform/config/config';
import { ApiError } from '../../platform/errors/api-error';
import { ErrorEnvelopeDto } from '../../platform/errors/error.dto';
import { AuthService } from './auth.service';
import { BrowserSessionDto, LoginDto, LoginResponseDto, OAuthTokenRequestDto, OAuthTokenResponseDto } from './dto/auth.dto';

@ApiTags('Authentication')
@Controller()
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * The web app's sign-in: the session token goes into an HttpOnly, SameSite=Strict cookie (Secure
   * in production), never into the body, so no script can read it.
   */
  @Post('v1/auth/session')
  @HttpCode(200)
  @Public()
  @ApiOkResponse({ type: BrowserSessionDto, description: 'Signed in: the `ll_session` cookie is set' })
  @ApiUnauthorizedResponse({ type: ErrorEnvelopeDto, description: 'INVALID_CREDENTIALS' })
  async signIn(@Body() dto: LoginDto, @Res({ passthrough: true }) reply: FastifyReply): Promise<BrowserSessionDto> {
    const { token, session } = await this.auth.login(dto.email, dto.password);
    reply.header('Set-Cookie', sessionCookie(token, this.config.sessionTtlSeconds, this.secureCookies()));
    return this.describe(session, token);
  }

  @Get('v1/auth/session')
  @Authenticated('any')
  @ApiOkResponse({ type: BrowserSessionDto, description: "The signed-in user, the session's CSRF token and its expiry" })
  @ApiForbiddenResponse({
    type: ErrorEnvelopeDto,
    description: 'FORBIDDEN: the credential is not a user session (an API key or OAuth token)',
  })
  async getSession(
    @Auth() auth: AuthContext,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<BrowserSessionDto> {
    const token = this.sessionToken(auth, request);
    const cookie = readCookie(request.headers.cookie, SESSION_COOKIE);
    // the cookie lives as long as the session would without use: renewed while the app is in use
    if (cookie === token) reply.header('Set-Cookie', sessionCookie(token, this.config.sessionTtlSeconds, this.secureCookies()));
    return this.describe(auth.credential.id, token);
  }

  /** Sign out: the session ends at once and the cookie is cleared. */
  @Delete('v1/auth/session')
  @HttpCode(204)
  @Authenticated('any')
  @ApiHeader({
    name: 'X-CSRF-Token',
    required: false,
    description: 'Required with the session cookie: `csrf_token` of GET /v1/auth/session',
  })
  @ApiNoContentResponse({ description: 'Signed out: the session is revoked and the cookie cleared' })
  @ApiForbiddenResponse({ type: ErrorEnvelopeDto, description: 'FORBIDDEN: not a user session, or the CSRF token is missing' })
  async signOut(@Auth() auth: AuthContext, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    this.sessionToken(auth, request);
    await this.auth.revokeSession(auth.credential.id);
    reply.header('Set-Cookie', sessionCookie('', 0, this.secureCookies()));
  }

  private secureCookies(): boolean {
    return this.config.nodeEnv === 'production';
  }

  /** The session token the request was made with (the cookie, or a bearer session token). */
  private sessionToken(auth: AuthContext, request: FastifyRequest): string {
    if (auth.credential.type !== 'session') throw ApiError.forbidden('Not a user session: sign in with email and password');
    const cookie = readCookie(request.headers.cookie, SESSION_COOKIE);
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
    const token = bearer ?? cookie;
    if (!token) throw ApiError.forbidden('Not a user session');
    return token;
  }

  private async describe(sessionId: number, token: string): Promise<BrowserSessionDto> {
    const { user, organizationName, expiresAt } = await this.auth.sessionUser(sessionId);
    return {
      user: {
        id: user.id,
        email: user.email,
        name: user.name,
        role: user.role,
        organization_id: user.organizationId,
        organization_name: organizationName,
      },
      csrf_token: csrfTokenFor(token),
      expires_at: expiresAt.toISOString(),
      scopes: roleScopes(user.role),
    };
  }

  @Post('auth/login')
  @HttpCode(200)
  @Public()
  @ApiOkResponse({ type: LoginResponseDto })
  @ApiUnauthorizedResponse({ type: ErrorEnvelopeDto, description: 'INVALID_CREDENTIALS' })
  login(@Body() dto: LoginDto): Promise<LoginResponseDto> {
    return this.session(dto);
  }

  /** The same login under the versioned prefix. */
  @Post('v1/auth/login')
  @HttpCode(200)
  @Public()
  @ApiOkResponse({ type: LoginResponseDto })
  @ApiUnauthorizedResponse({ type: ErrorEnvelopeDto, description: 'INVALID_CREDENTIALS' })
  loginV1(@Body() dto: LoginDto): Promise<LoginResponseDto> {
    return this.session(dto);
  }

  private async session(dto: LoginDto): Promise<LoginResponseDto> {
    const { token, expiresAt, user } = await this.auth.login(dto.email, dto.password);
    return {
      token,
      token_type: 'Bearer',
      expires_at: expiresAt.toISOString(),
      user_id: user.id,
      organization_id: user.organizationId,
      role: user.role,
    };
  }

  /** Form A: form-encoded (JSON accepted too); `token_type` `Bearer`, as the spec prints it for this path. */
  @Post('oauth/token')
  @HttpCode(200)
  @Public()
  @ApiConsumes('application/x-www-form-urlencoded', 'application/json')
  @ApiOkResponse({ type: OAuthTokenResponseDto })
  @ApiUnauthorizedResponse({ type: ErrorEnvelopeDto, description: 'INVALID_CREDENTIALS: unknown client or wrong secret' })
  @ApiUnprocessableEntityResponse({
    type: ErrorEnvelopeDto,
    description: 'VALIDATION_ERROR: grant_type is not client_credentials, or client_id/client_secret is missing',
  })
  oauthToken(@Body() dto: OAuthTokenRequestDto): Promise<OAuthTokenResponseDto> {
    return this.token(dto, 'Bearer');
  }

  /** Form B: JSON (form-encoded accepted too); `token_type` `bearer`, as the spec prints it for this path. */
  @Post('v1/oauth/token')
  @HttpCode(200)
  @Public()
  @ApiConsumes('application/json', 'application/x-www-form-urlencoded')
  @ApiOkResponse({ type: OAuthTokenResponseDto })
  @ApiUnauthorizedResponse({ type: ErrorEnvelopeDto, description: 'INVALID_CREDENTIALS: unknown client or wrong secret' })
  @ApiUnprocessableEntityResponse({
    type: ErrorEnvelopeDto,
    description: 'VALIDATION_ERROR: grant_type is not client_credentials, or client_id/client_secret is missing',
  })
  oauthTokenV1(@Body() dto: OAuthTokenRequestDto): Promise<OAuthTokenResponseDto> {
    return this.token(dto, 'bearer');
  }

  /**
   * The form is told by the path, as the spec tells it (Form A `/oauth/token`, Form B
   * `/v1/oauth/token`), not by the content type: both paths accept both. Token types are
   * case-insensitive (RFC 6749 section 7.1), so a client of either form accepts either spelling.
   */
  private async token(dto: OAuthTokenRequestDto, tokenType: OAuthTokenResponseDto['token_type']): Promise<OAuthTokenResponseDto> {
    const { accessToken, expiresIn } = await this.auth.issueClientToken(dto.grant_type, dto.client_id, dto.client_secret);
    return { access_token: accessToken, token_type: tokenType, expires_in: expiresIn };
  }
}
