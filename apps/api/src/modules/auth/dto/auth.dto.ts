import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ValidateString } from '../../../platform/validation/decorators';

export class LoginDto {
  @ValidateString({ maxLength: 320, example: 'admin@example.com' }) email: string;
  @ValidateString({ maxLength: 1024 }) password: string;
}

export class LoginResponseDto {
  @ApiProperty({ description: 'Session token: send as Authorization: Bearer <token>. Expires after 24 h without use.' }) token: string;
  @ApiProperty({ enum: ['Bearer'] }) token_type: 'Bearer';
  @ApiProperty({ type: String, format: 'date-time' }) expires_at: string;
  @ApiProperty({ type: 'integer' }) user_id: number;
  @ApiProperty({ type: 'integer' }) organization_id: number;
  @ApiProperty({ enum: ['admin', 'manager', 'underwriter', 'reviewer'] }) role: string;
}

/** OAuth client credentials; fields are checked by the service so that OAuth errors stay precise. */
export class OAuthTokenRequestDto {
  @ValidateString({ optional: true, example: 'client_credentials' }) grant_type?: string;
  @ValidateString({ optional: true }) client_id?: string;
  @ValidateString({ optional: true }) client_secret?: string;
}

export class OAuthTokenResponseDto {
  @ApiProperty() access_token: string;
  @ApiProperty({
    enum: ['Bearer', 'bearer'],
    description:
      '`Bearer` from `/oauth/token` (Form A), `bearer` from `/v1/oauth/token` (Form B); compare case-insensitively (RFC 6749 7.1)',
  })
  token_type: 'Bearer' | 'bearer';
  @ApiProperty({ type: 'integer', example: 3600 }) expires_in: number;
  @ApiPropertyOptional() scope?: string;
}

export class SessionUserDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ example: 'admin@example.com' }) email: string;
  @ApiProperty({ type: String, nullable: true }) name: string | null;
  @ApiProperty({ enum: ['admin', 'manager', 'underwriter', 'reviewer'] }) role: string;
  @ApiProperty({ type: 'integer' }) organization_id: number;
  @ApiProperty() organization_name: string;
}

/** The web app's browser session: who is signed in, and the token its writes echo. */
export class BrowserSessionDto {
  @ApiProperty({ type: SessionUserDto }) user: SessionUserDto;
  @ApiProperty({
    description:
      'Send as the `X-CSRF-Token` header on every write (POST, PUT, PATCH, DELETE) made with the session cookie; derived from the session, the same for its whole life',
  })
  csrf_token: string;
  @ApiProperty({ type: String, format: 'date-time', description: 'When the session ends unless used (sliding expiry)' })
  expires_at: string;
  @ApiProperty({
    type: [String],
    example: ['read', 'write'],
    description: "The scopes the user's role grants (what the app may offer: `write` to change deals, `keys:manage` for keys)",
  })
  scopes: string[];
}
