import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiConsumes, ApiOkResponse, ApiTags, ApiUnauthorizedResponse, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import { Public } from '../../platform/auth/decorators';
import { ErrorEnvelopeDto } from '../../platform/errors/error.dto';
import { AuthService } from './auth.service';
import { LoginDto, LoginResponseDto, OAuthTokenRequestDto, OAuthTokenResponseDto } from './dto/auth.dto';

@ApiTags('Authentication')
@Controller()
export class AuthController {
  constructor(private readonly auth: AuthService) {}

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
